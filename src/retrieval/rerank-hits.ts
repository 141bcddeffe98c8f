import { describeCause } from '../shared/index.ts';
import type { Reranker } from './reranker.ts';
import type { SearchHit } from './search-result.ts';

export type RerankedHits =
  | {
      /** The first `keep` candidates in the reranker's order, each with its `rerankScore`. */
      hits: SearchHit[];
      /** The best relevance score among those: the search's evidence when it has a reranker. */
      topScore: number;
    }
  | {
      /** The first `keep` candidates in fused order: the reranker failed, or was not asked. */
      hits: SearchHit[];
      topScore: undefined;
      /** What went wrong, for the operator; absent when there was nothing to rerank. */
      failure?: string;
    };

export interface RerankOptions {
  /** How many hits the search returns. */
  keep: number;
  /**
   * Per candidate: in scope of an identifier the question quotes. Those stay ahead of the rest,
   * reordered among themselves: a cross-encoder may rate a rival code's clause (NS-X2-BLK-L for
   * NS-X2-BLK-M) as high as the right one, and the exact lane has already decided.
   */
  pinned: readonly boolean[];
  signal?: AbortSignal;
}

/**
 * The candidate passages in the reranker's order. The reranker reads what the model will read: the
 * heading path (a clause often leaves its subject to its heading) and the passage. Equal scores keep
 * the fused order. A reranker that fails (an outage, or an answer without one finite score per
 * passage, which would otherwise read as evidence either way) leaves the fused order: the search
 * still answers. An abort is not a failure and propagates.
 */
export async function rerankOrKeep(
  reranker: Reranker,
  query: string,
  candidates: readonly SearchHit[],
  options: RerankOptions,
): Promise<RerankedHits> {
  const fallback = (failure: string): RerankedHits => ({
    hits: candidates.slice(0, options.keep),
    topScore: undefined,
    failure,
  });
  if (candidates.length === 0) return { hits: [], topScore: undefined };
  const documents = candidates.map((hit) => `${hit.headingPath.join(' > ')}\n${hit.context}`);
  let scores: number[];
  try {
    scores = await reranker.rerank(query, documents, options.signal ? { signal: options.signal } : {});
  } catch (error) {
    if (options.signal?.aborted) throw error;
    return fallback(describeCause(error));
  }
  if (scores.length !== candidates.length || !scores.every(Number.isFinite)) {
    return fallback(`${scores.length} scores for ${candidates.length} passages, or one not a finite number`);
  }
  const scored = candidates.map((hit, position) => ({
    hit: { ...hit, rerankScore: scores[position] as number },
    group: options.pinned[position] === true ? 0 : 1,
    position,
  }));
  scored.sort(
    (left, right) =>
      left.group - right.group ||
      right.hit.rerankScore - left.hit.rerankScore ||
      left.position - right.position,
  );
  const hits = scored.slice(0, options.keep).map((entry) => entry.hit);
  // The evidence is what the caller is shown: with an identifier's scope pinned first, a better
  // passage beyond the cut must not make the returned ones look convincing.
  return { hits, topScore: Math.max(...hits.map((hit) => hit.rerankScore)) };
}
