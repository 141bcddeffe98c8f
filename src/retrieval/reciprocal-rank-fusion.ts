import type { LaneHit } from './lanes/index.ts';

export type LaneName = 'exact' | 'ngram' | 'bm25' | 'pinyin' | 'vector';

export interface LaneRank {
  /** 1-based rank within the lane. */
  rank: number;
  /** The lane's own score (BM25, cosine, identifier matches). Ranks, never proves. */
  score: number;
}

export interface FusedHit {
  index: number;
  score: number;
  lanes: Partial<Record<LaneName, LaneRank>>;
}

export interface FusionOptions {
  /** Reciprocal rank fusion constant. Default 60. */
  k?: number;
  /**
   * How much of each scored lane's own score, as a share of its best hit's (0 to 1), is added at the
   * weight of a first rank: 0.2 adds up to a fifth of what rank 1 earns. Default 0, pure rank fusion.
   * The identifier lane counts matches, not closeness, and never contributes here.
   */
  scoreShare?: number;
}

/**
 * Reciprocal rank fusion: score = Σ weight / (k + rank) over the lanes that found the chunk. Ranks,
 * not raw scores, are fused because BM25, cosine and match counts are on unrelated scales. Equal
 * scores keep index (insertion) order.
 *
 * Ranks alone forget by how much a lane preferred its first hit: with k = 60, a clause first in the
 * n-gram lane and fourth in BM25 ties one third in n-grams and first in BM25, whatever the scores. With
 * `scoreShare`, each lane also adds its score relative to its best, so a clause far ahead in a lane
 * keeps some of that lead (a convex mix of RRF and max-normalised CombSUM).
 */
export function reciprocalRankFusion(
  lanes: Partial<Record<LaneName, readonly LaneHit[]>>,
  weights: Partial<Record<LaneName, number>>,
  options: FusionOptions = {},
): FusedHit[] {
  const k = options.k ?? 60;
  const scoreShare = options.scoreShare ?? 0;
  const fused = new Map<number, FusedHit>();
  for (const [lane, hits] of Object.entries(lanes) as [LaneName, readonly LaneHit[]][]) {
    const weight = weights[lane] ?? 1;
    if (weight === 0) continue;
    const best = hits[0]?.score ?? 0;
    const scoreWeight = lane === 'exact' || best <= 0 ? 0 : (scoreShare * weight) / (k + 1) / best;
    hits.forEach((hit, position) => {
      let entry = fused.get(hit.index);
      if (entry === undefined) {
        entry = { index: hit.index, score: 0, lanes: {} };
        fused.set(hit.index, entry);
      }
      entry.score += weight / (k + position + 1) + scoreWeight * Math.max(0, hit.score);
      entry.lanes[lane] = { rank: position + 1, score: hit.score };
    });
  }
  return [...fused.values()].sort((a, b) => b.score - a.score || a.index - b.index);
}
