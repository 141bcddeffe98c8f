import { describe, expect, it } from 'vitest';
import { chineseTermsOf } from './english-terms.ts';

describe('chineseTermsOf', () => {
  it.each([
    ['Can I return shoes after 7 days?', ['退货', '鞋', '7 天']],
    ['Is there free shipping?', ['包邮']],
    ['How long does shipping take?', ['发货', '送达']],
    ['Does the X2 run small?', ['偏小 大一码']],
    ["What's the weather like?", []],
  ])('%s → %j', (question, terms) => {
    expect(chineseTermsOf(question)).toEqual(terms);
  });
});
