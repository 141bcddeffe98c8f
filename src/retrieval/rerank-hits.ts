import type { Reranker } from './reranker.ts';
import type { SearchHit } from './search-result.ts';

export interface RerankedHits {
  hits: SearchHit[];
  /**
   * The best relevance score among the candidates: the search's evidence when it has a reranker.
   * Undefined when the reranker failed and the fused order was kept.
   */
  topScore: number | undefined;
}

export interface RerankOptions {
  /**
   * Per candidate: in scope of an identifier the question quotes. Those stay ahead of the rest,
   * reordered among themselves: a cross-encoder may rate a rival code's clause (NS-X2-BLK-L for
   * NS-X2-BLK-M) as high as the right one, and the exact lane has already decided.
   */
  pinned: readonly boolean[];
  /** Told when the reranker fails. */
  notice: (message: string) => void;
  signal?: AbortSignal;
}

/**
 * The candidate passages in the reranker's order, each with its `rerankScore`. The reranker reads
 * what the model will read: the heading path (a clause often leaves its subject to its heading) and
 * the passage. Equal scores keep the fused order. A reranker that fails (an outage, a bad answer)
 * leaves the fused order, told through `notice`: the search still answers. An abort is not a failure
 * and propagates.
 */
export async function rerankOrKeep(
  reranker: Reranker,
  query: string,
  candidates: SearchHit[],
  options: RerankOptions,
): Promise<RerankedHits> {
  if (candidates.length === 0) return { hits: candidates, topScore: undefined };
  const documents = candidates.map((hit) => `${hit.headingPath.join(' > ')}\n${hit.context}`);
  let scores: number[];
  try {
    scores = await reranker.rerank(query, documents, options.signal ? { signal: options.signal } : {});
  } catch (error) {
    if (options.signal?.aborted) throw error;
    options.notice(`reranker ${reranker.model} failed, fused order kept: ${(error as Error).message}`);
    return { hits: candidates, topScore: undefined };
  }
  const scored = candidates.map((hit, position) => ({
    hit: { ...hit, rerankScore: scores[position] ?? Number.NEGATIVE_INFINITY },
    group: options.pinned[position] === true ? 0 : 1,
    position,
  }));
  scored.sort(
    (left, right) =>
      left.group - right.group ||
      right.hit.rerankScore - left.hit.rerankScore ||
      left.position - right.position,
  );
  return {
    hits: scored.map((entry) => entry.hit),
    topScore: Math.max(...scored.map((entry) => entry.hit.rerankScore)),
  };
}
