import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KeptFrames } from './kept-frames.ts';

const decoder = new TextDecoder();
const text = (bytes: Uint8Array | null | undefined) => (bytes == null ? bytes : decoder.decode(bytes));

describe('KeptFrames', () => {
  it('keeps text and bytes as UTF-8, missing frames as null, and knows each size', () => {
    const frames = new KeptFrames();
    frames.push(null);
    frames.push('订单已发货');
    frames.push(new TextEncoder().encode('b'));
    frames.push('');
    expect(frames.length).toBe(4);
    expect([0, 1, 2, 3].map((index) => text(frames.at(index)))).toEqual([null, '订单已发货', 'b', null]);
    expect([0, 1, 2, 3].map((index) => frames.at(index)?.length ?? 0)).toEqual([0, 15, 1, 0]);
    expect(frames.at(4)).toBeUndefined();
    expect(frames.at(-1)).toBeUndefined();
  });

  it('numbers a deferred frame now and keeps its bytes once filled, wherever the store stands then', () => {
    const frames = new KeptFrames();
    frames.push('<0>');
    frames.defer();
    frames.push('<2>');
    expect(frames.isDeferred(1)).toBe(true);
    expect(frames.at(1)).toBeNull();
    frames.fill(1, '<1>');
    frames.fill(1, 'again');
    frames.fill(2, 'not deferred');
    expect(frames.isDeferred(1)).toBe(false);
    expect([0, 1, 2].map((index) => text(frames.at(index)))).toEqual(['<0>', '<1>', '<2>']);
  });

  it('gives back any frames as their UTF-8, across slabs', () => {
    const frame = fc.oneof(
      fc.constant(null),
      fc.string({ unit: 'binary', maxLength: 40 }),
      // Big enough that a few of them fill a slab.
      fc.string({ unit: 'grapheme', minLength: 5_000, maxLength: 30_000 }),
    );
    fc.assert(
      fc.property(fc.array(frame, { maxLength: 30 }), (pushed) => {
        const frames = new KeptFrames();
        for (const one of pushed) frames.push(one);
        const encoder = new TextEncoder();
        // What the frames are as bytes: a lone surrogate becomes U+FFFD, as any UTF-8 encoder writes it.
        const expected = pushed.map((one) => (one === null ? '' : decoder.decode(encoder.encode(one))));
        for (let index = 0; index < pushed.length; index += 1)
          expect(text(frames.at(index)) ?? '').toBe(expected[index]);
      }),
      { numRuns: 200 },
    );
  });
});
