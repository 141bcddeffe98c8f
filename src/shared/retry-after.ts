export interface RetryAfterOptions {
  /**
   * Accept `Retry-After: 1.5` as 1 500 ms. HTTP's delta-seconds are whole numbers; some model
   * providers send fractions anyway. Default false: a fraction is then read as an HTTP date, as any
   * other text is.
   */
  fractionalSeconds?: boolean;
}

const WHOLE_SECONDS = /^\d+$/;
const DECIMAL = /^\d+(\.\d+)?$/;

/** Parse `Retry-After` (delta-seconds or an HTTP date) into milliseconds from `now`. */
export function parseRetryAfter(
  value: string | null | undefined,
  now: number = Date.now(),
  options: RetryAfterOptions = {},
): number | undefined {
  if (value === null || value === undefined) return undefined;
  const trimmed = value.trim();
  if ((options.fractionalSeconds ? DECIMAL : WHOLE_SECONDS).test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/**
 * The wait a response asks for: `retry-after-ms` (sent by OpenAI, fractions allowed), else
 * `Retry-After` in seconds or as an HTTP date, in milliseconds from `now`.
 */
export function retryAfterFromHeaders(
  headers: Headers,
  options: RetryAfterOptions & { now?: number } = {},
): number | undefined {
  const milliseconds = headers.get('retry-after-ms')?.trim();
  if (milliseconds !== undefined && DECIMAL.test(milliseconds)) return Number(milliseconds);
  return parseRetryAfter(headers.get('retry-after'), options.now ?? Date.now(), options);
}
