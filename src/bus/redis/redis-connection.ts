import type { Redis } from 'ioredis';
import { redactUrl } from '../../shared/index.ts';

export interface OpenRedisOptions {
  /** How long to wait for the first connection before giving up. Default 5,000 ms. */
  connectTimeoutMs?: number;
}

/**
 * A connection to `url`, checked with a PING so a wrong URL fails at start, not at first use. After
 * that it reconnects by itself; while it is down, commands fail at once (no offline queue and one
 * attempt per request) instead of piling up in memory behind a run that waits.
 */
export async function openRedis(url: string, options: OpenRedisOptions = {}): Promise<Redis> {
  const { Redis: RedisClient } = await loadIoredis();
  const redis = new RedisClient(url, {
    lazyConnect: true,
    connectTimeout: options.connectTimeoutMs ?? 5000,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  // Errors while reconnecting are reported per command; an unhandled 'error' would crash the process.
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    redis.disconnect();
    throw new Error(`Redis at ${redactUrl(url)} is unreachable: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return redis;
}

/** ioredis is an optional peer: loaded when the first connection opens, so only Redis users install it. */
async function loadIoredis(): Promise<{ Redis: typeof Redis }> {
  try {
    return await import('ioredis');
  } catch (error) {
    if (
      (error as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND' ||
      !String(error).includes("'ioredis'")
    )
      throw error;
    throw new Error(
      'the Redis event log needs the optional package ioredis: install it with `npm install ioredis`',
      {
        cause: error,
      },
    );
  }
}
