import type { DocumentKind } from './chunking/index.ts';
import type { Embedder } from './embedder.ts';
import { HomophoneCorrector } from './homophone-correction.ts';
import { type IngestOptions, type IngestSummary, ingestPaths } from './ingest.ts';
import type { KnowledgeStore, StoredChunk, StoredDocument } from './knowledge-store.ts';
import {
  extractIdentifiers,
  IdentifierIndex,
  InvertedIndex,
  type LaneHit,
  VectorIndex,
} from './lanes/index.ts';
import { type LaneName, type LaneRank, reciprocalRankFusion } from './reciprocal-rank-fusion.ts';
import { RetrievalError } from './retrieval-error.ts';
import { defaultTextAnalyzer, stripQuestionForm, type TextAnalyzer } from './text/index.ts';

export interface SearchFilter {
  docIds?: readonly string[];
  kinds?: readonly DocumentKind[];
  /** Only documents whose path starts with this, e.g. `policies/`. */
  pathPrefix?: string;
}

export interface SearchOptions {
  topK?: number;
  filter?: SearchFilter;
  signal?: AbortSignal;
}

/** Where a hit comes from, precise enough to cite: the file, the line and the clause number. */
export interface SearchSource {
  path: string;
  line: number;
  clause: number;
  /** `path#L12`, for links and citations. */
  citation: string;
}

export interface SearchHit {
  chunkId: string;
  docId: string;
  /** The document's title. */
  title: string;
  /** From the title down to the clause's section: the parent section is the last entry. */
  headingPath: string[];
  text: string;
  /** The fused score: it ranks hits of one query and says nothing about whether one is right. */
  score: number;
  lanes: Partial<Record<LaneName, LaneRank>>;
  source: SearchSource;
}

export interface SearchResult {
  query: string;
  hits: SearchHit[];
  /**
   * True when no lane found convincing evidence: no exact identifier match and the best clause
   * covers little of the question. The agent should then say it does not know.
   */
  lowEvidence: boolean;
  evidence: { exactMatches: number; topNgramCosine: number };
  tookMs: number;
}

export interface KnowledgeBaseOptions {
  store: KnowledgeStore;
  /** Enables the vector lane (chunks must have been embedded by the same model). */
  embedder?: Embedder;
  /** Fusion weights per lane; 0 turns a lane off. */
  weights?: Partial<Record<LaneName, number>>;
  /** Reciprocal rank fusion constant. Default 60. */
  rrfK?: number;
  /** Below this top n-gram cosine (and without an exact match) evidence is low. */
  lowEvidenceCosine?: number;
  /**
   * The text analysis of documents and queries. Default: general resources only. A domain passes
   * `createTextAnalyzer({ synonyms })` with its own table (e.g. src/domains/novashop/synonyms.txt).
   */
  analyzer?: TextAnalyzer;
}

/** The offline default: the character n-gram lane leads, as measured (docs/retrieval.md). */
export const DEFAULT_LANE_WEIGHTS: Readonly<Record<LaneName, number>> = {
  exact: 2,
  ngram: 1,
  bm25: 0.3,
  // Off by default: homophone correction of the query fixes the typos it was for (dev typo R@3 1.00
  // without the lane, 0.86 with it), and as a bigram lane it helps only with a shop's table
  // (docs/retrieval.md). Weight > 0 builds it.
  pinyin: 0,
  vector: 1,
};
export const DEFAULT_LOW_EVIDENCE_COSINE = 0.1;

interface LoadedIndex {
  chunks: StoredChunk[];
  documents: Map<string, StoredDocument>;
  words: InvertedIndex;
  ngrams: InvertedIndex;
  homophones: HomophoneCorrector;
  /** Pinyin bigrams (homophone typos); undefined when the lane's weight is 0. */
  pinyin: InvertedIndex | undefined;
  identifiers: IdentifierIndex;
  vectors: VectorIndex | undefined;
}

/**
 * Hybrid search over the knowledge store: an exact identifier lane, BM25 over Chinese-aware words,
 * tf-idf cosine over character n-grams and, with an embedder, a vector lane, fused by reciprocal
 * rank. It returns evidence with sources, never a verdict.
 */
export class KnowledgeBase {
  readonly #options: KnowledgeBaseOptions;
  #index: LoadedIndex;

  private constructor(options: KnowledgeBaseOptions, index: LoadedIndex) {
    this.#options = options;
    this.#index = index;
  }

  static async open(options: KnowledgeBaseOptions): Promise<KnowledgeBase> {
    return new KnowledgeBase(options, await buildIndex(options));
  }

  get chunkCount(): number {
    return this.#index.chunks.length;
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

  /** Ingest files or folders into the store, then rebuild the indexes. */
  async ingest(
    paths: readonly string[],
    options: Omit<IngestOptions, 'store' | 'embedder'> = {},
  ): Promise<IngestSummary> {
    const summary = await ingestPaths(paths, {
      ...options,
      store: this.#options.store,
      ...(this.#options.embedder ? { embedder: this.#options.embedder } : {}),
    });
    this.#index = await buildIndex(this.#options);
    return summary;
  }

  async search(query: string, options: SearchOptions = {}): Promise<SearchResult> {
    const started = performance.now();
    const trimmed = query.trim();
    if (trimmed.length === 0) throw new RetrievalError('empty_query', 'the query is empty');
    const topK = options.topK ?? 5;
    if (!Number.isInteger(topK) || topK <= 0)
      throw new RangeError(`topK must be a positive integer, got ${topK}`);
    const index = this.#index;
    const analyzer = this.#options.analyzer ?? defaultTextAnalyzer();
    const weights = { ...DEFAULT_LANE_WEIGHTS, ...this.#options.weights };
    const allowed = options.filter ? filterPredicate(index, options.filter) : undefined;
    const depth = Math.max(topK * 4, 50);

    // The lexical lanes look for what is asked about, not for the asking (怎么 / 能不能 / 吗).
    const stripped = stripQuestionForm(trimmed);
    // A character pair the corpus never holds but a homophone of which it does is a typo (退火 → 退货).
    const lexicalQuery = index.homophones.correct(analyzer.canonicalText(stripped));
    const lanes: Partial<Record<LaneName, LaneHit[]>> = {};
    const identifiers = extractIdentifiers(trimmed);
    if (weights.exact > 0 && identifiers.length > 0)
      lanes.exact = index.identifiers.search(identifiers, depth, allowed);
    // Always computed: its top cosine is the low-evidence signal, even when the lane's weight is 0.
    const ngramHits = index.ngrams.cosine(analyzer.characterNgrams(lexicalQuery), depth, allowed);
    if (weights.ngram > 0) lanes.ngram = ngramHits;
    if (weights.bm25 > 0) lanes.bm25 = index.words.bm25(analyzer.analyze(lexicalQuery), depth, allowed);
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

    const fused = reciprocalRankFusion(lanes, weights, this.#options.rrfK ?? 60);
    // A clause holding the exact identifier asked for outranks every near miss, whatever the fusion.
    const ordered = [
      ...fused.filter((hit) => hit.lanes.exact !== undefined),
      ...fused.filter((hit) => hit.lanes.exact === undefined),
    ];
    const hits = ordered.slice(0, topK).map((hit) => toSearchHit(index, hit.index, hit.score, hit.lanes));
    const exactMatches = lanes.exact?.length ?? 0;
    // The low-evidence threshold was calibrated on the whole question, whose 能退吗 also meets an FAQ
    // question's: the question form stays in this signal, though not in the ranking.
    const topNgramCosine = Math.max(
      ngramHits[0]?.score ?? 0,
      lexicalQuery === trimmed
        ? 0
        : (index.ngrams.cosine(analyzer.characterNgrams(trimmed), 1, allowed)[0]?.score ?? 0),
    );
    const threshold = this.#options.lowEvidenceCosine ?? DEFAULT_LOW_EVIDENCE_COSINE;
    return {
      query: trimmed,
      hits,
      lowEvidence: exactMatches === 0 && topNgramCosine < threshold,
      evidence: { exactMatches, topNgramCosine },
      tookMs: performance.now() - started,
    };
  }
}

async function buildIndex(options: KnowledgeBaseOptions): Promise<LoadedIndex> {
  const { embedder } = options;
  const analyzer = options.analyzer ?? defaultTextAnalyzer();
  const [chunks, documentList] = await Promise.all([
    options.store.loadChunks(embedder ? { embeddingModel: embedder.model } : {}),
    options.store.listDocuments(),
  ]);
  const documents = new Map(documentList.map((document) => [document.docId, document]));
  let vectors: VectorIndex | undefined;
  if (embedder) {
    const own = chunks.map((chunk) => (chunk.embeddingModel === embedder.model ? chunk.embedding : null));
    const dimensions = own.find((vector) => vector !== null)?.length ?? embedder.dimensions;
    if (own.some((vector) => vector !== null)) vectors = new VectorIndex(own, dimensions);
    // The index holds its own normalised copy; a second one per chunk would double the memory.
    for (const chunk of chunks) chunk.embedding = null;
  }
  const ngrams = new InvertedIndex(chunks.length, (position) =>
    analyzer.characterNgrams(contextualText(chunks[position] as StoredChunk)),
  );
  return {
    chunks,
    documents,
    homophones: new HomophoneCorrector(ngrams.terms()),
    words: new InvertedIndex(chunks.length, (position) =>
      analyzer.analyze(contextualText(chunks[position] as StoredChunk)),
    ),
    ngrams,
    pinyin:
      (options.weights?.pinyin ?? DEFAULT_LANE_WEIGHTS.pinyin) > 0
        ? new InvertedIndex(chunks.length, (position) =>
            analyzer.pinyinTerms(contextualText(chunks[position] as StoredChunk)),
          )
        : undefined,
    identifiers: new IdentifierIndex(chunks.map((chunk) => chunk.indexText)),
    vectors,
  };
}

/**
 * What the lexical lanes index for a chunk: its section headings and its text. A clause often leaves
 * its subject to its heading (「整机享受 1 年保修」 under 「Apple Watch Series 12 › 售后」), and a
 * question names the subject.
 */
function contextualText(chunk: StoredChunk): string {
  return `${chunk.headingPath.join('\n')}\n${chunk.indexText}`;
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

function toSearchHit(
  index: LoadedIndex,
  position: number,
  score: number,
  lanes: Partial<Record<LaneName, LaneRank>>,
): SearchHit {
  const chunk = index.chunks[position] as StoredChunk;
  const document = index.documents.get(chunk.docId);
  const path = document?.sourcePath ?? chunk.docId;
  return {
    chunkId: chunk.chunkId,
    docId: chunk.docId,
    title: document?.title ?? chunk.headingPath[0] ?? chunk.docId,
    headingPath: chunk.headingPath,
    text: chunk.text,
    score,
    lanes,
    source: { path, line: chunk.line, clause: chunk.clause, citation: `${path}#L${chunk.line}` },
  };
}
