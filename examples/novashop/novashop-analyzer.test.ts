import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseDictionaryWords, readUserDictionary } from '../../src/retrieval/text/index.ts';
import { createNovaShopAnalyzer, NOVASHOP_SYNONYMS_PATH } from './test-support/novashop-knowledge.ts';

// The analyser with NovaShop's own synonym table (synonyms.txt beside this file), as the demo uses it.
const { analyze, canonicalText, characterNgrams } = createNovaShopAnalyzer();

const QUERY = '这双鞋七天内能退吗？';
const RETURN_POLICY = 'NovaTrail X2 签收后 7 个自然日内可申请退货；商品需保持完好且配件齐全。';
const SHIPPING_POLICY = 'NovaTrail X2 标准配送通常在付款后 1 至 3 个工作日发货，偏远地区时效可能延长。';
const SIZE_GUIDE = 'NovaTrail X2 提供黑色 M 码与 L 码；下单前请参考尺码表确认脚长。';

function shared(left: string, right: string): string[] {
  const rightTerms = new Set(analyze(right));
  return [...new Set(analyze(left))].filter((term) => rightTerms.has(term)).sort();
}

describe('analyze: the seed question meets the return policy', () => {
  it('gives the colloquial question the terms 7, 天 and 退货', () => {
    expect(analyze(QUERY)).toEqual(['鞋', '7', '天', '退货']);
  });

  it('shares 7, 天 and 退货 with the return clause, and none of them with the other candidates', () => {
    expect(shared(QUERY, RETURN_POLICY)).toEqual(['7', '天', '退货']);
    expect(shared(QUERY, SHIPPING_POLICY)).toEqual([]);
    expect(shared(QUERY, SIZE_GUIDE)).toEqual([]);
  });

  it('analyses the Traditional question exactly like the Simplified one', () => {
    expect(analyze('這雙鞋七天內能退嗎')).toEqual(analyze(QUERY));
    expect(analyze('這雙鞋七天內能退嗎？')).toEqual(analyze('这双鞋七天内能退吗？'));
  });

  it('gives the English question 退货, 7 and 天', () => {
    const terms = analyze('can I return these shoes within 7 days');
    expect(terms).toEqual(expect.arrayContaining(['退货', '7', '天', '鞋']));
    expect(terms).not.toContain('can');
    expect(terms).not.toContain('these');
  });
});

describe('analyze: identifiers', () => {
  it('gives full-width, lower-case and upper-case forms of a SKU the same whole token', () => {
    const whole = 'ns-x2-blk-m';
    expect(analyze('NS-X2-BLK-M')).toContain(whole);
    expect(analyze('ns-x2-blk-m')).toContain(whole);
    expect(analyze('ＮＳ－Ｘ２－ＢＬＫ－Ｍ')).toContain(whole);
    expect(analyze('Ｎｓ－ｘ２－ｂｌｋ－ｍ 还有货吗')).toContain(whole);
    expect(analyze('ＮＳ－Ｘ２－ＢＬＫ－Ｍ')).toEqual(analyze('NS-X2-BLK-M'));
  });

  it('keeps the one-size-off SKU a different token', () => {
    expect(analyze('NS-X2-BLK-L')).toContain('ns-x2-blk-l');
    expect(analyze('NS-X2-BLK-L')).not.toContain('ns-x2-blk-m');
  });

  it('also yields the parts of a code, after the code itself is kept whole', () => {
    expect(analyze('NS-X2-BLK-M')).toEqual(['ns', 'x2', 'blk', 'm', 'ns-x2-blk-m']);
  });

  it('keeps a code whole next to Chinese text and punctuation', () => {
    expect(analyze('请问NS-X2-BLK-M有货吗？')).toContain('ns-x2-blk-m');
    expect(analyze('订单 ns-x2-blk-m，已发货')).toContain('ns-x2-blk-m');
  });
});

describe('analyze: synonyms are canonicalised on both sides', () => {
  it('maps 降价了 and 价格保护 to the same term', () => {
    expect(analyze('降价了')).toContain('价格保护');
    expect(analyze('价格保护')).toContain('价格保护');
    expect(analyze('买完就降价了怎么办')).toContain('价格保护');
    expect(analyze('Is there price protection?')).toContain('价格保护');
  });

  it('reads 不想要了 as both a return and a cancellation: the order status decides which', () => {
    expect(analyze('不想要了')).toEqual(expect.arrayContaining(['退货', '取消订单']));
  });

  it('maps colloquial return wordings to 退货', () => {
    for (const text of ['能退吗', '可以寄回去吗', '不想要了', '我想退掉', 'send it back']) {
      expect(analyze(text), text).toContain('退货');
    }
  });

  it('maps 自然日 and 日 to 天 but never turns 日期 into 天期 or 天', () => {
    expect(analyze('7个自然日')).toEqual(['7', '天']);
    expect(analyze('5日内')).toEqual(['5', '天']);
    expect(analyze('日期')).toEqual(['日期']);
    expect(analyze('生产日期')).not.toContain('天');
    expect(analyze('生产日期')).toContain('日期');
  });

  it('matches single-character forms only as whole tokens', () => {
    expect(analyze('退出登录')).not.toContain('退货');
    expect(analyze('修改地址')).not.toContain('保修');
    expect(analyze('能修吗')).toEqual(['保修']);
  });

  it('adds the terms a group implies', () => {
    expect(analyze('包装破损')).toEqual(expect.arrayContaining(['破损', '质量问题']));
    expect(analyze('东西坏了')).toContain('质量问题');
  });

  it('gives a surface form the same terms as its canonical term', () => {
    expect(analyze('保价')).toEqual(analyze('价格保护'));
    expect(analyze('包修')).toEqual(analyze('保修'));
  });
});

describe('analyze: stop words, punctuation, negations', () => {
  it('drops question words, pronouns, particles and measure words', () => {
    expect(analyze('请问我可以怎么退呢？')).toEqual(['退货']);
    expect(analyze('吗 呢 吧 能 可以 怎么 如何 什么 是否 请问 我 你 的 了 这 那 个 双')).toEqual([]);
  });

  it('drops punctuation and whitespace tokens', () => {
    const terms = analyze('退货，运费！？  （发票）');
    expect(terms).toEqual(['退货', '运费', '发票']);
  });

  it('keeps negations, which change the meaning', () => {
    expect(analyze('不')).toEqual(['不']);
    expect(analyze('未签收')).toContain('未');
    expect(analyze('还没收到')).toContain('未收到');
  });

  it('returns nothing for empty or blank text', () => {
    expect(analyze('')).toEqual([]);
    expect(analyze(' \u3000 ')).toEqual([]);
  });
});

describe('analyze: the user dictionary', () => {
  it('is read from the repo, normalised', () => {
    const words = readUserDictionary().map(([word]) => word);
    expect(words).toEqual(expect.arrayContaining(['自然日', '价格保护', '运费险']));
    // Brand words live in the domain's file, not in the general dictionary.
    expect(words).not.toContain('novatrail');
    expect(parseDictionaryWords(readFileSync(NOVASHOP_SYNONYMS_PATH, 'utf8'))).toEqual(
      expect.arrayContaining(['novashop', 'novatrail']),
    );
  });

  it('does not let listed words swallow their neighbours', () => {
    expect(analyze('今天内容')).toEqual(['今天', '内容']);
  });

  it('keeps domain words whole', () => {
    expect(analyze('NovaShop')).toEqual(['novashop']);
    expect(analyze('运费险')).toContain('运费险');
    expect(analyze('以旧换新')).toContain('以旧换新');
  });

  it('is deterministic', () => {
    expect(analyze(RETURN_POLICY)).toEqual(analyze(RETURN_POLICY));
  });
});

describe('canonicalText', () => {
  it('replaces multi-character surface forms by their canonical term, longest first', () => {
    expect(canonicalText(RETURN_POLICY)).toBe(
      'novatrail x2 签收后 7 天内可申请退货;商品需保持完好且配件齐全。',
    );
    expect(canonicalText('不想要了能寄回去吗')).toBe('不想要能退货吗');
    expect(canonicalText('降价了')).toBe('价格保护');
  });

  it('leaves single-character forms and whole-token-only forms alone', () => {
    expect(canonicalText('这双鞋七天内能退吗？')).toBe('这双鞋7天内能退吗?');
    expect(canonicalText('今天内容')).toBe('今天内容');
    expect(canonicalText('生产日期')).toBe('生产日期');
  });

  it('keeps canonical terms whole although they contain a form', () => {
    expect(canonicalText('偏远地区')).toBe('偏远地区');
    expect(canonicalText('已发货')).toBe('已发货');
  });

  it('replaces English forms at word boundaries only', () => {
    expect(canonicalText('can I return it')).toBe('can i 退货 it');
    expect(canonicalText('returnable')).toBe('returnable');
    expect(canonicalText('price protection')).toBe('价格保护');
  });
});

describe('characterNgrams', () => {
  it('yields 1- to 3-grams of the canonical text by default, in text order', () => {
    expect(characterNgrams('自然日')).toEqual(['天']);
    expect(characterNgrams('退货运费')).toEqual([
      '退',
      '退货',
      '退货运',
      '货',
      '货运',
      '货运费',
      '运',
      '运费',
      '费',
    ]);
  });

  it('does not form n-grams across punctuation', () => {
    expect(characterNgrams('退货。运费', 1, 2)).toEqual(['退', '退货', '货', '运', '运费', '费']);
  });

  it('joins across whitespace, except between two English words', () => {
    expect(characterNgrams('7 天', 2, 2)).toEqual(['7天']);
    expect(characterNgrams('ab cd', 2, 2)).toEqual(['ab', 'cd']);
  });

  it('keeps the hyphen inside a code but never at an n-gram edge', () => {
    expect(characterNgrams('NS-X2', 1, 3)).toEqual(['n', 'ns', 's', 's-x', 'x', 'x2', '2']);
    expect(characterNgrams('ＮＳ－Ｘ２', 1, 3)).toEqual(characterNgrams('ns-x2', 1, 3));
  });

  it('shares n-grams between the seed question and the return clause', () => {
    const clause = new Set(characterNgrams(RETURN_POLICY));
    const common = characterNgrams(QUERY).filter((gram) => clause.has(gram));
    expect(common).toEqual(expect.arrayContaining(['7', '7天', '天内', '退']));
  });

  it('refuses impossible lengths', () => {
    expect(() => characterNgrams('退货', 0, 2)).toThrow(RangeError);
    expect(() => characterNgrams('退货', 3, 2)).toThrow(RangeError);
    expect(() => characterNgrams('退货', 1.5, 2)).toThrow(RangeError);
  });

  it('returns nothing for text without characters', () => {
    expect(characterNgrams('，。！')).toEqual([]);
  });
});
