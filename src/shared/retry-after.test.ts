import { describe, expect, it } from 'vitest';
import { parseRetryAfter, retryAfterFromHeaders } from './retry-after.ts';

const NOW = Date.parse('2026-03-01T12:00:00Z');

describe('parseRetryAfter', () => {
  it('reads delta-seconds as milliseconds', () => {
    expect(parseRetryAfter('0', NOW)).toBe(0);
    expect(parseRetryAfter('3', NOW)).toBe(3000);
    expect(parseRetryAfter(' 120 ', NOW)).toBe(120_000);
  });

  it('reads an HTTP date as the time left until it, and a past date as no wait', () => {
    expect(parseRetryAfter('Sun, 01 Mar 2026 12:00:30 GMT', NOW)).toBe(30_000);
    expect(parseRetryAfter('Sun, 01 Mar 2026 11:00:00 GMT', NOW)).toBe(0);
  });

  it('has nothing to say about a missing header or text that is neither', () => {
    expect(parseRetryAfter(null, NOW)).toBeUndefined();
    expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
    expect(parseRetryAfter('', NOW)).toBeUndefined();
    expect(parseRetryAfter('soon', NOW)).toBeUndefined();
  });

  it('takes fractional seconds only when asked to (the model adapter does; HTTP does not)', () => {
    expect(parseRetryAfter('1.5', NOW, { fractionalSeconds: true })).toBe(1500);
    expect(parseRetryAfter('2', NOW, { fractionalSeconds: true })).toBe(2000);
    // Without the option a fraction is not delta-seconds; whatever the date parser makes of it, it is
    // not 1.5 s.
    expect(parseRetryAfter('1.5', NOW)).not.toBe(1500);
  });

  it('measures from the current time by default', () => {
    const inTenSeconds = new Date(Date.now() + 10_000).toUTCString();
    const wait = parseRetryAfter(inTenSeconds);
    expect(wait).toBeGreaterThan(8000);
    expect(wait).toBeLessThanOrEqual(10_000);
  });
});

describe('retryAfterFromHeaders', () => {
  it("prefers OpenAI's retry-after-ms, fractions included", () => {
    const headers = new Headers({ 'retry-after-ms': '300', 'retry-after': '5' });
    expect(retryAfterFromHeaders(headers)).toBe(300);
    expect(retryAfterFromHeaders(new Headers({ 'retry-after-ms': ' 12.5 ' }))).toBe(12.5);
  });

  it('falls back to Retry-After when retry-after-ms is missing or not a number', () => {
    expect(retryAfterFromHeaders(new Headers({ 'retry-after': '1' }))).toBe(1000);
    expect(retryAfterFromHeaders(new Headers({ 'retry-after-ms': 'soon', 'retry-after': '2' }))).toBe(2000);
    expect(
      retryAfterFromHeaders(new Headers({ 'retry-after': 'Sun, 01 Mar 2026 12:01:00 GMT' }), { now: NOW }),
    ).toBe(60_000);
  });

  it('passes fractionalSeconds on to Retry-After', () => {
    const headers = new Headers({ 'retry-after': '0.25' });
    expect(retryAfterFromHeaders(headers, { fractionalSeconds: true })).toBe(250);
    expect(retryAfterFromHeaders(headers, { now: NOW })).not.toBe(250);
  });

  it('is undefined without either header', () => {
    expect(retryAfterFromHeaders(new Headers())).toBeUndefined();
  });
});
