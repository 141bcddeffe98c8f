import { distinctPassages } from './distinct-passages.ts';
import { hasEnglishWords } from './english-lexicon.ts';
import { orderByIdentifierScope } from './identifier-scope.ts';
import { type IngestOptions, type IngestSummary, ingestPaths } from './ingest.ts';
import {
  DEFAULT_CONTEXT_CHARS,
  DEFAULT_FUSION_SCORE_SHARE,
  DEFAULT_LANE_WEIGHTS,
  DEFAULT_LOW_EVIDENCE_SCORE,
  DEFAULT_RERANK_CANDIDATES,
  DEFAULT_RERANK_LOW_EVIDENCE_SCORE,
  type KnowledgeBaseOptions,
  PARAPHRASE_WEIGHT,
  RERANK_PAUSE_MS,
  writeNoticeToStderr,
} from './knowledge-base-options.ts';
import { createIndexedKnowledgeSources, type KnowledgeSources } from './knowledge-sources.ts';
import type { StoredChunk } from './knowledge-store.ts';
import { extractIdentifiers, type LaneHit } from './lanes/index.ts';
import {
  type IndexBuildReport,
  type KnowledgeIndexOptions,
  type LoadedIndex,
  loadKnowledgeIndex,
} from './load-knowledge-index.ts';
import type { PassageContext } from './passage-index.ts';
import { type FusedHit, type LaneName, reciprocalRankFusion } from './reciprocal-rank-fusion.ts';
import { type RerankedHits, type RerankOptions, rerankOrKeep } from './rerank-hits.ts';
import type { Reranker } from './reranker.ts';
import { RerankerBreaker } from './reranker-breaker.ts';
import { RetrievalError } from './retrieval-error.ts';
import {
  evidenceStrength,
  type SearchEvidence,
  type SearchFilter,
  type SearchHit,
  type SearchOptions,
  type SearchResult,
} from './search-result.ts';
import { defaultTextAnalyzer, stripQuestionForm } from './text/index.ts';
import { unknownWords } from './unknown-words.ts';

export * from './knowledge-base-options.ts';
export type { IndexBuildReport };

function indexOptions(options: KnowledgeBaseOptions): KnowledgeIndexOptions {
  return {
    ...options,
    pinyinLane: (options.weights?.pinyin ?? DEFAULT_LANE_WEIGHTS.pinyin) > 0,
    onNotice: options.onNotice ?? writeNoticeToStderr,
  };
}

/**
 * Hybrid search over the knowledge store: an exact identifier lane, BM25 over Chinese-aware words,
 * tf-idf cosine over character n-grams and, with an embedder, a vector lane, fused by reciprocal
 * rank. It returns evidence with sources, never a verdict.
 */
export class KnowledgeBase {
  readonly #options: KnowledgeBaseOptions;
  #index: LoadedIndex;
  readonly #rerankerBreaker = new RerankerBreaker(RERANK_PAUSE_MS);
  /**
   * The whole documents behind this knowledge base's citations (`path#L12` without `#L12`): only its
   * own namespace's, read from the files they were ingested from, as of the last open or ingest.
   */
  readonly sources: KnowledgeSources;

  private constructor(options: KnowledgeBaseOptions, index: LoadedIndex) {
    this.#options = options;
    this.#index = index;
    this.sources = createIndexedKnowledgeSources(() => this.#index.documents);
  }

  /** The knowledge base's namespace in its store (an agent's id, or `default`). */
  get namespace(): string {
    return this.#options.store.namespace;
  }

  /** How the vector lane searches now: through its ANN graph, exactly, or not at all. */
  get vectorSearch(): 'approximate' | 'exact' | 'off' {
    const { vectors } = this.#index;
    if (vectors === undefined) return 'off';
    return vectors.approximate ? 'approximate' : 'exact';
  }

  /**
   * Resolves once the vector lane searches through its ANN graph, or at once when it has no graph to
   * wait for (no embedder, or fewer vectors than `ANN_MIN_VECTORS`). Until then searches are exact.
   */
  async vectorLaneReady(): Promise<void> {
    // The build's timers are unref'd so that it never holds a process open by itself; whoever
    // waits for it does, until it is done.
    const keepAlive = setInterval(() => {}, 60_000);
    try {
      await this.#index.vectorGraph;
    } finally {
      clearInterval(keepAlive);
    }
  }

  static async open(options: KnowledgeBaseOptions): Promise<KnowledgeBase> {
    const share = options.fusionScoreShare;
    if (share !== undefined && !(Number.isFinite(share) && share >= 0 && share <= 1))
      throw new RangeError(`fusionScoreShare must be a number from 0 to 1, got ${share}`);
    const candidates = options.rerankCandidates;
    if (candidates !== undefined && !(Number.isInteger(candidates) && candidates > 0))
      throw new RangeError(`rerankCandidates must be a positive integer, got ${candidates}`);
    if (options.rerankLowEvidenceScore !== undefined && !Number.isFinite(options.rerankLowEvidenceScore))
      throw new RangeError(
        `rerankLowEvidenceScore must be a finite number, got ${options.rerankLowEvidenceScore}`,
      );
    return new KnowledgeBase(options, await loadKnowledgeIndex(indexOptions(options)));
  }

  get chunkCount(): number {
    return this.#index.chunks.length;
  }

  /** How the lexical indexes were built at the last open or ingest: from stored terms or by analysis. */
  get buildReport(): IndexBuildReport {
    return this.#index.report;
  }

  /** The reranker's model, when searches are reranked. */
  get rerankerModel(): string | undefined {
    return this.#options.reranker?.model;
  }

  get documentCount(): number {
    return this.#index.documents.size;
  }

  /** Which lanes take part in a search with the current configuration. */
  get activeLanes(): LaneName[] {
    const weights = { ...DEFAULT_LANE_WEIGHTS, ...this.#options.weights };
    return (Object.keys(weights) as LaneName[]).filter(
      (lane) =>
        weights[lane] > 0 &&
        (lane !== 'vector' || this.#index.vectors !== undefined) &&
        (lane !== 'pinyin' || this.#index.pinyin !== undefined),
    );
  }

  /**
   * Ingest files or folders into this namespace, then rebuild the indexes. Document paths (and so
   * citations) are relative to `options.baseDirectory` (default: the working directory); only
   * documents that were read from the folders named and are gone from them are removed.
   */
  async ingest(
    paths: readonly string[],
    options: Omit<IngestOptions, 'store' | 'embedder' | 'analyzer'> = {},
  ): Promise<IngestSummary> {
    const summary = await ingestPaths(paths, {
      ...options,
      store: this.#options.store,
      ...(this.#options.embedder ? { embedder: this.#options.embedder } : {}),
      ...(this.#options.analyzer ? { analyzer: this.#options.analyzer } : {}),
    });
    this.#index.vectors?.cancelBuild();
    this.#index = await loadKnowledgeIndex(indexOptions(this.#options));
    return summary;
  }

  /** The candidates reranked, or in fused order when the reranker fails (told once per pause). */
  async #rerank(
    reranker: Reranker,
    query: string,
    candidates: readonly SearchHit[],
    options: RerankOptions,
  ): Promise<RerankedHits> {
    let reranked: RerankedHits;
    try {
      reranked = await rerankOrKeep(reranker, query, candidates, options);
    } catch (error) {
      this.#rerankerBreaker.abandoned();
      throw error;
    }
    if (reranked.topScore !== undefined) {
      this.#rerankerBreaker.succeeded();
    } else if (reranked.failure === undefined) {
      this.#rerankerBreaker.abandoned();
    } else if (this.#rerankerBreaker.failed()) {
      (this.#options.onNotice ?? writeNoticeToStderr)(
        `reranker ${reranker.model} failed (${reranked.failure}); searches keep the fused order for the next ${RERANK_PAUSE_MS / 1000} s`,
      );
    }
    return reranked;
  }

  async search(query: string, options: SearchOptions = {}): Promise<SearchResult> {
    const started = performance.now();
    // A stopped run's search ends here whatever the lanes and the reranker would do with the signal.
    options.signal?.throwIfAborted();
    const trimmed = query.trim();
    if (trimmed.length === 0) throw new RetrievalError('empty_query', 'the query is empty');
    const topK = options.topK ?? 5;
    if (!Number.isInteger(topK) || topK <= 0)
      throw new RangeError(`topK must be a positive integer, got ${topK}`);
    const contextChars = options.contextChars ?? this.#options.contextChars ?? DEFAULT_CONTEXT_CHARS;
    if (!Number.isInteger(contextChars) || contextChars <= 0)
      throw new RangeError(`contextChars must be a positive integer, got ${contextChars}`);
    const index = this.#index;
    const analyzer = this.#options.analyzer ?? defaultTextAnalyzer();
    const weights = { ...DEFAULT_LANE_WEIGHTS, ...this.#options.weights };
    const allowed = options.filter ? filterPredicate(index, options.filter) : undefined;
    const depth = Math.max(topK * 4, 50);

    // The lexical lanes look for what is asked about, not for the asking (怎么 / 能不能 / 吗).
    const stripped = stripQuestionForm(trimmed);
    // A character pair the corpus never holds but a homophone of which it does is a typo (退火 → 退货).
    // An English question meets a Chinese help centre through the knowledge base's own words for its
    // English ones (english-lexicon.ts); the glossary's canonical terms come from the analysis.
    const translations =
      this.#options.englishLexicon !== false && hasEnglishWords(stripped)
        ? index.englishLexicon().translate(stripped)
        : [];
    const corrected = index.homophones.correct(analyzer.canonicalText(stripped));
    // A shopper's word the knowledge base never uses meets the policy's word for the same thing
    // through CC-CEDICT (代替 → 替换). Only for ranking: the evidence signal reads the question's own
    // words, so that a question about what the shop never mentions (转赠) does not look answered.
    // The question's own words are analysed once: the keyword lane and the evidence signal read them,
    // and the unknown ones among them are the ones paraphrased.
    const ownWords = analyzer.analyze([corrected, ...translations].join(' '));
    const unknown = this.#options.paraphrases === false ? [] : unknownWords(index, ownWords);
    const paraphrases = unknown.length > 0 ? index.englishLexicon().paraphrase(unknown) : [];
    const ownQuery = [corrected, ...translations].join(' ');
    const lexicalQuery = [ownQuery, ...paraphrases].join(' ');
    // A paraphrase is the dictionary's guess at what the shopper meant; the shopper's own words, a
    // code above all, weigh more (「洗衣机显示 E4」: 显示 becomes 打开, which must not outweigh E4).
    const ngramWeight =
      paraphrases.length > 0 ? ownTermsFirst(analyzer.characterNgrams(ownQuery)) : undefined;
    const wordWeight = paraphrases.length > 0 ? ownTermsFirst(ownWords) : undefined;
    const lanes: Partial<Record<LaneName, LaneHit[]>> = {};
    const identifiers = extractIdentifiers(trimmed);
    if (weights.exact > 0 && identifiers.length > 0)
      lanes.exact = index.identifiers.search(identifiers, depth, allowed);
    // Always computed: its top cosine is the low-evidence signal, even when the lane's weight is 0.
    const ngramHits = index.ngrams.cosine(
      analyzer.characterNgrams(lexicalQuery),
      depth,
      allowed,
      ngramWeight,
    );
    if (weights.ngram > 0) lanes.ngram = ngramHits;
    // Always computed, like the n-gram lane: its top score is the low-evidence signal.
    const keywordHits = index.words.bm25(
      paraphrases.length === 0 ? ownWords : [...ownWords, ...analyzer.analyze(paraphrases.join(' '))],
      depth,
      allowed,
      wordWeight,
    );
    if (weights.bm25 > 0) lanes.bm25 = keywordHits;
    const evidenceHits = paraphrases.length === 0 ? keywordHits : index.words.bm25(ownWords, 1, allowed);
    if (weights.pinyin > 0 && index.pinyin)
      lanes.pinyin = index.pinyin.bm25(analyzer.pinyinTerms(lexicalQuery), depth, allowed);
    if (weights.vector > 0 && index.vectors && this.#options.embedder) {
      const [vector] = await this.#options.embedder.embed(
        [trimmed],
        options.signal ? { signal: options.signal } : {},
      );
      if (vector?.some((value) => value !== 0)) {
        lanes.vector = index.vectors.search(vector, depth, allowed);
      }
    }

    const fused = reciprocalRankFusion(lanes, weights, {
      k: this.#options.rrfK ?? 60,
      scoreShare: this.#options.fusionScoreShare ?? DEFAULT_FUSION_SCORE_SHARE,
    });
    // An identifier asked for scopes the question to the documents that hold it.
    const scoped =
      lanes.exact !== undefined && lanes.exact.length > 0
        ? orderByIdentifierScope(index, analyzer, {
            fused,
            exact: lanes.exact,
            identifiers,
            question: [stripped, ...translations].join(' '),
            depth,
            allowed,
            weights,
            rrfK: this.#options.rrfK ?? 60,
          })
        : { ordered: fused, inScope: 0 };
    const reranker =
      this.#options.reranker !== undefined && this.#rerankerBreaker.acquire()
        ? this.#options.reranker
        : undefined;
    const candidates = reranker
      ? Math.max(topK, this.#options.rerankCandidates ?? DEFAULT_RERANK_CANDIDATES)
      : topK;
    const passages = distinctPassages(index.passages, scoped.ordered, candidates, topK);
    const candidateHits = passages.map(({ best, matched }) =>
      toSearchHit(index, best, index.passages.context(matched, contextChars)),
    );
    const reranked = reranker
      ? await this.#rerank(reranker, trimmed, candidateHits, {
          keep: topK,
          // The identifier's scope is the first `inScope` of the order: a passage whose best clause is there.
          pinned: passages.map(({ best }) => scoped.ordered.indexOf(best) < scoped.inScope),
          ...(options.signal ? { signal: options.signal } : {}),
        })
      : { hits: candidateHits.slice(0, topK), topScore: undefined };
    const { hits, topScore: topRerankScore } = reranked;
    const exactMatches = lanes.exact?.length ?? 0;
    const evidence: SearchEvidence = {
      exactMatches,
      topNgramCosine: ngramHits[0]?.score ?? 0,
      topKeywordScore: (evidenceHits[0]?.score ?? 0) / unseenWordIdf(index.chunks.length),
      ...(topRerankScore === undefined ? {} : { topRerankScore }),
    };
    const threshold =
      topRerankScore === undefined
        ? (this.#options.lowEvidenceScore ?? DEFAULT_LOW_EVIDENCE_SCORE)
        : (this.#options.rerankLowEvidenceScore ?? DEFAULT_RERANK_LOW_EVIDENCE_SCORE);
    return {
      query: trimmed,
      hits,
      lowEvidence: evidenceStrength(evidence) < threshold,
      evidence,
      tookMs: performance.now() - started,
    };
  }
}

function filterPredicate(index: LoadedIndex, filter: SearchFilter): (chunk: number) => boolean {
  const docIds = filter.docIds ? new Set(filter.docIds) : undefined;
  const kinds = filter.kinds ? new Set(filter.kinds) : undefined;
  return (position) => {
    const chunk = index.chunks[position];
    if (chunk === undefined) return false;
    if (docIds && !docIds.has(chunk.docId)) return false;
    if (filter.pathPrefix !== undefined && !chunk.docId.startsWith(filter.pathPrefix)) return false;
    const kind = index.documents.get(chunk.docId)?.kind;
    return !(kinds && (kind === undefined || !kinds.has(kind)));
  };
}

/** A lane's query term weight: 1 for the question's own terms, {@link PARAPHRASE_WEIGHT} for the rest. */
function ownTermsFirst(ownTerms: readonly string[]): (term: string) => number {
  const own = new Set(ownTerms);
  return (term) => (own.has(term) ? 1 : PARAPHRASE_WEIGHT);
}

/** BM25's idf (Lucene's, as the keyword lane uses) of a word no clause has, in a corpus of `size`. */
function unseenWordIdf(size: number): number {
  return Math.log(1 + (size + 0.5) / 0.5);
}

function toSearchHit(index: LoadedIndex, best: FusedHit, context: PassageContext): SearchHit {
  const chunk = index.chunks[best.index] as StoredChunk;
  const document = index.documents.get(chunk.docId);
  const path = document?.sourcePath ?? chunk.docId;
  return {
    chunkId: chunk.chunkId,
    docId: chunk.docId,
    title: document?.title ?? chunk.headingPath[0] ?? chunk.docId,
    // A copy: loaded chunks share heading path arrays, and a caller may change its hit.
    headingPath: [...chunk.headingPath],
    text: chunk.text,
    context: context.text,
    highlights: context.highlights,
    contextLines: context.lines,
    score: best.score,
    lanes: best.lanes,
    source: { path, line: chunk.line, clause: chunk.clause, citation: `${path}#L${chunk.line}` },
  };
}
