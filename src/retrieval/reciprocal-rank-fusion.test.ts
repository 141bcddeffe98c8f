import { describe, expect, it } from 'vitest';
import { KnowledgeBase } from './knowledge-base.ts';
import { reciprocalRankFusion } from './reciprocal-rank-fusion.ts';

describe('reciprocalRankFusion', () => {
  it('sums weight / (k + rank) over the lanes and keeps each lane rank and score', () => {
    const fused = reciprocalRankFusion(
      {
        ngram: [
          { index: 7, score: 0.9 },
          { index: 3, score: 0.2 },
        ],
        bm25: [{ index: 3, score: 12 }],
      },
      { ngram: 1, bm25: 0.5 },
    );
    expect(fused.map((hit) => hit.index)).toEqual([3, 7]);
    expect(fused[0]?.score).toBeCloseTo(1 / 62 + 0.5 / 61, 12);
    expect(fused[1]?.score).toBeCloseTo(1 / 61, 12);
    expect(fused[0]?.lanes).toEqual({ ngram: { rank: 2, score: 0.2 }, bm25: { rank: 1, score: 12 } });
  });

  it('with a score share, a clause far ahead in a lane keeps part of its lead', () => {
    // Clause 1 leads the n-gram lane by far and is fourth in BM25; clause 2 is third in n-grams with
    // a score close to the fourth's, and first in BM25 by a hair. Ranks alone put clause 2 first.
    const lanes = {
      ngram: [
        { index: 1, score: 0.6 },
        { index: 5, score: 0.2 },
        { index: 2, score: 0.19 },
        { index: 6, score: 0.18 },
      ],
      bm25: [
        { index: 2, score: 10 },
        { index: 5, score: 9.9 },
        { index: 6, score: 9.8 },
        { index: 1, score: 9.7 },
      ],
    };
    const weights = { ngram: 1, bm25: 1 };
    expect(reciprocalRankFusion(lanes, weights)[0]?.index).toBe(2);
    const shared = reciprocalRankFusion(lanes, weights, { scoreShare: 0.2 });
    expect(shared[0]?.index).toBe(1);
    // The share adds at most scoreShare × weight / (k + 1) per lane: the lane's best gets all of it.
    expect(shared.find((hit) => hit.index === 1)?.score).toBeCloseTo(
      1 / 61 + 1 / 64 + 0.2 / 61 + (0.2 * 9.7) / 10 / 61,
      12,
    );
  });

  it('never adds the identifier lane score, a count of matches, and turns off a lane of weight 0', () => {
    const fused = reciprocalRankFusion(
      {
        exact: [
          { index: 4, score: 2 },
          { index: 8, score: 1 },
        ],
        ngram: [{ index: 8, score: 0.5 }],
      },
      { exact: 2, ngram: 0 },
      { scoreShare: 0.5 },
    );
    expect(fused.map((hit) => [hit.index, hit.score])).toEqual([
      [4, 2 / 61],
      [8, 2 / 62],
    ]);
  });
});

describe('KnowledgeBase.open({ fusionScoreShare })', () => {
  it('refuses a score share outside 0 to 1 before it reads anything', async () => {
    const store = new Proxy({} as never, {
      get() {
        throw new Error('the store must not be read');
      },
    });
    for (const share of [-0.1, 1.5, Number.NaN])
      await expect(KnowledgeBase.open({ store, fusionScoreShare: share })).rejects.toThrow(
        /fusionScoreShare must be a number from 0 to 1/,
      );
  });
});
