import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TermPacker } from '../term-packer.ts';
import { InvertedIndex, postingsFromPacked } from './inverted-index.ts';
import { decodePostings, encodePostings } from './postings-codec.ts';

const term = fc.constantFrom('退货', '运费', '发票', '7', 'ns-x2', 'a', '"quoted"', '\\', '𠀋', '保修');
// Mostly empty chunks, so that some gaps between a term's chunks need several varint bytes.
const chunkTerms = fc.oneof(
  { weight: 6, arbitrary: fc.constant<string[]>([]) },
  { weight: 1, arbitrary: fc.array(term, { maxLength: 12 }) },
);
const corpus = fc.array(chunkTerms, { minLength: 1, maxLength: 400 });

function postingsOf(chunks: readonly (readonly string[])[]) {
  const packer = new TermPacker();
  const packed = chunks.map((terms) => packer.pack(terms));
  return postingsFromPacked(chunks.length, packer.dictionary, (chunk) => packed[chunk] as Uint8Array);
}

describe('encodePostings / decodePostings', () => {
  it('give back the same postings, and so the same hits and scores', () => {
    fc.assert(
      fc.property(corpus, fc.array(term, { minLength: 1, maxLength: 4 }), (chunks, query) => {
        const postings = postingsOf(chunks);
        const decoded = decodePostings(encodePostings(postings), chunks.length);
        expect(decoded).toEqual(postings);
        expect([...decoded.termIds]).toEqual([...postings.termIds]);
        const fromTerms = new InvertedIndex(chunks.length, (chunk) => chunks[chunk] ?? []);
        const fromBytes = new InvertedIndex(chunks.length, decoded);
        expect(fromBytes.bm25(query, 10)).toEqual(fromTerms.bm25(query, 10));
        expect(fromBytes.cosine(query, 10)).toEqual(fromTerms.cosine(query, 10));
      }),
    );
  });

  it('keep frequencies and gaps that need several bytes', () => {
    const chunks: string[][] = Array.from({ length: 70_000 }, () => []);
    chunks[3] = Array.from({ length: 400 }, () => '价保');
    chunks[69_999] = ['价保', '发票'];
    const postings = postingsOf(chunks);
    const decoded = decodePostings(encodePostings(postings), chunks.length);
    expect(decoded).toEqual(postings);
    expect([...decoded.postingFrequencies]).toContain(400);
  });

  it('refuse bytes that are not postings of this many chunks, rather than guess', () => {
    const bytes = encodePostings(postingsOf([['退货', '运费'], [], ['退货']]));
    expect(() => decodePostings(bytes, 4)).toThrow(/for 3 chunks, not 4/);
    expect(() => decodePostings(bytes.subarray(0, bytes.length - 1), 3)).toThrow(RangeError);
    expect(() => decodePostings(bytes.subarray(0, 10), 3)).toThrow(/truncated/);
    const renamed = bytes.slice();
    renamed[0] = 0;
    expect(() => decodePostings(renamed, 3)).toThrow(/not a postings snapshot/);
    const longer = new Uint8Array(bytes.length + 2);
    longer.set(bytes);
    expect(() => decodePostings(longer, 3)).toThrow(/disagree/);
  });
});
