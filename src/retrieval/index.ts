/**
 * Knowledge retrieval: clause chunking, Chinese-aware hybrid search (exact identifiers, BM25 over
 * words, character n-gram cosine, optional vectors) fused by reciprocal rank, optionally reranked by a
 * cross-encoder, with sources.
 */
export * from './cached-embedder.ts';
export * from './chunking/index.ts';
export * from './cosine-similarity.ts';
export * from './embedder.ts';
export * from './evaluate.ts';
export * from './evidence-calibration.ts';
export * from './hashed-ngram-embedder.ts';
export * from './http-reranker.ts';
export * from './ingest.ts';
export * from './knowledge-base.ts';
export * from './knowledge-sources.ts';
export * from './knowledge-store.ts';
export * from './open-knowledge-base.ts';
export * from './openai-embedder.ts';
export * from './reciprocal-rank-fusion.ts';
export * from './reranker.ts';
export * from './retrieval-error.ts';
export * from './search-result.ts';
export * from './sqlite-knowledge-store.ts';
// The analysers (`createTextAnalyzer` with an agent's synonyms, `parseChineseNumber`…), for an
// agent's own code that reads text the way its knowledge base does.
export * from './text/index.ts';
