import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { turnProblems } from '../../../src/models/test-support/turn-problems.ts';
import { cutArguments, cutDeltas, planToParts } from './stream-parts.ts';

describe('cutDeltas', () => {
  it('cuts text into pieces of 2 to 6 characters that join back to it', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 2, maxLength: 200 }), (text) => {
        const pieces = cutDeltas(text);
        expect(pieces.join('')).toBe(text);
        for (const piece of pieces) {
          expect(Array.from(piece).length).toBeGreaterThanOrEqual(2);
          expect(Array.from(piece).length).toBeLessThanOrEqual(6);
        }
      }),
    );
  });

  it('never splits a surrogate pair', () => {
    const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
    for (const piece of cutDeltas('好的👍👍👍收到')) expect(piece).not.toMatch(loneSurrogate);
  });
});

describe('cutArguments', () => {
  it('splits argument JSON into two or three fragments', () => {
    expect(cutArguments('{"limit":10}')).toEqual(['{"li', 'mit"', ':10}']);
    expect(cutArguments('{}')).toEqual(['{', '}']);
  });
});

describe('planToParts', () => {
  it('streams reasoning, text, then tool calls, then finish', () => {
    let next = 0;
    const parts = planToParts(
      {
        reasoning: '先查一下。',
        text: '我查一下订单。',
        calls: [
          { name: 'query_order', args: { limit: 10 } },
          { name: 'search_knowledge', args: { query: '退货' } },
        ],
      },
      () => `call_${++next}`,
    );
    expect(turnProblems(parts)).toEqual([]);
    expect(parts.filter((part) => part.type === 'tool-call-end')).toEqual([
      { type: 'tool-call-end', index: 0, id: 'call_1', name: 'query_order', arguments: '{"limit":10}' },
      {
        type: 'tool-call-end',
        index: 1,
        id: 'call_2',
        name: 'search_knowledge',
        arguments: '{"query":"退货"}',
      },
    ]);
    expect(parts.at(-1)).toEqual({ type: 'finish', reason: 'tool_calls' });
    expect(planToParts({ text: '好的' }, () => 'x').at(-1)).toEqual({ type: 'finish', reason: 'stop' });
  });
});
