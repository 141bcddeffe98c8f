import type { Redis } from 'ioredis';
import { type ControlChannel, type ControlSignal, isControlSignal } from '../control-channel.ts';

export interface RedisControlChannelOptions {
  /** The connection that publishes. */
  redis: Redis;
  /** A connection in subscriber mode, used by nothing else. The channel closes it. */
  subscriber: Redis;
  /** Prefix of the channel name. Default `runstream:`. */
  keyPrefix?: string;
}

/**
 * Control signals over Redis pub/sub, one channel for every run: signals are rare (a stop), so
 * every instance hears all of them and keeps those of the runs it drives. Pub/sub delivers to whoever
 * listens at that moment and keeps nothing: the store holds the request itself.
 */
export class RedisControlChannel implements ControlChannel {
  readonly #redis: Redis;
  readonly #subscriber: Redis;
  readonly #channel: string;
  readonly #listeners = new Set<(signal: ControlSignal) => void>();
  #subscribed: Promise<unknown> | undefined;

  constructor(options: RedisControlChannelOptions) {
    this.#redis = options.redis;
    this.#subscriber = options.subscriber;
    this.#channel = `${options.keyPrefix ?? 'runstream:'}control`;
    this.#subscriber.on('message', (channel: string, message: string) => {
      if (channel !== this.#channel) return;
      let signal: unknown;
      try {
        signal = JSON.parse(message);
      } catch {
        return;
      }
      if (!isControlSignal(signal)) return;
      for (const listener of this.#listeners) listener({ runId: signal.runId, kind: signal.kind });
    });
  }

  async publish(signal: ControlSignal): Promise<void> {
    await this.#redis.publish(this.#channel, JSON.stringify({ runId: signal.runId, kind: signal.kind }));
  }

  async subscribe(listener: (signal: ControlSignal) => void): Promise<() => void> {
    this.#listeners.add(listener);
    // ioredis re-subscribes by itself after a reconnect.
    this.#subscribed ??= this.#subscriber.subscribe(this.#channel);
    await this.#subscribed;
    return () => this.#listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.#listeners.clear();
    this.#subscriber.disconnect();
  }
}
