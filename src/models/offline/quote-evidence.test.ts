import { describe, expect, it } from 'vitest';
import { evidenceIn, quotable, quoteEvidence } from './quote-evidence.ts';

describe('quoteEvidence', () => {
  it('quotes the neighbour that gives what was asked (a duration), leaving the weaker match out', () => {
    const lines = quoteEvidence(
      [
        {
          text: '维修需要预约。',
          context: '维修需要预约。\n上门维修一般 3 个工作日内完成。',
          citation: 'k/repair.md#L2',
          contextCitations: ['k/repair.md#L2', 'k/repair.md#L3'],
        },
      ],
      '维修要多久？',
    );
    expect(lines).toEqual([{ text: '上门维修一般 3 个工作日内完成。', citations: ['k/repair.md#L3'] }]);
  });

  it('quotes at most three clauses, in the order found when they answer alike, each once', () => {
    const lines = quoteEvidence(
      [
        { text: '退货需在签收后七天内申请。', citation: 'k/a.md#L1' },
        { text: '积分不可兑现。', citation: 'k/b.md#L1' },
        { text: '退货商品需保持完好。', citation: 'k/a.md#L2' },
        { text: '退货需在签收后七天内申请', citation: 'k/faq.md#L9' },
        { text: '退货后三天内退款。', citation: 'k/a.md#L3' },
        { text: '退货地址见订单页。', citation: 'k/a.md#L4' },
      ],
      '退货怎么办',
    );
    expect(lines).toEqual([
      { text: '退货需在签收后七天内申请。', citations: ['k/a.md#L1', 'k/faq.md#L9'] },
      { text: '退货商品需保持完好。', citations: ['k/a.md#L2'] },
      { text: '退货后三天内退款。', citations: ['k/a.md#L3'] },
    ]);
  });

  it('keeps clauses of one line together under one citation', () => {
    const lines = quoteEvidence(
      [
        {
          text: '运费由买家承担。',
          context: '退货运费由买家承担。换货运费由卖家承担。',
          citation: 'k/a.md#L5',
          contextCitations: ['k/a.md#L5'],
        },
      ],
      '退货换货运费谁出',
    );
    expect(lines).toEqual([{ text: '退货运费由买家承担。换货运费由卖家承担。', citations: ['k/a.md#L5'] }]);
  });

  it('falls back to the first hits when nothing shares a word with the question', () => {
    const lines = quoteEvidence(
      [
        { text: '整机保修一年。', citation: 'k/w.md#L1' },
        { text: '压缩机保修五年。', citation: 'k/w.md#L2' },
        { text: '人为损坏不保修。', citation: 'k/w.md#L3' },
      ],
      'How long is the warranty?',
    );
    expect(lines.map((line) => line.citations[0])).toEqual(['k/w.md#L1', 'k/w.md#L2']);
  });
});

describe('evidenceIn / quotable', () => {
  it('reads a result without trusting its shape', () => {
    expect(evidenceIn({ lowEvidence: 1, hits: [{ text: '' }, { text: 'a', citation: 3 }, 'x'] })).toEqual({
      lowEvidence: false,
      hits: [{ text: 'a', citation: '' }],
    });
    expect(evidenceIn('plain text')).toBeUndefined();
  });

  it.each([
    ['- 整机保修一年', '整机保修一年。'],
    ['1. 先预约；', '先预约。'],
    ['The unit is covered', 'The unit is covered.'],
    ['（见附表）', '（见附表）'],
  ])('%s → %s', (clause, quoted) => {
    expect(quotable(clause)).toBe(quoted);
  });
});
