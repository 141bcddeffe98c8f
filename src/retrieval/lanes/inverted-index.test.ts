import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TermPacker } from '../term-packer.ts';
import { InvertedIndex } from './inverted-index.ts';

const term = fc.constantFrom('退货', '运费', '发票', '7', '天', '退', '货', 'ns-x2', 'a', 'b', 'c', '保修');
const corpus = fc.array(fc.array(term, { maxLength: 30 }), { minLength: 1, maxLength: 40 });

describe('InvertedIndex.fromPackedTerms', () => {
  it('is the index of the same terms analysed in order: identical hits and scores', () => {
    fc.assert(
      fc.property(corpus, fc.array(term, { minLength: 1, maxLength: 6 }), (chunks, query) => {
        const analysed = new InvertedIndex(chunks.length, (chunk) => chunks[chunk] ?? []);
        // Pack in another order than the index will visit, as a store built over many ingests does.
        const packer = new TermPacker();
        const packed = [...chunks.keys()].reverse().map((chunk) => packer.pack(chunks[chunk] ?? []));
        const stored = InvertedIndex.fromPackedTerms(
          chunks.length,
          packer.dictionary,
          (chunk) => packed[chunks.length - 1 - chunk] as Uint8Array,
        );
        expect(stored.termCount).toBe(analysed.termCount);
        expect(stored.postingCount).toBe(analysed.postingCount);
        expect(stored.bm25(query, 10)).toEqual(analysed.bm25(query, 10));
        expect(stored.cosine(query, 10)).toEqual(analysed.cosine(query, 10));
        const even = (chunk: number) => chunk % 2 === 0;
        expect(stored.cosine(query, 5, even)).toEqual(analysed.cosine(query, 5, even));
      }),
    );
  });

  it('reads counts and ids that need several varint bytes', () => {
    const many = Array.from({ length: 300 }, (_, index) => `t${index}`);
    const terms = [...many, ...Array.from({ length: 200 }, () => 't299')];
    const packer = new TermPacker();
    const packed = packer.pack(terms);
    const stored = InvertedIndex.fromPackedTerms(1, packer.dictionary, () => packed);
    const analysed = new InvertedIndex(1, () => terms);
    expect(stored.documentFrequency('t299')).toBe(1);
    expect(stored.bm25(['t299', 't0'], 1)).toEqual(analysed.bm25(['t299', 't0'], 1));
  });
});

describe('query term weights', () => {
  const chunks = [
    ['显示', '打开', '水龙头'],
    ['e4', '水位', '故障'],
    ['保修', '三', '年'],
  ];
  const index = new InvertedIndex(chunks.length, (chunk) => chunks[chunk] ?? []);

  it('a weight of 1 changes nothing, in either lane', () => {
    const query = ['e4', '打开'];
    const one = () => 1;
    expect(index.bm25(query, 3, undefined, one)).toEqual(index.bm25(query, 3));
    expect(index.cosine(query, 3, undefined, one)).toEqual(index.cosine(query, 3));
  });

  it('scales a term: a half-weighted term no longer ties a full one', () => {
    const query = ['e4', '打开'];
    // Equal document frequency and length: unweighted, the two chunks tie and insertion order wins.
    expect(index.bm25(query, 2).map((hit) => hit.index)).toEqual([0, 1]);
    const half = (term: string) => (term === '打开' ? 0.5 : 1);
    const bm25 = index.bm25(query, 2, undefined, half);
    expect(bm25.map((hit) => hit.index)).toEqual([1, 0]);
    expect(bm25[1]?.score).toBeCloseTo((index.bm25(['打开'], 1)[0]?.score ?? 0) / 2, 12);
    expect(index.cosine(query, 2, undefined, half).map((hit) => hit.index)).toEqual([1, 0]);
  });
});
