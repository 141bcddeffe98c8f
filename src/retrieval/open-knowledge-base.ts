import type { Database } from 'better-sqlite3';
import { CachedEmbedder, SqliteEmbeddingCache } from './cached-embedder.ts';
import type { Embedder } from './embedder.ts';
import { EnvironmentSettings } from './environment-settings.ts';
import { HashedNgramEmbedder } from './hashed-ngram-embedder.ts';
import { createRerankerFromEnv } from './http-reranker.ts';
import { KnowledgeBase, type KnowledgeBaseOptions } from './knowledge-base.ts';
import { DEFAULT_KNOWLEDGE_NAMESPACE } from './knowledge-store.ts';
import { createEmbedderFromEnv } from './openai-embedder.ts';
import { SqliteKnowledgeStore } from './sqlite-knowledge-store.ts';
import { defaultTextAnalyzer, type TextAnalyzer, textAnalysisFingerprint } from './text/index.ts';

/**
 * Which embedder the vector lane uses: a configured OpenAI-compatible model (cached by model and
 * content hash in the same SQLite file), the offline hashed n-gram embedder when
 * `RUNSTREAM_EMBEDDER=hashed`, or none, the offline default: see docs/retrieval.md for the
 * measurements behind that choice.
 */
export function embedderFromEnv(
  database: Database,
  env: Readonly<Record<string, string | undefined>>,
  analyzer: TextAnalyzer = defaultTextAnalyzer(),
): Embedder | undefined {
  const remote = createEmbedderFromEnv(env);
  if (remote) return new CachedEmbedder(remote, new SqliteEmbeddingCache(database));
  const choice = env.RUNSTREAM_EMBEDDER?.trim() || 'none';
  if (choice === 'hashed')
    return new HashedNgramEmbedder({
      prepare: analyzer.canonicalText,
      prepareVersion: `canonical-${textAnalysisFingerprint(analyzer)}`,
    });
  if (choice === 'none') return undefined;
  throw new Error(
    `RUNSTREAM_EMBEDDER must be "none" or "hashed" (or set RUNSTREAM_EMBEDDING_MODEL), got "${choice}"`,
  );
}

/**
 * The reranker and its settings from the environment (`createRerankerFromEnv`), plus
 * `RUNSTREAM_RERANK_CANDIDATES` (passages per search, default 20) and `RUNSTREAM_RERANK_LOW_EVIDENCE`
 * (the relevance score under which evidence is low, default 0.1): none of them without a reranker.
 */
export function rerankOptionsFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): Pick<KnowledgeBaseOptions, 'reranker' | 'rerankCandidates' | 'rerankLowEvidenceScore'> {
  const settings = new EnvironmentSettings(env, 'rerank_failed');
  settings.requireFor('RUNSTREAM_RERANK_MODEL', [
    'RUNSTREAM_RERANK_CANDIDATES',
    'RUNSTREAM_RERANK_LOW_EVIDENCE',
  ]);
  const reranker = createRerankerFromEnv(env);
  if (reranker === undefined) return {};
  const candidates = settings.positiveInteger('RUNSTREAM_RERANK_CANDIDATES');
  const threshold = settings.number('RUNSTREAM_RERANK_LOW_EVIDENCE');
  return {
    reranker,
    ...(candidates === undefined ? {} : { rerankCandidates: candidates }),
    ...(threshold === undefined ? {} : { rerankLowEvidenceScore: threshold }),
  };
}

export interface OpenKnowledgeBaseOptions extends Omit<KnowledgeBaseOptions, 'store' | 'embedder'> {
  /**
   * Which knowledge base of the file: an agent's id. Default {@link DEFAULT_KNOWLEDGE_NAMESPACE}.
   * Namespaces share nothing but the file (and the embedding cache, keyed by content).
   */
  namespace?: string;
}

/**
 * One namespace of the knowledge tables in the product's SQLite file, configured from the
 * environment. A database opened read-only gives a knowledge base that writes nothing: searches
 * work, `ingest` throws.
 */
export async function openKnowledgeBase(
  database: Database,
  env: Readonly<Record<string, string | undefined>> = process.env,
  options: OpenKnowledgeBaseOptions = {},
): Promise<KnowledgeBase> {
  const { namespace, ...knowledgeOptions } = options;
  const store = new SqliteKnowledgeStore(database, namespace === undefined ? {} : { namespace });
  const embedder = embedderFromEnv(database, env, options.analyzer);
  return KnowledgeBase.open({
    ...rerankOptionsFromEnv(env),
    ...knowledgeOptions,
    store,
    ...(embedder ? { embedder } : {}),
  });
}
