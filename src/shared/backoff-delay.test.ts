import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffDelay } from './backoff-delay.ts';

const base = { baseMs: 500, capMs: 30_000 };

describe('backoffDelay', () => {
  it('draws uniformly below a ceiling that doubles per attempt', () => {
    expect(backoffDelay({ ...base, attempt: 1, random: () => 0.5 })).toBe(250);
    expect(backoffDelay({ ...base, attempt: 2, random: () => 0.5 })).toBe(500);
    expect(backoffDelay({ ...base, attempt: 3, random: () => 0.5 })).toBe(1000);
    expect(backoffDelay({ ...base, attempt: 1, random: () => 0 })).toBe(0);
    // An attempt below 1 counts as the first.
    expect(backoffDelay({ ...base, attempt: 0, random: () => 0.5 })).toBe(250);
  });

  it('caps the ceiling at capMs', () => {
    expect(backoffDelay({ ...base, attempt: 20, random: () => 0.5 })).toBe(15_000);
  });

  it("adds the jitter on top of a floor (the server's retry: or Retry-After)", () => {
    expect(backoffDelay({ ...base, attempt: 1, random: () => 0, floorMs: 3000 })).toBe(3000);
    expect(backoffDelay({ ...base, attempt: 1, random: () => 0.5, floorMs: 3000 })).toBe(3250);
  });

  it('never exceeds capMs in total, however large the floor', () => {
    expect(backoffDelay({ ...base, attempt: 1, random: () => 0, floorMs: 3_600_000 })).toBe(30_000);
    expect(backoffDelay({ ...base, attempt: 10, random: () => 0.99, floorMs: 29_000 })).toBe(30_000);
  });

  it('with capTotal: false caps only the jitter, leaving the whole of it above the floor', () => {
    expect(backoffDelay({ ...base, attempt: 10, random: () => 0.5, floorMs: 29_000, capTotal: false })).toBe(
      44_000,
    );
    expect(backoffDelay({ ...base, attempt: 1, random: () => 0.5, floorMs: 3000, capTotal: false })).toBe(
      3250,
    );
  });

  it('stays within [floor, cap] (or [floor, floor + cap] without capTotal)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 0, max: 60_000 }),
        fc.integer({ min: 0, max: 60_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.boolean(),
        (attempt, baseMs, capMs, floorMs, random, capTotal) => {
          const delay = backoffDelay({ attempt, baseMs, capMs, floorMs, random: () => random, capTotal });
          expect(Number.isInteger(delay)).toBe(true);
          if (capTotal) {
            expect(delay).toBeLessThanOrEqual(capMs);
            expect(delay).toBeGreaterThanOrEqual(Math.min(capMs, floorMs));
          } else {
            expect(delay).toBeGreaterThanOrEqual(floorMs);
            expect(delay).toBeLessThanOrEqual(floorMs + capMs);
          }
        },
      ),
    );
  });
});
