export interface BackoffOptions {
  /** Ceiling of the first jittered delay in milliseconds; it doubles per attempt. Default 500. */
  initialDelayMs?: number;
  /** Ceiling for any delay, including a server's `retry:` or `Retry-After`. Default 30 000. */
  maxDelayMs?: number;
  /** Consecutive failed attempts before giving up. Default 10. */
  maxAttempts?: number;
}

/**
 * Exponential backoff with full jitter: a uniform delay in [0, min(cap, base · 2^(attempt-1))], added
 * on top of a floor. Full jitter spreads a crowd of clients that lost their connection at once (a
 * server restart) instead of having them return in waves. The floor is what the server asked for,
 * its SSE `retry:` or an HTTP `Retry-After`, and the jitter above it keeps the crowd spread even
 * then. The cap bounds the total: a server's hint is not a licence to wait for hours.
 */
export function backoffDelay(input: {
  attempt: number;
  baseMs: number;
  capMs: number;
  random: () => number;
  floorMs?: number;
}): number {
  const ceiling = Math.min(input.capMs, input.baseMs * 2 ** Math.max(0, input.attempt - 1));
  return Math.min(input.capMs, (input.floorMs ?? 0) + Math.floor(input.random() * ceiling));
}

/** Resolves after `milliseconds`, or rejects with the signal's reason once it aborts. */
export function sleep(milliseconds: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    // Longer timers than 2^31 - 1 ms fire after 1 ms in Node and browsers.
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.min(Math.max(0, milliseconds), 2 ** 31 - 1),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
