import type pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ControlChannel, type ControlSignal, MemoryControlChannel } from '../../bus/index.ts';
import { openRedis, RedisEventLog } from '../../bus/redis/index.ts';
import { redisForTests, TEST_REDIS_URL, testKeyPrefix } from '../../bus/test-support/index.ts';
import { ScriptedChatModel, textTurn } from '../../models/index.ts';
import { openPostgres, PostgresRunStore } from '../../store/postgres/index.ts';
import {
  createTestDatabase,
  postgresForTests,
  type TestDatabase,
} from '../../store/postgres/test-support/index.ts';
import { testAgent } from '../test-support/test-agent.ts';
import { RunManager } from './run-manager.ts';

/**
 * Two run managers on one PostgreSQL store and one Redis event log, in one process: the seams
 * between instances, with faults injected where a network would lose things.
 */
const hasPostgres = await postgresForTests();
const hasRedis = await redisForTests();
const LEASE_MS = 600;

/** A control channel whose signals never arrive (Redis pub/sub down): the store must carry the stop. */
class LostSignals implements ControlChannel {
  readonly published: ControlSignal[] = [];
  async publish(signal: ControlSignal): Promise<void> {
    this.published.push(signal);
    throw new Error('Connection is closed.');
  }
  async subscribe(): Promise<() => void> {
    return () => {};
  }
  async close(): Promise<void> {}
}

describe.skipIf(!hasPostgres || !hasRedis)('run managers sharing PostgreSQL and Redis', () => {
  let database: TestDatabase;
  const keys = testKeyPrefix();
  let pool: pg.Pool;
  let store: PostgresRunStore;
  const closers: (() => Promise<void> | void)[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('runstream_shared');
    pool = await openPostgres(database.url, { max: 6 });
    store = await PostgresRunStore.open(pool);
  });

  afterAll(async () => {
    await pool.end();
    await database.drop();
    const redis = await openRedis(TEST_REDIS_URL);
    await keys.clear(redis);
    redis.disconnect();
  });

  beforeEach(() => {
    closers.length = 0;
  });

  afterEach(async () => {
    for (const close of closers.reverse()) await close();
  });

  async function instance(
    name: string,
    model: ScriptedChatModel,
    control: ControlChannel,
  ): Promise<RunManager> {
    const redis = await openRedis(TEST_REDIS_URL);
    const eventLog = new RedisEventLog({
      redis,
      blocking: await openRedis(TEST_REDIS_URL),
      keyPrefix: keys.prefix,
      blockMs: 500,
    });
    const runs = new RunManager({
      agents: [testAgent({ model, tools: [], skills: [], instructions: '你是 NovaShop 客服。' })],
      store,
      eventLog,
      control,
      instanceId: name,
      leaseMs: LEASE_MS,
    });
    closers.push(async () => {
      await runs.close();
      await eventLog.close();
      redis.disconnect();
    });
    return runs;
  }

  async function conversation(): Promise<{ userId: string; conversationId: string }> {
    const user = await store.createUser('shopper');
    const created = await store.createConversation(user.id, '退货');
    return { userId: user.id, conversationId: created.id };
  }

  const longAnswer = () =>
    new ScriptedChatModel([textTurn('七天无理由退货需要商品完好、配件齐全。'.repeat(20), { chunkSize: 2 })], {
      delayMs: 20,
    });

  it('applies a stop whose signal was lost at the owner’s next lease renewal, from the store', async () => {
    const lost = new LostSignals();
    const owner = await instance('owner', longAnswer(), lost);
    const other = await instance('other', longAnswer(), lost);
    const { userId, conversationId } = await conversation();
    const log = await owner.startRun(userId, conversationId, '退货政策是什么？');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const run = await other.cancel(userId, log.runId, 'redis_down_stop');
    // The signal failed, yet the request was recorded and the owner stopped the run with its reason.
    expect(lost.published).toEqual([{ runId: log.runId, kind: 'stop' }]);
    expect(run).toMatchObject({ status: 'cancelled', cancelReason: 'redis_down_stop' });
    await owner.settled(log.runId);
    expect(log.state.status).toBe('cancelled');
  }, 30_000);

  it('stops a run at once when the signal does arrive', async () => {
    const control = new MemoryControlChannel();
    const owner = await instance('owner', longAnswer(), control);
    const other = await instance('other', longAnswer(), control);
    const { userId, conversationId } = await conversation();
    const log = await owner.startRun(userId, conversationId, '退货政策是什么？');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = Date.now();
    const run = await other.cancel(userId, log.runId, 'user_stop');
    expect(run.status).toBe('cancelled');
    // Well before a renewal would have seen it.
    expect(Date.now() - started).toBeLessThan(LEASE_MS);
  }, 30_000);

  it('takes over a run whose owner stopped renewing, as interrupted, and lets the conversation go on', async () => {
    const control = new MemoryControlChannel();
    const owner = await instance('owner', longAnswer(), control);
    const other = await instance('other', new ScriptedChatModel([textTurn('你好！')]), control);
    const { userId, conversationId } = await conversation();
    const log = await owner.startRun(userId, conversationId, '退货政策是什么？');
    await new Promise((resolve) => setTimeout(resolve, 100));
    // The owner hangs: its lease lapses (pushed into the past here), while its loop goes on.
    await store.updateRun(log.runId, { leaseOwner: 'owner', leaseExpiresAt: Date.now() - 1 });
    await store.transitionRun(log.runId, { leaseOwner: 'owner' }, { leaseOwner: 'owner-that-hung' });
    const taken = await other.recoverInterruptedRuns();
    expect(taken).toBe(1);
    const run = await other.getRun(userId, log.runId);
    expect(run).toMatchObject({ status: 'interrupted', cancelReason: 'instance_lost', leaseOwner: null });
    const replica = await other.logOf(userId, log.runId);
    expect(replica.state.status).toBe('interrupted');
    expect(replica.state.blocks.at(-1)).toMatchObject({ kind: 'error' });
    // The hung owner finds out at its next renewal and stops writing; the store keeps the takeover.
    await owner.settled(log.runId);
    expect(await store.getRun(log.runId)).toMatchObject({
      status: 'interrupted',
      cancelReason: 'instance_lost',
    });
    const next = await other.startRun(userId, conversationId, '你好');
    await other.settled(next.runId);
    expect(next.state.status).toBe('completed');
  }, 30_000);
});
