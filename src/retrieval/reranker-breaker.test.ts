import { describe, expect, it } from 'vitest';
import { RerankerBreaker } from './reranker-breaker.ts';

describe('RerankerBreaker', () => {
  it('lets every search through until a failure, then none for the pause', () => {
    let now = 0;
    const breaker = new RerankerBreaker(30_000, () => now);
    expect([breaker.acquire(), breaker.acquire()]).toEqual([true, true]);
    breaker.succeeded();
    expect(breaker.failed()).toBe(true);
    // The other search in flight failed too: no second notice, and the pause is not stretched.
    now = 1_000;
    expect(breaker.failed()).toBe(false);
    now = 29_999;
    expect(breaker.acquire()).toBe(false);
    now = 30_000;
    expect(breaker.acquire()).toBe(true);
  });

  it('after the pause, lets one trial through at a time, and everyone after it succeeds', () => {
    let now = 0;
    const breaker = new RerankerBreaker(30_000, () => now);
    breaker.failed();
    now = 30_000;
    expect([breaker.acquire(), breaker.acquire(), breaker.acquire()]).toEqual([true, false, false]);
    breaker.succeeded();
    expect([breaker.acquire(), breaker.acquire()]).toEqual([true, true]);
  });

  it('pauses again when the trial fails, and frees the trial slot when a search is stopped', () => {
    let now = 0;
    const breaker = new RerankerBreaker(30_000, () => now);
    breaker.failed();
    now = 30_000;
    expect(breaker.acquire()).toBe(true);
    expect(breaker.failed()).toBe(true);
    now = 59_999;
    expect(breaker.acquire()).toBe(false);
    now = 60_000;
    expect(breaker.acquire()).toBe(true);
    breaker.abandoned();
    expect(breaker.acquire()).toBe(true);
  });
});
