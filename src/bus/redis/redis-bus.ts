import type { Redis } from 'ioredis';
import { type OpenRedisOptions, openRedis } from './redis-connection.ts';
import { RedisControlChannel } from './redis-control-channel.ts';
import { RedisEventLog } from './redis-event-log.ts';

export interface RedisBusOptions extends OpenRedisOptions {
  /** Put every key and channel under this prefix, so deployments can share one Redis. Default `runstream:`. */
  keyPrefix?: string;
}

/** The runs' live logs (Redis Streams) and stop signals (pub/sub): what `createRunstream({ bus })` takes. */
export interface RedisBus {
  readonly eventLog: RedisEventLog;
  readonly control: RedisControlChannel;
  /** Closes the three connections this opened. */
  close(): Promise<void>;
}

/**
 * Share live run logs and stops between runstream instances through Redis, so any instance serves,
 * resumes, stops or confirms any run (with a shared store: `postgresStore` from `runstream/postgres`).
 * Opens three connections (commands, blocking reads, subscriptions), each checked with a PING: a
 * wrong URL fails here, not at the first run.
 */
export async function redisBus(url: string, options: RedisBusOptions = {}): Promise<RedisBus> {
  const keyPrefix = options.keyPrefix ?? 'runstream:';
  const connections: Redis[] = [];
  const connect = async () => {
    const redis = await openRedis(url, options);
    connections.push(redis);
    return redis;
  };
  try {
    const commands = await connect();
    const eventLog = new RedisEventLog({ redis: commands, blocking: await connect(), keyPrefix });
    const control = new RedisControlChannel({ redis: commands, subscriber: await connect(), keyPrefix });
    let closed = false;
    return {
      eventLog,
      control,
      async close() {
        if (closed) return;
        closed = true;
        await eventLog.close();
        await control.close();
        for (const redis of connections) redis.disconnect();
      },
    };
  } catch (error) {
    for (const redis of connections) redis.disconnect();
    throw error;
  }
}
