import { describe, expect, it } from 'vitest';
import { normalizeText } from './normalize-text.ts';
import { STOP_WORDS } from './stop-words.ts';
import { analyze, characterNgrams, createTextAnalyzer } from './tokenize.ts';

// The default analyser holds general resources only; a shop's table is tested beside the shop
// (examples/novashop/novashop-analyzer.test.ts).
describe('the default analyser', () => {
  it('keeps identifiers whole, with their parts', () => {
    expect(analyze('NS-X2-BLK-M')).toEqual(['ns', 'x2', 'blk', 'm', 'ns-x2-blk-m']);
    expect(analyze('ＮＳ－Ｘ２－ＢＬＫ－Ｍ')).toEqual(analyze('NS-X2-BLK-M'));
  });

  it('knows no shop brand', () => {
    expect(analyze('novatrail 跑鞋')).toContain('novatrail');
    expect(characterNgrams('退货').slice(0, 3)).toEqual(['退', '退货', '货']);
  });

  it('is deterministic', () => {
    expect(analyze('这双鞋七天内能退吗？')).toEqual(analyze('这双鞋七天内能退吗？'));
  });
});

describe('createTextAnalyzer with a domain table', () => {
  const domain = createTextAnalyzer({ synonyms: '# a shop\n小跑 = 跑跑鞋 | zoomer\n小跑\n' });

  it('adds the domain groups and dictionary words to the general analysis', () => {
    expect(domain.analyze('zoomer')).toEqual(['小跑']);
    expect(domain.canonicalText('我的跑跑鞋')).toBe('我的小跑');
    expect(domain.domainTable).toContain('小跑');
  });

  it('leaves the default analyser untouched', () => {
    expect(analyze('zoomer')).toEqual(['zoomer']);
  });
});

describe('the general glossary', () => {
  it.each([
    ['refund', '退款'],
    ['return', '退货'],
    ['exchange', '换货'],
    ['invoice', '发票'],
    ['warranty', '保修'],
    ['coupons', '优惠券'],
    ['退钱', '退款'],
    ['自然日', '天'],
  ])('%s → %s', (word, canonical) => {
    expect(analyze(word)).toContain(canonical);
  });

  it('meets an English question and a Chinese clause on the same terms', () => {
    const english = new Set(analyze('can I get a refund within 7 days'));
    expect(analyze('签收后 7 个自然日内可申请退款').filter((term) => english.has(term))).toEqual(
      expect.arrayContaining(['7', '天', '退款']),
    );
  });

  it('is sound: one group per form, no canonical used as a form', () => {
    expect(createTextAnalyzer().synonyms.problems).toEqual([]);
  });

  it('lists no stop word as a surface form or canonical term', () => {
    const { canonicalOf } = createTextAnalyzer().synonyms;
    expect([...STOP_WORDS].filter((word) => canonicalOf.has(normalizeText(word)))).toEqual([]);
  });
});
