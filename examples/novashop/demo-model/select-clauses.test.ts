import { describe, expect, it } from 'vitest';
import { evidenceLines } from './evidence-lines.ts';
import { familiesIn } from './intent.ts';
import { questionProfile } from './question-terms.ts';
import { clausesOf, selectClauses } from './select-clauses.ts';
import type { EvidenceHit } from './tool-facts.ts';

const RETURNS = 'NovaShop 退货政策 › 一、7 天无理由退货';

/** The hits the real search returned for 「退货政策是怎样的？七天无理由吗？」, shortened. */
const RETURN_HITS: EvidenceHit[] = [
  {
    text: '特价清仓商品，商品页会标注「清仓特价，不支持无理由退货」。',
    context:
      '定制商品，包括按买家要求印字或绣名的服装。\n特价清仓商品，商品页会标注「清仓特价，不支持无理由退货」。\n拆封后的贴身衣物和袜子。',
    section: `${RETURNS} › 不支持无理由退货的商品`,
    citation: 'knowledge/policies/return-policy.md#L27',
  },
  {
    text: '订单变为已完成后，不再受理无理由退货申请。',
    context:
      '除本政策列明的例外商品外，商品签收后 7 个自然日内支持无理由退货。\n退货时限自签收次日零点起计算，以物流签收记录为准。\n订单变为已完成后，不再受理无理由退货申请。',
    section: `${RETURNS} › 适用范围与时限`,
    citation: 'knowledge/policies/return-policy.md#L13',
  },
];

describe('selectClauses', () => {
  it('leads with the clause that answers the question, wherever the retriever ranked it', () => {
    const clauses = selectClauses(RETURN_HITS, {
      question: questionProfile('退货政策是怎样的？七天无理由吗？'),
      families: [],
      max: 3,
    });
    expect(clauses[0]).toEqual({
      text: '除本政策列明的例外商品外，商品签收后 7 个自然日内支持无理由退货。',
      citations: ['knowledge/policies/return-policy.md#L13'],
      score: expect.any(Number),
    });
    // A neighbour that shares nothing with the question is not quoted.
    expect(clauses.map((clause) => clause.text)).not.toContain('拆封后的贴身衣物和袜子。');
  });

  it('falls back to the clause when a hit has no context', () => {
    const [hit] = RETURN_HITS;
    const clauses = selectClauses([{ ...(hit as EvidenceHit), context: undefined }], {
      question: questionProfile('清仓商品能退吗'),
      families: [],
      max: 3,
    });
    expect(clauses.map((clause) => clause.text)).toEqual([
      '特价清仓商品，商品页会标注「清仓特价，不支持无理由退货」。',
    ]);
  });

  it('quotes a fact two passages state once, the more complete wording, with both citations', () => {
    const hits: EvidenceHit[] = [
      {
        text: '普通地区订单实付满 99 元免运费。',
        section: 'NovaShop 配送政策 › 二、运费标准',
        citation: 'knowledge/policies/shipping-policy.md#L22',
      },
      {
        text: '普通地区实付满 99 元就包邮，不满 99 元收 8 元运费。',
        section: '配送常见问题',
        citation: 'knowledge/faq-delivery.md#L9',
      },
    ];
    const clauses = selectClauses(hits, { question: questionProfile('满多少包邮？'), families: [], max: 3 });
    expect(clauses).toEqual([
      {
        text: '普通地区实付满 99 元就包邮，不满 99 元收 8 元运费。',
        citations: ['knowledge/faq-delivery.md#L9', 'knowledge/policies/shipping-policy.md#L22'],
        score: expect.any(Number),
      },
    ]);
  });

  it('leaves out clauses about another product', () => {
    const hits: EvidenceHit[] = [
      {
        text: 'NovaPeak 冲锋衣偏大半码。',
        context: 'NovaPeak 冲锋衣偏大半码。\nNovaTrail X2 鞋楦偏窄，脚宽的建议大一码。',
        section: '尺码指南',
        citation: 'knowledge/policies/size-guide.md#L5',
      },
    ];
    const clauses = selectClauses(hits, {
      question: questionProfile('X2 偏小吗'),
      families: familiesIn('X2 偏小吗'),
      max: 3,
    });
    expect(clauses).toEqual([]);
  });
});

describe('evidenceLines', () => {
  it('puts the clauses of one passage on one line, so each citation is given once', () => {
    const lines = evidenceLines([
      { text: 'A。', citations: ['x.md#L1'], score: 3 },
      { text: 'B。', citations: ['y.md#L2', 'x.md#L1'], score: 2 },
      { text: 'C。', citations: ['x.md#L1'], score: 1 },
    ]);
    expect(lines).toEqual([
      { text: 'A。C。', citations: ['x.md#L1'] },
      { text: 'B。', citations: ['y.md#L2'] },
    ]);
  });

  it('cuts a passage into its sentences and clauses', () => {
    expect(clausesOf('甲；乙。\n- 丙…丁')).toEqual(['甲。', '乙。', '丙。', '丁。']);
  });
});
