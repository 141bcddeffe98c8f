import type { Database } from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunEventDecoderStream, type RunEvent } from '../protocol/index.ts';
import { startTestServer, TEST_TOKEN, type TestServer } from '../server/test-support/start-test-server.ts';
import { campaignSize } from '../shared/test-support/campaign-size.ts';
import { openDatabase } from '../store/index.ts';

/**
 * Concurrency campaign (issue #13 §2): rounds of 100 concurrent decisions on one confirmation card,
 * all approvals or approvals and rejections mixed, and rounds of 20 concurrent messages to one
 * conversation, on one server over real HTTP and its real SQLite file. A card is decided once and
 * its write executes at most once; a conversation gets one run; every loser hears 409 and why.
 * `npm test` plays one round of each kind of decision round (four) and three of messages; the
 * campaign (`npm run test:campaigns`, campaign-size.ts) plays 8 and 10.
 */
const SEED = '我买的那块表还没发货的话，帮我取消吧，不想要了。';
const ORDER = '88235';
const DECISION_ROUNDS = campaignSize({ quick: 4, full: 8 });
const DECISIONS_PER_ROUND = 100;
const MESSAGE_ROUNDS = campaignSize({ quick: 3, full: 10 });
const MESSAGES_PER_ROUND = 20;

let testServer: TestServer;
let database: Database;

async function api(path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${testServer.server.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json' },
  });
}

async function events(response: Response): Promise<RunEvent[]> {
  const read: RunEvent[] = [];
  if (response.body === null) return read;
  const reader = response.body.pipeThrough(createRunEventDecoderStream('sse')).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return read;
    read.push(value);
  }
}

async function newConversation(): Promise<string> {
  return ((await (await api('/v1/conversations', { method: 'POST', body: '{}' })).json()) as { id: string })
    .id;
}

/** Order 88235 back to paid and unshipped, so each round raises a fresh card for it. */
function resetOrder(): void {
  database
    .prepare(
      `UPDATE novashop_orders SET status = '已支付待发货', cancelled_at = NULL, cancel_reason = NULL,
         refund_status = NULL, refund_cents = NULL, refund_to = NULL, refund_created_at = NULL
       WHERE order_id = ?`,
    )
    .run(ORDER);
}

function executions(runId: string): number {
  return (
    database
      .prepare(
        "SELECT COUNT(*) AS n FROM tool_audit WHERE run_id = ? AND name = 'cancel_order' AND outcome = 'done'",
      )
      .get(runId) as { n: number }
  ).n;
}

async function waitForRun(runId: string, wanted: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const run = (await (await api(`/v1/runs/${runId}`)).json()) as { status: string };
    if (run.status === wanted) return;
    if (Date.now() > deadline) throw new Error(`run ${runId} is ${run.status}, not ${wanted}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  testServer = await startTestServer({ env: { RUNSTREAM_RATE_LIMIT: '0', RUNSTREAM_MAX_RUNNING_RUNS: '0' } });
  database = openDatabase(testServer.databasePath);
});

afterAll(async () => {
  database?.close();
  await testServer?.close();
});

describe('concurrent decisions and messages', () => {
  it(`decides a card once in ${DECISION_ROUNDS} rounds of ${DECISIONS_PER_ROUND} racing decisions: one 200, the rest 409 with the first decision, the write at most once`, async () => {
    const tally = { won: 0, conflicts: 0, executed: 0, approvedRounds: 0, rejectedRounds: 0 };
    for (let round = 0; round < DECISION_ROUNDS; round += 1) {
      resetOrder();
      const conversationId = await newConversation();
      const response = await api(`/v1/conversations/${conversationId}/messages`, {
        method: 'POST',
        body: JSON.stringify({ text: SEED }),
      });
      const runId = response.headers.get('x-runstream-run-id') ?? '';
      const raised = await events(response);
      const paused = raised.find((event) => event.type === 'run.paused');
      if (paused?.type !== 'run.paused') throw new Error('the seed message raised no card');
      const toolCallId = paused.pending[0]?.toolCallId ?? '';
      // Rounds 0 and 1 of every 4: all approve. Round 2: every other one rejects, approving first.
      // Round 3: every other one approves, rejecting first. Which decision wins is the race's call.
      const decisions = Array.from({ length: DECISIONS_PER_ROUND }, (_, index) => {
        const phase = round % 4;
        if (phase < 2) return 'approve';
        return (index % 2 === 0) === (phase === 2) ? 'approve' : 'reject';
      });
      const outcomes = await Promise.all(
        decisions.map(async (decision) => {
          const response = await api(`/v1/runs/${runId}/confirmations/${toolCallId}`, {
            method: 'POST',
            body: JSON.stringify({ decision }),
          });
          if (response.status === 200) {
            await events(response);
            return { status: 200, decision, first: decision };
          }
          // The 409 names the decision that stood: `{decision, decidedAt, …}`.
          const body = (await response.json()) as {
            error: { code: string; decision?: { decision?: string } };
          };
          return {
            status: response.status,
            decision,
            code: body.error.code,
            first: body.error.decision?.decision,
          };
        }),
      );
      const winners = outcomes.filter((outcome) => outcome.status === 200);
      expect(winners).toHaveLength(1);
      const first = winners[0]?.decision;
      const losers = outcomes.filter((outcome) => outcome.status !== 200);
      for (const loser of losers)
        expect(loser).toMatchObject({ status: 409, code: 'decision_conflict', first });
      await waitForRun(runId, 'completed');
      const executed = executions(runId);
      expect(executed).toBe(first === 'approve' ? 1 : 0);
      const order = database.prepare('SELECT status FROM novashop_orders WHERE order_id = ?').get(ORDER) as {
        status: string;
      };
      expect(order.status).toBe(first === 'approve' ? '已取消' : '已支付待发货');
      tally.won += winners.length;
      tally.conflicts += losers.length;
      tally.executed += executed;
      if (first === 'approve') tally.approvedRounds += 1;
      else tally.rejectedRounds += 1;
    }
    expect(tally.won).toBe(DECISION_ROUNDS);
    expect(tally.conflicts).toBe(DECISION_ROUNDS * (DECISIONS_PER_ROUND - 1));
    expect(tally.executed).toBe(tally.approvedRounds);
    if (process.env.RUNSTREAM_FAULTS_VERBOSE === '1') console.log('decisions', tally);
  }, 120_000);

  it(`starts one run in ${MESSAGE_ROUNDS} rounds of ${MESSAGES_PER_ROUND} racing messages to one conversation; the rest are 409`, async () => {
    const tally = { runs: 0, refused: 0 };
    for (let round = 0; round < MESSAGE_ROUNDS; round += 1) {
      const conversationId = await newConversation();
      const outcomes = await Promise.all(
        Array.from({ length: MESSAGES_PER_ROUND }, async (_, index) => {
          const response = await api(`/v1/conversations/${conversationId}/messages`, {
            method: 'POST',
            body: JSON.stringify({ text: `退货政策是怎样的？（${index}）` }),
          });
          if (response.status === 200) {
            const read = await events(response);
            return { status: 200, finished: read.at(-1)?.type };
          }
          return {
            status: response.status,
            code: ((await response.json()) as { error: { code: string } }).error.code,
          };
        }),
      );
      const started = outcomes.filter((outcome) => outcome.status === 200);
      expect(started).toHaveLength(1);
      for (const refused of outcomes.filter((outcome) => outcome.status !== 200))
        expect(refused).toEqual({ status: 409, code: 'run_in_progress' });
      // One run and one user message stored: the refused ones left nothing behind.
      const conversation = (await (await api(`/v1/conversations/${conversationId}`)).json()) as {
        messages: { role: string; status: string }[];
      };
      expect(conversation.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
      expect(
        (
          database
            .prepare('SELECT COUNT(*) AS n FROM runs WHERE conversation_id = ?')
            .get(conversationId) as { n: number }
        ).n,
      ).toBe(1);
      tally.runs += started.length;
      tally.refused += outcomes.length - started.length;
    }
    expect(tally).toEqual({ runs: MESSAGE_ROUNDS, refused: MESSAGE_ROUNDS * (MESSAGES_PER_ROUND - 1) });
    if (process.env.RUNSTREAM_FAULTS_VERBOSE === '1') console.log('messages', tally);
  }, 120_000);
});
