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

/**
 * Reciprocal rank fusion: score = Σ weight / (k + rank) over the lanes that found the chunk. Ranks,
 * not raw scores, are fused because BM25, cosine and match counts are on unrelated scales. Equal
 * scores keep index (insertion) order.
 */
export function reciprocalRankFusion(
  lanes: Partial<Record<LaneName, readonly LaneHit[]>>,
  weights: Partial<Record<LaneName, number>>,
  k = 60,
): FusedHit[] {
  const fused = new Map<number, FusedHit>();
  for (const [lane, hits] of Object.entries(lanes) as [LaneName, readonly LaneHit[]][]) {
    const weight = weights[lane] ?? 1;
    if (weight === 0) continue;
    hits.forEach((hit, position) => {
      let entry = fused.get(hit.index);
      if (entry === undefined) {
        entry = { index: hit.index, score: 0, lanes: {} };
        fused.set(hit.index, entry);
      }
      entry.score += weight / (k + position + 1);
      entry.lanes[lane] = { rank: position + 1, score: hit.score };
    });
  }
  return [...fused.values()].sort((a, b) => b.score - a.score || a.index - b.index);
}
