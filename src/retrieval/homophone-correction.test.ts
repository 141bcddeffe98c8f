import { describe, expect, it } from 'vitest';
import { HomophoneCorrector } from './homophone-correction.ts';
import { pinyinBigrams } from './text/pinyin-terms.ts';

describe('pinyinBigrams', () => {
  it('gives a homophone typo the bigrams of the word meant', () => {
    expect(pinyinBigrams('退宽')).toEqual(pinyinBigrams('退款'));
    expect(pinyinBigrams('发漂')).toEqual(['fa_piao']);
    expect(pinyinBigrams('退款 ok 多久')).toEqual(['tui_kuan', 'duo_jiu']);
  });
});

describe('HomophoneCorrector', () => {
  const corpus = new HomophoneCorrector([
    ['退', 9],
    ['货', 9],
    ['退货', 9],
    ['合', 5],
    ['和', 5],
    ['和并', 3],
  ]);

  it('replaces an unknown pair by the frequent corpus pair of the same pinyin', () => {
    expect(corpus.correct('能退火')).toBe('能退货');
  });

  it('leaves a pair alone when the character it would replace is common in the corpus', () => {
    expect(corpus.correct('合并')).toBe('合并');
  });
});
