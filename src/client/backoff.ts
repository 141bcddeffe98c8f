/**
 * Backoff between reconnect attempts. `backoffDelay` (full jitter above a floor, capped) and `sleep`
 * live in `src/shared/`, where the model and embedding adapters use them too; they stay part of the
 * client's public API through this re-export.
 */
export { backoffDelay, sleep } from '../shared/index.ts';

export interface BackoffOptions {
  /** Ceiling of the first jittered delay in milliseconds; it doubles per attempt. Default 500. */
  initialDelayMs?: number;
  /** Ceiling for any delay, including a server's `retry:` or `Retry-After`. Default 30 000. */
  maxDelayMs?: number;
  /** Consecutive failed attempts before giving up. Default 10. */
  maxAttempts?: number;
}
