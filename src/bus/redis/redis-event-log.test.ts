import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventLogGap } from '../event-log.ts';
import {
  describeEventLogConformance,
  freshRunId,
  redisForTests,
  runEvents,
  TEST_REDIS_URL,
  testKeyPrefix,
} from '../test-support/index.ts';
import { openRedis } from './redis-connection.ts';
import { RedisEventLog } from './redis-event-log.ts';

const hasRedis = await redisForTests();
const keys = testKeyPrefix();

afterAll(async () => {
  if (!hasRedis) return;
  const redis = await openRedis(TEST_REDIS_URL);
  await keys.clear(redis);
  redis.disconnect();
});

// Two logs on their own connections stand for two instances sharing one Redis.
describeEventLogConformance(
  'RedisEventLog',
  async (options) => {
    const open = async () =>
      new RedisEventLog({
        redis: await openRedis(TEST_REDIS_URL),
        blocking: await openRedis(TEST_REDIS_URL),
        keyPrefix: keys.prefix,
        blockMs: 1000,
        ...options,
      });
    const log = await open();
    const peer = await open();
    return {
      log,
      peer,
      async close() {
        await log.close();
        await peer.close();
      },
    };
  },
  { skip: !hasRedis },
);

describe.skipIf(!hasRedis)('RedisEventLog on its own', () => {
  let redis: Redis;
  let log: RedisEventLog;
  beforeEach(async () => {
    redis = await openRedis(TEST_REDIS_URL);
    log = new RedisEventLog({
      redis,
      blocking: await openRedis(TEST_REDIS_URL),
      keyPrefix: keys.prefix,
      blockMs: 200,
    });
  });
  afterEach(async () => {
    await log.close();
    redis.disconnect();
  });

  it('follows many runs at once over its one blocking connection, each run in order', async () => {
    const runIds = Array.from({ length: 30 }, () => freshRunId());
    for (const runId of runIds) await log.append(runId, runEvents(runId, 1, 1));
    const followers = runIds.map(async (runId) => {
      const seen: number[] = [];
      for await (const event of log.follow(runId, 0)) seen.push(event.seq);
      return seen;
    });
    for (let seq = 2; seq <= 10; seq += 1)
      for (const runId of runIds)
        await log.append(runId, runEvents(runId, seq, seq, seq === 10 ? 'finished' : undefined));
    for (const seen of await Promise.all(followers)) expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('tells a follower about a gap when Redis loses the stream under it', async () => {
    const runId = freshRunId();
    await log.append(runId, runEvents(runId, 1, 3));
    const following = (async () => {
      for await (const _event of log.follow(runId, 0)) {
        // drain
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await redis.del(`${keys.prefix}run:${runId}:log`);
    await expect(following).rejects.toBeInstanceOf(EventLogGap);
  });
});
