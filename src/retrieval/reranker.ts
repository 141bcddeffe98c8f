/**
 * Scores how well each passage answers a question, reading both together (a cross-encoder), which
 * the lexical lanes and a bi-encoder cannot: 「袋子破了漏一地」 against 「运输中出现漏袋、破袋的…」.
 * Implementation: `HttpReranker` over a rerank API (Cohere, Jina, vLLM, DashScope …). The search asks
 * it to reorder its first passages and reads its best score as the evidence.
 */
export interface Reranker {
  /** The provider's model name, e.g. `gte-rerank-v2` or `BAAI/bge-reranker-v2-m3`. */
  readonly model: string;
  /** One relevance score per document, in input order; higher is more relevant. */
  rerank(query: string, documents: readonly string[], options?: { signal?: AbortSignal }): Promise<number[]>;
}
