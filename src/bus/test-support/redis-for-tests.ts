import { Redis } from 'ioredis';

/** The Redis the tests use: `RUNSTREAM_TEST_REDIS_URL`, else the machine's (127.0.0.1:6379). */
export const TEST_REDIS_URL = process.env.RUNSTREAM_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * Whether the Redis tests can run here. A machine without Redis skips them with a warning; CI sets
 * `RUNSTREAM_REQUIRE_SERVICES=1`, where an unreachable server fails the run instead.
 */
export async function redisForTests(): Promise<boolean> {
  const probe = new Redis(TEST_REDIS_URL, {
    lazyConnect: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: 0,
  });
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    await probe.ping();
    return true;
  } catch {
    const message = `Redis is unreachable at ${TEST_REDIS_URL}`;
    if (process.env.RUNSTREAM_REQUIRE_SERVICES)
      throw new Error(`${message}, and RUNSTREAM_REQUIRE_SERVICES is set`);
    console.warn(`${message}: skipping the Redis tests (set RUNSTREAM_TEST_REDIS_URL to run them)`);
    return false;
  } finally {
    probe.disconnect();
  }
}

/** A key prefix of its own per test file, so parallel runs never collide; `clear` deletes its keys. */
export function testKeyPrefix(): { prefix: string; clear(redis: Redis): Promise<void> } {
  const prefix = `runstream-test:${process.pid}-${Math.random().toString(36).slice(2, 10)}:`;
  return {
    prefix,
    async clear(redis) {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
        if (keys.length > 0) await redis.del(...keys);
        cursor = next;
      } while (cursor !== '0');
    },
  };
}
