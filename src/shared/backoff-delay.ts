/**
 * Exponential backoff with full jitter: a uniform delay in [0, min(cap, base · 2^(attempt-1))], added
 * on top of a floor. Full jitter spreads a crowd of clients that lost their connection at once (a
 * server restart) instead of having them return in waves. The floor is what the server asked for,
 * its SSE `retry:` or an HTTP `Retry-After`, and the jitter above it keeps the crowd spread even
 * then. The cap bounds the total: a server's hint is not a licence to wait for hours.
 *
 * With `capTotal: false` the cap bounds only the jitter, so the delay is up to floor + cap: for
 * callers that refuse a floor above the cap before they get here (the embedder).
 */
export function backoffDelay(input: {
  attempt: number;
  baseMs: number;
  capMs: number;
  random: () => number;
  floorMs?: number;
  /** Whether `capMs` bounds floor + jitter (default) or the jitter alone. */
  capTotal?: boolean;
}): number {
  const ceiling = Math.min(input.capMs, input.baseMs * 2 ** Math.max(0, input.attempt - 1));
  const delay = (input.floorMs ?? 0) + Math.floor(input.random() * ceiling);
  return input.capTotal === false ? delay : Math.min(input.capMs, delay);
}
