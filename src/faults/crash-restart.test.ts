import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteOrderRepository } from '../../examples/novashop/orders/sqlite-order-repository.ts';
import {
  createRunstreamClient,
  type RunStream,
  type RunStreamUpdate,
  type RunstreamClient,
} from '../client/index.ts';
import type { Block } from '../protocol/index.ts';
import { RUN_MESSAGES } from '../runtime/agent/run-messages.ts';
import {
  type ServerProcess,
  type StandbyServerProcess,
  standbyServerProcess,
} from '../server/test-support/server-process.ts';
import { sleep } from '../shared/index.ts';
import { campaignSize, FULL_CAMPAIGN } from '../shared/test-support/campaign-size.ts';
import { openDatabase } from '../store/index.ts';

const INTERRUPTED_MESSAGE = RUN_MESSAGES['zh-CN'].interrupted;

/**
 * Crash campaign (issue #13 §2): `kill -9` of a real server process mid-run, 50 times (3 in
 * `npm test`, one at each moment; 50 under `npm run test:campaigns`, see campaign-size.ts), each time
 * restarted on the same SQLite file. The kills take turns at three moments: while the model streams
 * an answer, while a read tool runs, and while an approved `cancel_order` executes (on either side
 * of its write: the demo's tools answer `TOOL_DELAY_MS` late, half before their work and half
 * after). A bystander run in another conversation is under way at each kill too, wherever it is.
 * After every restart: every run the crash left running is `interrupted`, with the error block in
 * its persisted message, and no other run changed; each of those conversations takes a new message
 * whose run completes; cards not yet decided still wait; no order changed but the one whose
 * cancellation was approved, and that one at most once; no approved call ran twice, not even when
 * approved again.
 *
 * Restarts come from warm standbys (`standbyServerProcess`): the next process has loaded its
 * modules, but it opens the file only once the previous one is dead, so each restart is what
 * `startServer` does with what the crash left (~0.6 s when the standby is ready, against ~1.7 s for
 * a cold start here).
 */
const KILLS = campaignSize({ quick: 3, full: 50 });
const TOKEN = 'crash-restart-demo-token';
const USER = 'usr_demo';
/** Model pacing: an answer of 20 to 100 deltas streams for 0.2 to 1 s. */
const MODEL_DELAY_MS = 10;
/** Each demo tool call's latency, half before its work and half after. */
const TOOL_DELAY_MS = 400;
/** A kill lands at most this long after the tool's `running` update reached us: inside the tool. */
const TOOL_KILL_WINDOW_MS = 0.75 * TOOL_DELAY_MS;
const STEP_TIMEOUT_MS = 15_000;
/** Of the 16 or 17 kills aimed at each moment (in the runs measured, every one landed there). */
const MIN_HITS_PER_MOMENT = 14;
/** The polite refusal: the quickest run that completes (no tool), to show a conversation still answers. */
const THANKS = '谢谢';

const MOMENTS = ['model stream', 'read tool', 'approved write'] as const;
type Moment = (typeof MOMENTS)[number];
type Landing = Moment | 'elsewhere';

/**
 * Messages whose answer streams: the polite refusal (19 deltas), and answers after a read tool (28
 * and 97). A kill aims at a delta from the second to `lastDelta`: 100 ms or more of the answer is
 * still to come, and the block's start (persisted after the event that carries the first delta, a
 * millisecond later) is in the file.
 */
const ANSWERS = [
  { text: THANKS, lastDelta: 8 },
  { text: '88235 现在什么状态', lastDelta: 14 },
  { text: '我的订单到哪了', lastDelta: 60 },
] as const;
/**
 * Messages that call a read tool: `query_order` by number (two orders) and recent. Only the example's
 * own tools take `RUNSTREAM_DEMO_TOOL_DELAY_MS`; the built-in `search_knowledge` answers in a
 * millisecond, too fast to aim a kill inside it.
 */
const READS = ['88235 现在什么状态', '88229 现在什么状态', '我的订单到哪了'] as const;
const READ_TOOLS = new Set(['query_order']);
/** Under way at every kill, somewhere in its query and its 97-delta answer (~1.4 s in all). */
const BYSTANDER = '我的订单到哪了';

const kills = Array.from({ length: KILLS }, (_, index) => MOMENTS[index % MOMENTS.length] as Moment);
/** One order per approved-write kill, each with its card raised before the first kill. */
const CARD_ORDERS = kills
  .filter((moment) => moment === 'approved write')
  .map((_, index) => String(70001 + index));

const seed = Number(process.env.RUNSTREAM_FAULTS_SEED ?? Date.now() % 2 ** 31);
const random = mulberry32(seed);

const directory = mkdtempSync(join(tmpdir(), 'runstream-crash-'));
const databasePath = join(directory, 'runstream.db');
const env: Record<string, string> = {
  RUNSTREAM_DB: databasePath,
  RUNSTREAM_DEMO_TOKEN: TOKEN,
  RUNSTREAM_DEMO_DELAY_MS: String(MODEL_DELAY_MS),
  RUNSTREAM_DEMO_TOOL_DELAY_MS: String(TOOL_DELAY_MS),
  RUNSTREAM_RATE_LIMIT: '0',
  // The cards are raised all at once; the per-user limit has its own tests.
  RUNSTREAM_MAX_RUNNING_RUNS: '0',
};

let server: ServerProcess | undefined;
const standbys: StandbyServerProcess[] = [];
/** Warm standbys: two load side by side in the full campaign; one is enough for a few kills. */
const STANDBYS = campaignSize({ quick: 1, full: 2 });
let database: Database | undefined;

afterAll(async () => {
  await server?.crash();
  await Promise.all(standbys.map((next) => next.discard()));
  database?.close();
  rmSync(directory, { recursive: true, force: true });
});

interface Card {
  orderId: string;
  conversationId: string;
  runId: string;
  toolCallId: string;
}

interface RunRow {
  conversationId: string;
  status: string;
  cancelReason: string | null;
}

interface OrderRow {
  status: string;
  cancelledAt: number | null;
  refundCreatedAt: number | null;
}

/** What one kill aimed at, and what it hit. */
interface Kill {
  moment: Moment;
  what: string;
  conversationId: string;
  runId: string;
  card?: Card;
  landed?: Landing;
  /** The interrupted message's last blocks before its error block, as kind:status. */
  lastBlocks?: string;
  /** For an approved write: whether the order was cancelled before the process died. */
  wrote?: boolean;
}

describe('kill -9 mid-run, restart on the same SQLite file', () => {
  it(`${KILLS} kills while an answer streams, a read tool runs or an approved write executes: each run interrupted with its error block, conversations answer again, no write twice`, async () => {
    const began = performance.now();
    const restartMs: number[] = [];
    let interrupted = 0;
    server = await restart();
    database = openDatabase(databasePath);
    const db = database;
    seedCardOrders(db);
    const cards = await raiseCards(clientOf(server));
    let orders = ordersOf(db);
    const done: Kill[] = [];

    for (const [index, moment] of kills.entries()) {
      const context = `kill ${index + 1} of ${KILLS} (${moment}), seed ${seed}`;
      const client = clientOf(server);
      await within(startBystander(client), `${context}: the bystander`);
      const kill = await within(aim(client, moment, cards), `${context}: reaching the moment`);
      const crashing = server.crash();
      const killedAt = performance.now();
      await within(crashing, `${context}: the kill`);

      // The file as the crash left it: the run aimed at was still running.
      const left = runsOf(db);
      expect(left.get(kill.runId)?.status, `${context}: ${kill.what}`).toBe('running');
      interrupted += runsWith(left, 'running').length;

      server = await within(restart(index < KILLS - 1), `${context}: the restart`);
      restartMs.push(performance.now() - killedAt);
      await within(checkRecovery(clientOf(server), db, kill, left, orders, context), `${context}: recovery`);
      orders = ordersOf(db);
      done.push(kill);
    }
    await server.stop();
    expect(runsWith(runsOf(database), 'running')).toEqual([]);

    const landed = Object.fromEntries(
      [...MOMENTS, 'elsewhere'].map((where) => [where, done.filter((kill) => kill.landed === where).length]),
    );
    const writes = done.filter((kill) => kill.moment === 'approved write');
    const summary = {
      seed,
      kills: done.length,
      interruptedRuns: interrupted,
      landed,
      missed: done
        .filter((kill) => kill.landed === 'elsewhere')
        .map((kill) => `${kill.what} → ${kill.lastBlocks}`),
      approvedWrites: {
        cancelledBeforeTheKill: writes.filter((kill) => kill.wrote).length,
        notYet: writes.filter((kill) => !kill.wrote).length,
      },
      restartMs: { mean: Math.round(mean(restartMs)), max: Math.round(Math.max(...restartMs)) },
      seconds: Math.round((performance.now() - began) / 100) / 10,
    };
    if (process.env.RUNSTREAM_FAULTS_VERBOSE === '1') console.log('crash-restart', JSON.stringify(summary));

    expect(done).toHaveLength(KILLS);
    // Where the kills landed is the full campaign's claim: a few kills check every recovery above,
    // but one kill per moment may land late on a loaded machine.
    if (!FULL_CAMPAIGN) return;
    // Each moment was hit many times. A kill that lands late on a loaded machine (after its tool, say)
    // is counted where it landed, and every check above held for it all the same.
    for (const moment of MOMENTS)
      expect(landed[moment], JSON.stringify(summary)).toBeGreaterThanOrEqual(MIN_HITS_PER_MOMENT);
    // The writes were caught on both sides of their effect.
    expect(summary.approvedWrites.cancelledBeforeTheKill, JSON.stringify(summary)).toBeGreaterThan(0);
    expect(summary.approvedWrites.notYet, JSON.stringify(summary)).toBeGreaterThan(0);
  }, 240_000);
});

/**
 * Start the oldest standby, and spawn another at once: loading modules takes longer than one round
 * of the loop (~1.3 s of CPU), so two load side by side while the server serves. After the last kill
 * no other restart comes, and no other standby is spawned.
 */
async function restart(another = true): Promise<ServerProcess> {
  while (standbys.length < STANDBYS) standbys.push(standbyServerProcess(env));
  const starting = standbys.shift() as StandbyServerProcess;
  if (another) standbys.push(standbyServerProcess(env));
  return starting.start();
}

function clientOf(running: ServerProcess): RunstreamClient {
  // One connection attempt: a stream cut by the kill must not reconnect to the next server.
  return createRunstreamClient({ baseUrl: running.url, token: TOKEN, maxAttempts: 0 });
}

/** Paid, unshipped orders of the demo user, one per approved-write kill. */
function seedCardOrders(db: Database): void {
  const now = Date.now();
  const inserted = new SqliteOrderRepository(db).insertOrders(
    USER,
    CARD_ORDERS.map((orderId, index) => ({
      orderId,
      status: '已支付待发货',
      createdAt: new Date(now - (index + 1) * 60_000),
      items: [{ sku: 'NS-AW12-42-SL-GPS', quantity: 1 }],
      paymentMethod: '支付宝',
      paidAt: new Date(now - index * 60_000 - 30_000),
    })),
  );
  expect(inserted).toBe(CARD_ORDERS.length);
}

/** Ask to cancel each card order, all at once: each run pauses on its `cancel_order` card. */
async function raiseCards(client: RunstreamClient): Promise<Map<string, Card>> {
  const raised = await within(
    Promise.all(
      CARD_ORDERS.map(async (orderId): Promise<Card> => {
        const { id: conversationId } = await client.createConversation();
        const state = await client.sendMessage(conversationId, { text: `帮我取消订单 ${orderId}` }).result();
        expect(state.status).toBe('paused');
        const card = state.blocks.find((block) => block.kind === 'confirm');
        expect(card?.kind === 'confirm' && card.description).toContain(orderId);
        return {
          orderId,
          conversationId,
          runId: state.runId ?? '',
          toolCallId: state.pause?.pending[0]?.toolCallId ?? '',
        };
      }),
    ),
    'raising the cards',
  );
  return new Map(raised.map((card) => [card.orderId, card]));
}

/** Drive one run up to the moment, and a random while into it; returns with the server still alive. */
async function aim(client: RunstreamClient, moment: Moment, cards: Map<string, Card>): Promise<Kill> {
  if (moment === 'model stream') {
    const answer = pick(ANSWERS);
    const nth = 2 + Math.floor(random() * (answer.lastDelta - 1));
    const { id: conversationId } = await client.createConversation();
    let deltas = 0;
    const runId = await followUntil(
      client.sendMessage(conversationId, { text: answer.text }),
      ({ event, state }) => {
        if (event.type !== 'block.delta') return undefined;
        if (state.blocks.find((block) => block.blockId === event.blockId)?.kind !== 'answer')
          return undefined;
        deltas += 1;
        return deltas === nth ? 0 : undefined;
      },
    );
    return { moment, what: `${answer.text}: answer delta ${nth}`, conversationId, runId };
  }
  if (moment === 'read tool') {
    const text = pick(READS);
    const after = random() * TOOL_KILL_WINDOW_MS;
    const { id: conversationId } = await client.createConversation();
    const runId = await followUntil(client.sendMessage(conversationId, { text }), ({ event, state }) => {
      if (event.type !== 'block.updated' || event.kind !== 'tool' || event.status !== 'running')
        return undefined;
      const block = state.blocks.find((candidate) => candidate.blockId === event.blockId);
      return block?.kind === 'tool' && READ_TOOLS.has(block.name) ? after : undefined;
    });
    return { moment, what: `${text}: ${Math.round(after)} ms into the tool`, conversationId, runId };
  }
  const card = cards.get(CARD_ORDERS.find((orderId) => cards.has(orderId)) ?? '');
  if (card === undefined) throw new Error('no card left to approve');
  cards.delete(card.orderId);
  const after = random() * TOOL_KILL_WINDOW_MS;
  await followUntil(client.decide(card.runId, card.toolCallId, 'approve'), ({ event }) =>
    event.type === 'block.updated' &&
    event.kind === 'tool' &&
    event.toolCallId === card.toolCallId &&
    event.status === 'running'
      ? after
      : undefined,
  );
  return {
    moment,
    what: `approve ${card.orderId}: ${Math.round(after)} ms into cancel_order`,
    conversationId: card.conversationId,
    runId: card.runId,
    card,
  };
}

/** Start a run in a new conversation and leave it going without a reader. */
async function startBystander(client: RunstreamClient): Promise<void> {
  const { id } = await client.createConversation();
  for await (const _started of client.sendMessage(id, { text: BYSTANDER })) break;
}

/**
 * Read the stream until `moment` names a delay, stop reading (the run goes on without a reader),
 * wait that long, and return the run id.
 */
async function followUntil(
  stream: RunStream,
  moment: (update: RunStreamUpdate) => number | undefined,
): Promise<string> {
  let delay: number | undefined;
  for await (const update of stream) {
    delay = moment(update);
    if (delay !== undefined) break;
  }
  if (delay === undefined) throw new Error(`the run ended (${stream.state.status}) before the moment came`);
  if (delay > 0) await sleep(delay);
  return stream.runId ?? '';
}

async function checkRecovery(
  client: RunstreamClient,
  db: Database,
  kill: Kill,
  left: Map<string, RunRow>,
  ordersBefore: Map<string, OrderRow>,
  context: string,
): Promise<void> {
  const at = `${context}: ${kill.what}`;
  // Every run the crash left running is interrupted, by the restart; no other run changed.
  const now = runsOf(db);
  expect(runsWith(now, 'running'), at).toEqual([]);
  expect([...now.keys()].sort(), at).toEqual([...left.keys()].sort());
  for (const [runId, before] of left) {
    const after = now.get(runId);
    if (before.status === 'running')
      expect(after, `${at}: ${runId}`).toEqual({
        ...before,
        status: 'interrupted',
        cancelReason: 'server_restart',
      });
    else expect(after, `${at}: ${runId}`).toEqual(before);
  }
  const crashed = runsWith(left, 'running');
  for (const runId of crashed) {
    const conversationId = left.get(runId)?.conversationId ?? '';
    expect(await client.getRun(runId), `${at}: ${runId}`).toMatchObject({
      status: 'interrupted',
      cancelReason: 'server_restart',
    });
    // Its persisted message says so: every block closed, the error block last.
    const blocks = await interruptedBlocks(client, conversationId, runId, `${at}: ${runId}`);
    if (runId !== kill.runId) continue;
    kill.landed = landingOf(blocks, kill.card === undefined ? undefined : toolCallOf(db, kill.card));
    kill.lastBlocks = blocks
      .slice(-4, -1)
      .map((block) => `${block.kind === 'tool' ? block.name : block.kind}:${block.status}`)
      .join(' ');
  }

  // Orders: only the approved one may have changed, and only from unshipped to cancelled.
  const orders = ordersOf(db);
  for (const [orderId, before] of ordersBefore) {
    const after = orders.get(orderId);
    if (orderId !== kill.card?.orderId || before.status === '已取消')
      expect(after, `${at}: order ${orderId}`).toEqual(before);
    else expect(after?.status, `${at}: order ${orderId}`).toMatch(/^(已支付待发货|已取消)$/);
  }
  if (kill.card !== undefined) {
    const { card } = kill;
    kill.wrote = orders.get(card.orderId)?.status === '已取消';
    // The approval claimed the single execution before the tool ran; approving again runs nothing.
    expect(toolCallOf(db, card), at).toEqual({ decision: 'approve', executed: 1 });
    await expect(client.decide(card.runId, card.toolCallId, 'approve').result(), at).rejects.toMatchObject({
      status: 409,
      code: 'decision_conflict',
    });
  }

  // Each of those conversations takes a new message, and its run completes.
  await Promise.all(
    crashed.map(async (runId) => {
      const conversationId = left.get(runId)?.conversationId ?? '';
      const next = await client.sendMessage(conversationId, { text: THANKS }).result();
      expect(next.status, `${at}: after ${runId}`).toBe('completed');
      expect((await client.getRun(next.runId ?? '')).status, `${at}: after ${runId}`).toBe('completed');
    }),
  );

  // Nothing of that wrote anything, and no write ran twice.
  expect(ordersOf(db), at).toEqual(orders);
  expect(doubleExecutions(db), at).toEqual([]);
}

/** The blocks of an interrupted run's persisted message, checked: all closed, the error block last. */
async function interruptedBlocks(
  client: RunstreamClient,
  conversationId: string,
  runId: string,
  at: string,
): Promise<Block[]> {
  const view = await client.getConversation(conversationId);
  const stored = view.messages.find((message) => message.role === 'assistant' && message.runId === runId);
  const message = stored?.role === 'assistant' ? stored.message : undefined;
  expect(message?.status, at).toBe('interrupted');
  const blocks = message?.blocks ?? [];
  expect(
    blocks.filter((block) => block.endedAt === null || isOpen(block)),
    at,
  ).toEqual([]);
  expect(blocks.at(-1), at).toMatchObject({ kind: 'error', status: 'done', text: INTERRUPTED_MESSAGE });
  return blocks;
}

/**
 * Where the kill landed, read from the interrupted message (the last block before the error block)
 * and, for the approved write, from the store: its execution was claimed, and its tool block had not
 * ended. (Its card may read `expired` when the kill came within a millisecond of the approval, before
 * the message with the approval was written; the store had the decision and the claim by then.)
 */
function landingOf(blocks: readonly Block[], write?: { executed: number }): Landing {
  const last = blocks.at(-2);
  if (write !== undefined) {
    const tool = blocks.find((block) => block.kind === 'tool' && block.name === 'cancel_order');
    const confirm = blocks.findIndex((block) => block.kind === 'confirm');
    return write.executed === 1 && tool?.status === 'interrupted' && confirm === blocks.length - 2
      ? 'approved write'
      : 'elsewhere';
  }
  if (last?.kind === 'answer' && last.status === 'interrupted') return 'model stream';
  if (last?.kind === 'tool' && last.status === 'interrupted' && READ_TOOLS.has(last.name)) return 'read tool';
  return 'elsewhere';
}

function isOpen(block: Block): boolean {
  if (block.kind === 'tool') return ['pending', 'running', 'awaiting_confirmation'].includes(block.status);
  if (block.kind === 'confirm') return block.status === 'pending';
  return block.status === 'streaming';
}

function runsOf(db: Database): Map<string, RunRow> {
  const rows = db.prepare('SELECT id, conversation_id, status, cancel_reason FROM runs').all() as {
    id: string;
    conversation_id: string;
    status: string;
    cancel_reason: string | null;
  }[];
  return new Map(
    rows.map((row) => [
      row.id,
      { conversationId: row.conversation_id, status: row.status, cancelReason: row.cancel_reason },
    ]),
  );
}

function runsWith(runs: Map<string, RunRow>, status: string): string[] {
  return [...runs].filter(([, run]) => run.status === status).map(([runId]) => runId);
}

function ordersOf(db: Database): Map<string, OrderRow> {
  const rows = db
    .prepare(
      'SELECT order_id, status, cancelled_at, refund_created_at FROM novashop_orders WHERE user_id = ? ORDER BY order_id',
    )
    .all(USER) as {
    order_id: string;
    status: string;
    cancelled_at: number | null;
    refund_created_at: number | null;
  }[];
  return new Map(
    rows.map((row) => [
      row.order_id,
      { status: row.status, cancelledAt: row.cancelled_at, refundCreatedAt: row.refund_created_at },
    ]),
  );
}

function toolCallOf(
  db: Database,
  card: Card,
): { decision: string | undefined; executed: number } | undefined {
  const row = db
    .prepare('SELECT decision, executed FROM tool_calls WHERE run_id = ? AND tool_call_id = ?')
    .get(card.runId, card.toolCallId) as { decision: string | null; executed: number } | undefined;
  if (row === undefined) return undefined;
  const decision =
    row.decision === null ? undefined : (JSON.parse(row.decision) as { decision: string }).decision;
  return { decision, executed: row.executed };
}

/** Tool calls, and orders, with more than one completed `cancel_order` in the audit log. */
function doubleExecutions(db: Database): string[] {
  const calls = db
    .prepare(
      `SELECT tool_call_id AS id FROM tool_audit WHERE name = 'cancel_order' AND outcome = 'done'
       GROUP BY run_id, tool_call_id HAVING COUNT(*) > 1`,
    )
    .all() as { id: string }[];
  const orders = db
    .prepare(
      `SELECT json_extract(args, '$.orderId') AS id FROM tool_audit WHERE name = 'cancel_order' AND outcome = 'done'
       GROUP BY json_extract(args, '$.orderId') HAVING COUNT(*) > 1`,
    )
    .all() as { id: string }[];
  return [...calls.map((call) => `call ${call.id}`), ...orders.map((order) => `order ${order.id}`)];
}

/** `promise`, or an error naming `what` after STEP_TIMEOUT_MS: no step of the loop waits forever. */
async function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(
          () => reject(new Error(`${what}: no answer in ${STEP_TIMEOUT_MS} ms`)),
          STEP_TIMEOUT_MS,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function pick<T>(items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

function mean(values: readonly number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
}

/** A small seeded generator, so a failing campaign can be replayed with RUNSTREAM_FAULTS_SEED. */
function mulberry32(state: number): () => number {
  let s = state >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
