import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRedis } from '../bus/redis/index.ts';
import { redisForTests, TEST_REDIS_URL, testKeyPrefix } from '../bus/test-support/index.ts';
import {
  createMessageState,
  createRunEventDecoderStream,
  type LoggedRunEvent,
  type Message,
  type RunEvent,
  reduceAll,
  toMessage,
} from '../protocol/index.ts';
import { campaignSize } from '../shared/test-support/campaign-size.ts';
import {
  createTestDatabase,
  postgresForTests,
  type TestDatabase,
} from '../store/postgres/test-support/index.ts';
import { type ServerProcess, startServerProcess } from './test-support/server-process.ts';

/**
 * Two server processes on two ports sharing one PostgreSQL database and one Redis, as behind a
 * load balancer without sticky sessions: whatever one instance started, the other serves.
 */
const hasPostgres = await postgresForTests();
const hasRedis = await redisForTests();

const TOKEN = 'multi-instance-demo-token';
/** Runs read through random cuts on random instances: 2 in `npm test`, 6 in the campaign (campaign-size.ts). */
const CUT_ROUNDS = campaignSize({ quick: 2, full: 6 });
const LEASE_MS = 1500;
const SEED = '我买的那块表还没发货的话，帮我取消吧，不想要了。';
const READ_FILE_TOOL = {
  type: 'function',
  name: 'read_file',
  description: 'Read a text file from the local disk',
  parameters: {
    type: 'object',
    properties: { path: { type: 'string' } },
    required: ['path'],
    additionalProperties: false,
  },
};

let database: TestDatabase;
let directory: string;
const keys = testKeyPrefix();
let a: ServerProcess;
let b: ServerProcess;

function instanceEnv(name: string, delayMs = 15): Record<string, string> {
  return {
    RUNSTREAM_DATABASE_URL: database.url,
    RUNSTREAM_REDIS_URL: TEST_REDIS_URL,
    RUNSTREAM_REDIS_PREFIX: keys.prefix,
    RUNSTREAM_DB: join(directory, `${name}.db`),
    RUNSTREAM_DEMO_TOKEN: TOKEN,
    RUNSTREAM_DEMO_DELAY_MS: String(delayMs),
    RUNSTREAM_LEASE_MS: String(LEASE_MS),
    RUNSTREAM_INSTANCE_ID: name,
    // One user drives every run and resume here: the per-user limits have their own tests.
    RUNSTREAM_RATE_LIMIT: '0',
    RUNSTREAM_MAX_RUNNING_RUNS: '0',
  };
}

async function api(server: ServerProcess, path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...init.headers },
  });
}

async function newConversation(server: ServerProcess): Promise<string> {
  const response = await api(server, '/v1/conversations', { method: 'POST', body: '{}' });
  return ((await response.json()) as { id: string }).id;
}

interface Read {
  status: number;
  events: RunEvent[];
  runId: string | null;
}

/**
 * The events of one streaming response, raw (no de-duplication, unlike the client SDK), optionally
 * cut after `cutAfter` events, as a dropped connection would be.
 */
async function readStream(response: Response, cutAfter = Number.POSITIVE_INFINITY): Promise<Read> {
  const events: RunEvent[] = [];
  const runId = response.headers.get('x-runstream-run-id');
  if (response.status !== 200 || response.body === null) return { status: response.status, events, runId };
  const reader = response.body.pipeThrough(createRunEventDecoderStream('sse')).getReader();
  while (events.length < cutAfter) {
    const { done, value } = await reader.read();
    if (done) break;
    events.push(value);
  }
  await reader.cancel().catch(() => undefined);
  return { status: response.status, events, runId };
}

async function follow(
  server: ServerProcess,
  runId: string,
  lastEventId: number,
  cutAfter?: number,
): Promise<Read> {
  const response = await api(server, `/v1/runs/${runId}/events`, {
    headers: { 'last-event-id': String(lastEventId) },
  });
  return readStream(response, cutAfter);
}

const logged = (events: readonly RunEvent[]) =>
  events.filter((event): event is LoggedRunEvent => 'seq' in event && event.type !== 'run.snapshot');

async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function runOf(
  server: ServerProcess,
  runId: string,
): Promise<{ status: string; cancelReason?: string }> {
  return (await (await api(server, `/v1/runs/${runId}`)).json()) as { status: string; cancelReason?: string };
}

/** How often the run's cancel_order executed, from the shared audit log (one entry per outcome). */
async function executions(runId: string): Promise<number> {
  const rows = await sql<{ n: string }>(
    "SELECT COUNT(*) AS n FROM tool_audit WHERE run_id = $1 AND name = 'cancel_order' AND outcome = 'done'",
    [runId],
  );
  return Number(rows[0]?.n ?? 0);
}

async function sql<Row extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<Row[]> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    return (await client.query<Row>(text, values)).rows;
  } finally {
    await client.end();
  }
}

async function orderStatus(): Promise<string | undefined> {
  return (await sql<{ status: string }>("SELECT status FROM novashop_orders WHERE order_id = '88235'"))[0]
    ?.status;
}

/** Order 88235 back to paid and unshipped, so a new conversation raises a fresh card. */
async function resetOrder(): Promise<void> {
  await sql(
    `UPDATE novashop_orders SET status = '已支付待发货', cancelled_at = NULL, cancel_reason = NULL,
       refund_status = NULL, refund_cents = NULL, refund_to = NULL, refund_created_at = NULL
     WHERE order_id = '88235'`,
  );
}

/** Send the seed message on `server` and read until the confirmation card; returns the run and call. */
async function raiseCard(
  server: ServerProcess,
): Promise<{ runId: string; toolCallId: string; lastSeq: number }> {
  await resetOrder();
  const conversationId = await newConversation(server);
  const read = await readStream(
    await api(server, `/v1/conversations/${conversationId}/messages`, {
      method: 'POST',
      body: JSON.stringify({ text: SEED }),
    }),
  );
  const paused = read.events.find((event) => event.type === 'run.paused');
  if (paused?.type !== 'run.paused')
    throw new Error(`no card: ${read.events.map((event) => event.type).join(',')}`);
  const toolCallId = paused.pending[0]?.toolCallId ?? '';
  return { runId: read.runId ?? '', toolCallId, lastSeq: (paused as LoggedRunEvent).seq };
}

describe.skipIf(!hasPostgres || !hasRedis)('two instances on one PostgreSQL and one Redis', () => {
  beforeAll(async () => {
    database = await createTestDatabase('runstream_multi');
    directory = mkdtempSync(join(tmpdir(), 'runstream-multi-'));
    a = await startServerProcess(instanceEnv('instance-a'));
    b = await startServerProcess(instanceEnv('instance-b'));
  }, 120_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await database?.drop();
    rmSync(directory, { recursive: true, force: true });
    const redis = await openRedis(TEST_REDIS_URL);
    await keys.clear(redis);
    redis.disconnect();
  }, 60_000);

  it('follows on B a run started on A, from Last-Event-ID, every event exactly once', async () => {
    const conversationId = await newConversation(a);
    const started = await api(a, `/v1/conversations/${conversationId}/messages`, {
      method: 'POST',
      body: JSON.stringify({ text: '退货政策是什么？' }),
    });
    const first = await readStream(started, 6);
    const runId = first.runId ?? '';
    const seenOnA = logged(first.events);
    const lastSeq = seenOnA.at(-1)?.seq ?? 0;
    const rest = await follow(b, runId, lastSeq);
    const seenOnB = logged(rest.events);
    const seqs = [...seenOnA, ...seenOnB].map((event) => event.seq);
    expect(seqs).toEqual(seqs.map((_, index) => index + 1));
    expect(seenOnB.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
    expect(rest.events.at(-1)?.type).toBe('done');
    // The whole run read on B from the start is the same events.
    const whole = logged((await follow(b, runId, 0)).events);
    expect(whole.map((event) => event.seq)).toEqual(seqs);
  }, 60_000);

  it('stops on B a run streaming on A: A’s stream ends cancelled with the reason', async () => {
    const slow = await startServerProcess(instanceEnv('instance-slow', 120));
    try {
      const conversationId = await newConversation(slow);
      const started = await api(slow, `/v1/conversations/${conversationId}/messages`, {
        method: 'POST',
        body: JSON.stringify({ text: '退货政策是什么？' }),
      });
      const runId = started.headers.get('x-runstream-run-id') ?? '';
      const streaming = readStream(started);
      await new Promise((resolve) => setTimeout(resolve, 400));
      const cancelled = await api(b, `/v1/runs/${runId}/cancel`, {
        method: 'POST',
        body: JSON.stringify({ reason: 'changed_my_mind' }),
      });
      expect(cancelled.status).toBe(200);
      expect(await cancelled.json()).toMatchObject({
        id: runId,
        status: 'cancelled',
        cancelReason: 'changed_my_mind',
      });
      const { events } = await streaming;
      expect(logged(events).at(-1)).toMatchObject({
        type: 'run.finished',
        status: 'cancelled',
        reason: 'changed_my_mind',
      });
      expect(await runOf(a, runId)).toMatchObject({ status: 'cancelled', cancelReason: 'changed_my_mind' });
    } finally {
      await slow.stop();
    }
  }, 60_000);

  it('confirms on B a card raised on A, and the order is cancelled once', async () => {
    const card = await raiseCard(a);
    const resumed = await readStream(
      await api(b, `/v1/runs/${card.runId}/confirmations/${card.toolCallId}`, {
        method: 'POST',
        headers: { 'last-event-id': String(card.lastSeq) },
        body: JSON.stringify({ decision: 'approve' }),
      }),
    );
    expect(resumed.status).toBe(200);
    const events = logged(resumed.events);
    expect(events[0]?.seq).toBe(card.lastSeq + 1);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
    expect(await executions(card.runId)).toBe(1);
    expect(await orderStatus()).toBe('已取消');
    // A reads the same ending.
    const onA = logged((await follow(a, card.runId, card.lastSeq)).events);
    expect(onA.map((event) => event.seq)).toEqual(events.map((event) => event.seq));
  }, 60_000);

  it('takes a Responses tool result on B for a response started on A', async () => {
    const created = await api(a, '/v1/responses', {
      method: 'POST',
      body: JSON.stringify({
        input: 'use read_file to read notes.txt',
        tools: [READ_FILE_TOOL],
        stream: false,
      }),
    });
    expect(created.status).toBe(200);
    const waiting = (await created.json()) as {
      id: string;
      status: string;
      output: { type: string; call_id?: string }[];
    };
    const call = waiting.output.find((item) => item.type === 'function_call');
    expect(call?.call_id).toBeDefined();
    const submitted = await api(b, `/v1/responses/${waiting.id}/tool_results`, {
      method: 'POST',
      body: JSON.stringify({
        tool_outputs: [{ call_id: call?.call_id, output: 'Buy milk.\nCall Alice at 3pm.' }],
        stream: false,
      }),
    });
    expect(submitted.status).toBe(200);
    const done = (await submitted.json()) as {
      status: string;
      output: { type: string; content?: { text: string }[] }[];
    };
    expect(done.status).toBe('completed');
    expect(JSON.stringify(done.output)).toContain('Buy milk.');
    const onA = (await (await api(a, `/v1/responses/${waiting.id}`)).json()) as { status: string };
    expect(onA.status).toBe('completed');
  }, 60_000);

  it('executes once when 40 approvals of one card race across A and B; the rest are 409', async () => {
    const card = await raiseCard(a);
    const statuses = await Promise.all(
      Array.from({ length: 40 }, async (_, index) => {
        const response = await api(
          index % 2 === 0 ? a : b,
          `/v1/runs/${card.runId}/confirmations/${card.toolCallId}`,
          {
            method: 'POST',
            body: JSON.stringify({ decision: 'approve' }),
          },
        );
        await readStream(response);
        return response.status;
      }),
    );
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(39);
    await waitFor(
      async () => ((await runOf(a, card.runId)).status === 'completed' ? true : undefined),
      20_000,
      'the approved run to complete',
    );
    expect(await executions(card.runId)).toBe(1);
    expect(await orderStatus()).toBe('已取消');
  }, 60_000);

  it('finishes on B a run whose instance was killed mid-stream, within the lease time', async () => {
    const doomed = await startServerProcess(instanceEnv('instance-doomed', 120));
    const conversationId = await newConversation(doomed);
    const started = await api(doomed, `/v1/conversations/${conversationId}/messages`, {
      method: 'POST',
      body: JSON.stringify({ text: '退货政策是什么？' }),
    });
    const runId = started.headers.get('x-runstream-run-id') ?? '';
    const first = await readStream(started, 5);
    const killedAt = Date.now();
    await doomed.crash();
    const finished = await follow(b, runId, logged(first.events).at(-1)?.seq ?? 0);
    const elapsed = Date.now() - killedAt;
    const events = logged(finished.events);
    expect(events.at(-1)).toMatchObject({
      type: 'run.finished',
      status: 'interrupted',
      reason: 'instance_lost',
    });
    expect(events.some((event) => event.type === 'block.started' && event.kind === 'error')).toBe(true);
    // The lease lapses after LEASE_MS; the sweep runs every half lease: well within three leases.
    expect(elapsed).toBeLessThan(LEASE_MS * 3 + 2000);
    await waitFor(
      async () => ((await runOf(b, runId)).status === 'interrupted' ? true : undefined),
      5000,
      'the store to say interrupted',
    );
    // The conversation takes a new message, on either instance.
    const next = await api(a, `/v1/conversations/${conversationId}/messages`, {
      method: 'POST',
      body: JSON.stringify({ text: '你好' }),
    });
    expect(next.status).toBe(200);
    expect(logged((await readStream(next)).events).at(-1)).toMatchObject({ status: 'completed' });
  }, 60_000);

  it('serves every reader from the store when Redis loses the live logs, mid-run and after', async () => {
    const slow = await startServerProcess(instanceEnv('instance-slow-loss', 60));
    const redis = await openRedis(TEST_REDIS_URL);
    try {
      const conversationId = await newConversation(slow);
      const started = await api(slow, `/v1/conversations/${conversationId}/messages`, {
        method: 'POST',
        body: JSON.stringify({ text: '退货政策是什么？' }),
      });
      const runId = started.headers.get('x-runstream-run-id') ?? '';
      const onOwner = readStream(started);
      const first = await follow(b, runId, 0, 8);
      // Redis restarts empty: every live log is gone.
      await keys.clear(redis);
      // B's readers reconnect (B's copy notices the loss and sends them off) until the run ends;
      // each stretch is the store's snapshot or events, never a repeat.
      let state = reduceAll(
        createMessageState(),
        first.events.filter((event) => event.type !== 'done'),
      );
      let ended = false;
      for (let attempt = 0; !ended && attempt < 40; attempt += 1) {
        const read = await follow(b, runId, state.lastSeq);
        state = reduceAll(
          state,
          read.events.filter((event) => event.type !== 'done'),
        );
        ended = read.status === 204 || read.events.at(-1)?.type === 'done';
        if (!ended) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(ended).toBe(true);
      const owner = await onOwner;
      const ownerState = reduceAll(
        createMessageState(),
        owner.events.filter((event) => event.type !== 'done'),
      );
      expect(ownerState.status).toBe('completed');
      const persisted = (
        (await (await api(a, `/v1/conversations/${conversationId}`)).json()) as {
          messages: { role: string; message?: Message }[];
        }
      ).messages.find((message) => message.role === 'assistant')?.message;
      expect(toMessage(state)).toEqual(persisted);
      expect(toMessage(ownerState)).toEqual(persisted);
      // After the run, with the live log gone again, a reader anywhere gets the store's snapshot.
      await keys.clear(redis);
      const late = await follow(a, runId, 0);
      expect(late.events[0]).toMatchObject({ type: 'run.snapshot', message: persisted });
    } finally {
      redis.disconnect();
      await slow.stop();
    }
  }, 60_000);

  it('loses and repeats nothing when random cuts resume on random instances', async () => {
    let random = 20_251_203;
    const next = () => {
      random = (random * 1_103_515_245 + 12_345) % 2_147_483_648;
      return random / 2_147_483_648;
    };
    for (let round = 0; round < CUT_ROUNDS; round += 1) {
      const conversationId = await newConversation(a);
      const started = await api(next() < 0.5 ? a : b, `/v1/conversations/${conversationId}/messages`, {
        method: 'POST',
        body: JSON.stringify({ text: '退货政策是什么？' }),
      });
      let read = await readStream(started, 1 + Math.floor(next() * 8));
      const runId = read.runId ?? '';
      const seen = logged(read.events);
      let ended = read.events.at(-1)?.type === 'done';
      const trace: string[] = [
        `start:${logged(read.events)
          .map((e) => e.seq)
          .join('.')}`,
      ];
      for (let attempt = 0; !ended && attempt < 50; attempt += 1) {
        const target = next() < 0.5 ? a : b;
        read = await follow(target, runId, seen.at(-1)?.seq ?? 0, 1 + Math.floor(next() * 8));
        trace.push(
          `${target === a ? 'A' : 'B'}@${seen.at(-1)?.seq}:${read.status}:${read.events.map((e) => ('seq' in e ? e.seq : e.type)).join('.')}`,
        );
        seen.push(...logged(read.events));
        ended = read.events.at(-1)?.type === 'done' || read.status === 204;
      }
      expect(ended).toBe(true);
      const seqs = seen.map((event) => event.seq);
      // The trace names each read's instance, its Last-Event-ID and what it got, for a failure.
      expect(seqs, trace.join(' | ')).toEqual(seqs.map((_, index) => index + 1));
      expect(seen.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
    }
  }, 120_000);
});
