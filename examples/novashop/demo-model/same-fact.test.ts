import { describe, expect, it } from 'vitest';
import { isSameFact } from './same-fact.ts';

describe('isSameFact', () => {
  it.each([
    // The policy and the FAQ on free shipping: the report's 99 元包邮 said twice.
    ['普通地区订单实付满 99 元免运费。', '普通地区实付满 99 元就包邮，不满 99 元收 8 元运费。'],
    // The same clause quoted by two passages, in other spacing and punctuation.
    ['NovaTrail X2 签收后 7 个自然日内可申请退货；', 'NovaTrail X2 签收后 7 个自然日内可申请退货。'],
    // The same clause inside a longer restatement.
    [
      'NovaTrail X2 签收后 7 个自然日内可申请退货。',
      'NovaTrail X2 退货政策：签收后 7 个自然日内可申请退货；',
    ],
    ['七天内可以无理由退货。', '7 天内可以无理由退货'],
  ])('%s = %s', (left, right) => {
    expect(isSameFact(left, right)).toBe(true);
    expect(isSameFact(right, left)).toBe(true);
  });

  it.each([
    // Another number: another fact, though nearly every bigram is shared.
    ['签收后 7 个自然日内可申请退货。', '签收后 15 个自然日内可申请退货。'],
    // Another order status.
    ['已发货订单不能直接取消，可以申请物流拦截。', '已签收订单不能直接取消，可以申请退货。'],
    // Another region.
    ['普通地区订单实付满 99 元免运费。', '偏远地区订单实付满 99 元免运费。'],
    // A shared frame only.
    ['NovaTrail X2 签收后 7 个自然日内可申请退货。', '除蓝色清仓款外，支持签收后 7 个自然日内无理由退货。'],
    [
      '除本政策列明的例外商品外，商品签收后 7 个自然日内支持无理由退货。',
      '签收后 7 个自然日内，可以申请更换同款商品的其他尺码或颜色。',
    ],
  ])('%s ≠ %s', (left, right) => {
    expect(isSameFact(left, right)).toBe(false);
    expect(isSameFact(right, left)).toBe(false);
  });
});
