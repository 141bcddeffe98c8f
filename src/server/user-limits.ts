import type { RunStore } from '../store/index.ts';
import { HttpError } from './http-error.ts';

/** Requests per minute per user on the /v1 routes, by default: a busy person in a chat page makes a few. */
export const DEFAULT_REQUESTS_PER_MINUTE = 600;
/** Runs of one user running at once, by default: paused runs (waiting for a decision) do not count. */
export const DEFAULT_MAX_RUNNING_RUNS = 10;
/**
 * What a refused run start asks the client to wait: no one knows when a run will end, and a few
 * seconds is about how long an answer streams.
 */
export const RUN_LIMIT_RETRY_AFTER_SECONDS = 5;
/** A user's burst: ten seconds' worth of requests may come at once. */
const BURST_SECONDS = 10;
/** Every this many requests, the buckets that have refilled are dropped, so idle users cost nothing. */
const SWEEP_EVERY = 1024;

export interface UserLimitsOptions {
  /** Requests per minute per user; 0 turns the limit off. Default {@link DEFAULT_REQUESTS_PER_MINUTE}. */
  requestsPerMinute?: number;
  /** A user's runs running at once; 0 turns the limit off. Default {@link DEFAULT_MAX_RUNNING_RUNS}. */
  maxRunningRuns?: number;
  now?: () => number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/**
 * Per-user limits of one instance, answered with 429 and `Retry-After` (the client SDK waits that
 * long): a token bucket of requests, and a cap on runs running at once, counted in the store so that
 * instances sharing it count the same runs. Run starts of one user are taken one at a time here, so
 * on one instance a burst of messages cannot slip past the cap between the count and the start;
 * across instances the cap can be passed by as many starts as race at that moment.
 */
export class UserLimits {
  readonly #capacity: number;
  /** Tokens per millisecond. */
  readonly #rate: number;
  readonly #maxRunningRuns: number;
  readonly #now: () => number;
  readonly #buckets = new Map<string, Bucket>();
  readonly #runStarts = new Map<string, Promise<unknown>>();
  #requestsSinceSweep = 0;

  constructor(options: UserLimitsOptions = {}) {
    const perMinute = options.requestsPerMinute ?? DEFAULT_REQUESTS_PER_MINUTE;
    const maxRunning = options.maxRunningRuns ?? DEFAULT_MAX_RUNNING_RUNS;
    for (const [name, value] of [
      ['requestsPerMinute', perMinute],
      ['maxRunningRuns', maxRunning],
    ] as const) {
      if (!Number.isInteger(value) || value < 0)
        throw new RangeError(`${name} must be a whole number ≥ 0 (0 = no limit), got ${value}`);
    }
    this.#rate = perMinute / 60_000;
    this.#capacity = Math.max(1, Math.ceil((perMinute / 60) * BURST_SECONDS));
    this.#maxRunningRuns = maxRunning;
    this.#now = options.now ?? Date.now;
  }

  /** Counts one request of the user; throws a 429 `rate_limited` when the user has none left. */
  takeRequest(userId: string): void {
    if (this.#rate === 0) return;
    const now = this.#now();
    this.#sweep(now);
    const bucket = this.#buckets.get(userId) ?? { tokens: this.#capacity, updatedAt: now };
    bucket.tokens = Math.min(this.#capacity, bucket.tokens + (now - bucket.updatedAt) * this.#rate);
    bucket.updatedAt = now;
    this.#buckets.set(userId, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return;
    }
    // Less a hair: a token that is a rounding error short is not another millisecond away.
    const waitMs = Math.max(1, Math.ceil((1 - bucket.tokens) / this.#rate - 1e-6));
    throw new HttpError(
      429,
      'rate_limited',
      `too many requests: at most ${Math.round(this.#rate * 60_000)} per minute per user`,
      { retryAfterMs: waitMs },
      { 'retry-after': String(Math.max(1, Math.ceil(waitMs / 1000))) },
    );
  }

  /**
   * Starts a run of the user unless `countRunning` says the user is at the cap (a 429
   * `too_many_runs`). One user's starts go one at a time: the count and the start are not split by
   * another start of the same user on this instance.
   */
  async startRun<T>(
    userId: string,
    countRunning: () => Promise<number>,
    start: () => Promise<T>,
  ): Promise<T> {
    if (this.#maxRunningRuns === 0) return start();
    const previous = this.#runStarts.get(userId) ?? Promise.resolve();
    const attempt = previous.then(async () => {
      const running = await countRunning();
      if (running >= this.#maxRunningRuns)
        throw new HttpError(
          429,
          'too_many_runs',
          `${running} of your runs are already running (at most ${this.#maxRunningRuns} at once): wait for one to finish or stop one`,
          { running, limit: this.#maxRunningRuns },
          { 'retry-after': String(RUN_LIMIT_RETRY_AFTER_SECONDS) },
        );
      return start();
    });
    // The next start waits for this one, whatever its outcome.
    const settled = attempt.then(
      () => undefined,
      () => undefined,
    );
    this.#runStarts.set(userId, settled);
    try {
      return await attempt;
    } finally {
      if (this.#runStarts.get(userId) === settled) this.#runStarts.delete(userId);
    }
  }

  /** How many users' request buckets are held (for tests: idle users are dropped). */
  get trackedUsers(): number {
    return this.#buckets.size;
  }

  #sweep(now: number): void {
    this.#requestsSinceSweep += 1;
    if (this.#requestsSinceSweep < SWEEP_EVERY) return;
    this.#requestsSinceSweep = 0;
    for (const [userId, bucket] of this.#buckets) {
      if (bucket.tokens + (now - bucket.updatedAt) * this.#rate >= this.#capacity)
        this.#buckets.delete(userId);
    }
  }
}

/**
 * The limits from the environment: `RUNSTREAM_RATE_LIMIT` (requests per minute per user) and
 * `RUNSTREAM_MAX_RUNNING_RUNS` (runs per user running at once), 0 for no limit.
 */
export function userLimitsFromEnv(env: Readonly<Record<string, string | undefined>>): UserLimits {
  const read = (name: string, fallback: number): number => {
    const text = env[name]?.trim();
    if (!text) return fallback;
    const value = Number(text);
    if (!/^\d+$/.test(text) || !Number.isSafeInteger(value))
      throw new RangeError(`${name} must be a whole number ≥ 0 (0 = no limit), got "${text}"`);
    return value;
  };
  return new UserLimits({
    requestsPerMinute: read('RUNSTREAM_RATE_LIMIT', DEFAULT_REQUESTS_PER_MINUTE),
    maxRunningRuns: read('RUNSTREAM_MAX_RUNNING_RUNS', DEFAULT_MAX_RUNNING_RUNS),
  });
}

/** `start` under the user's cap on running runs when there are limits, else `start` alone. */
export function startRunWithin<T>(
  limits: UserLimits | undefined,
  store: Pick<RunStore, 'countRunningRuns'>,
  userId: string,
  start: () => Promise<T>,
): Promise<T> {
  return limits === undefined
    ? start()
    : limits.startRun(userId, () => store.countRunningRuns(userId), start);
}
