import { createHash } from 'node:crypto';
import type { DocumentKind } from './chunking/index.ts';
import type { Embedder } from './embedder.ts';
import { HomophoneCorrector } from './homophone-correction.ts';
import { type IngestOptions, type IngestSummary, ingestPaths } from './ingest.ts';
import type { KnowledgeStore, StoredChunk, StoredDocument, StoredFieldTerms } from './knowledge-store.ts';
import {
  ANN_MIN_VECTORS,
  extractIdentifiers,
  IdentifierIndex,
  InvertedIndex,
  type LaneHit,
  normalizeIdentifierText,
  VectorIndex,
} from './lanes/index.ts';
import {
  contextualText,
  fieldTerms,
  IDENTIFIER_FIELD,
  type LexicalField,
  lexicalFieldFingerprint,
  NGRAM_FIELD,
  WORD_FIELD,
} from './lexical-fields.ts';
import { type ContextSpan, type PassageContext, PassageIndex } from './passage-index.ts';
import {
  type FusedHit,
  type LaneName,
  type LaneRank,
  reciprocalRankFusion,
} from './reciprocal-rank-fusion.ts';
import { RetrievalError } from './retrieval-error.ts';
import { TermPacker } from './term-packer.ts';
import { defaultTextAnalyzer, stripQuestionForm, type TextAnalyzer } from './text/index.ts';

export interface SearchFilter {
  docIds?: readonly string[];
  kinds?: readonly DocumentKind[];
  /** Only documents whose path starts with this, e.g. `policies/`. */
  pathPrefix?: string;
}

export interface SearchOptions {
  /** How many distinct passages to return. */
  topK?: number;
  filter?: SearchFilter;
  signal?: AbortSignal;
  /** Longest `context`, in characters; overrides `KnowledgeBaseOptions.contextChars`. */
  contextChars?: number;
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
  /** The clause that matched best: the unit that was scored. */
  text: string;
  /**
   * The clause's parent passage (paragraph, list item, table or FAQ entry; its heading path is
   * `headingPath`), whole when it fits the cap, else the matched clauses and their neighbours with
   * `…` where clauses are left out. Other clauses of the passage that matched are merged in here
   * rather than returned as hits of their own.
   */
  context: string;
  /** Where the matched clauses are in `context`, `text` first. */
  highlights: ContextSpan[];
  /** The source line of each line of `context` (split at `\n`), to cite a quote from it precisely. */
  contextLines: number[];
  /** The fused score: it ranks hits of one query and says nothing about whether one is right. */
  score: number;
  lanes: Partial<Record<LaneName, LaneRank>>;
  source: SearchSource;
}

export interface SearchResult {
  query: string;
  /** At most one hit per passage: top-K means K distinct passages. */
  hits: SearchHit[];
  /**
   * True when no lane found convincing evidence: no exact identifier match, and the best keyword
   * score is under `lowEvidenceScore`. The agent should then say it does not know.
   */
  lowEvidence: boolean;
  evidence: SearchEvidence;
  tookMs: number;
}

/** The signals behind `lowEvidence`, for people and for calibration (`kb eval`). */
export interface SearchEvidence {
  /** Clauses holding an identifier the question quotes, e.g. a SKU. */
  exactMatches: number;
  /** The best clause's tf-idf cosine with the question over character n-grams. */
  topNgramCosine: number;
  /**
   * The best clause's BM25 score over the question's words, in units of the idf of a word the
   * knowledge base does not have: about how many rare question words one clause matches. Raw BM25
   * grows with the log of the corpus size; in these units a threshold carries from a 500-clause
   * shop to a 100,000-clause one. Measured as the signal that best tells answerable questions from
   * unanswerable ones on the dev set (docs/retrieval.md).
   */
  topKeywordScore: number;
}

/**
 * How strong a search's evidence is, as one number for ranking and calibration: an exact identifier
 * match is as strong as it gets; otherwise the top keyword score.
 */
export function evidenceStrength(evidence: SearchEvidence): number {
  return evidence.exactMatches > 0 ? Number.POSITIVE_INFINITY : evidence.topKeywordScore;
}

export interface KnowledgeBaseOptions {
  store: KnowledgeStore;
  /** Enables the vector lane (chunks must have been embedded by the same model). */
  embedder?: Embedder;
  /** Fusion weights per lane; 0 turns a lane off. */
  weights?: Partial<Record<LaneName, number>>;
  /** Reciprocal rank fusion constant. Default 60. */
  rrfK?: number;
  /**
   * Below this top keyword score (and without an exact match) evidence is low. Default
   * {@link DEFAULT_LOW_EVIDENCE_SCORE}; `kb eval` prints the best threshold for a labelled set.
   */
  lowEvidenceScore?: number;
  /** Longest `context` of a hit, in characters. Default {@link DEFAULT_CONTEXT_CHARS}. */
  contextChars?: number;
  /**
   * The text analysis of documents and queries. Default: general resources only. A domain passes
   * `createTextAnalyzer({ synonyms })` with its own table (e.g. src/domains/novashop/synonyms.txt).
   */
  analyzer?: TextAnalyzer;
  /**
   * Told once per open when stored terms were made by another text analysis and every chunk is
   * re-analysed (slow at scale, and worth knowing). Default: a line on stderr.
   */
  onNotice?: (message: string) => void;
}

/** How the last open built the lexical indexes. */
export interface IndexBuildReport {
  /** Chunks analysed at open, per field: 0 when every chunk's stored terms were reused. */
  analysedChunks: Record<string, number>;
  /** Fields whose stored terms came from another analysis (or another field version). */
  staleFields: string[];
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
/** Fitted on the NovaShop dev set (Youden's J); see docs/retrieval.md for both sets' counts. */
export const DEFAULT_LOW_EVIDENCE_SCORE = 0.9;
/**
 * About three policy sentences: enough for the clause next to the match, while four hits stay
 * near 1,200 characters of evidence for the model.
 */
export const DEFAULT_CONTEXT_CHARS = 300;
/**
 * Another clause of a hit's passage counts as matched (kept in its context first, and highlighted)
 * when it is among this many fused hits per result slot. Ranks, not scores: fused scores are
 * reciprocal ranks, too flat to draw a line through.
 */
const SIBLING_DEPTH_PER_SLOT = 2;

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
  passages: PassageIndex;
  /** Settles when the vector lane's graph is attached or built (and stored), or needs none. */
  vectorGraph: Promise<void>;
  report: IndexBuildReport;
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
    return new KnowledgeBase(options, await buildIndex(options));
  }

  get chunkCount(): number {
    return this.#index.chunks.length;
  }

  /** How the lexical indexes were built at the last open or ingest: from stored terms or by analysis. */
  get buildReport(): IndexBuildReport {
    return this.#index.report;
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
    options: Omit<IngestOptions, 'store' | 'embedder' | 'analyzer'> = {},
  ): Promise<IngestSummary> {
    const summary = await ingestPaths(paths, {
      ...options,
      store: this.#options.store,
      ...(this.#options.embedder ? { embedder: this.#options.embedder } : {}),
      ...(this.#options.analyzer ? { analyzer: this.#options.analyzer } : {}),
    });
    this.#index.vectors?.cancelBuild();
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
    const lexicalQuery = index.homophones.correct(analyzer.canonicalText(stripped));
    const lanes: Partial<Record<LaneName, LaneHit[]>> = {};
    const identifiers = extractIdentifiers(trimmed);
    if (weights.exact > 0 && identifiers.length > 0)
      lanes.exact = index.identifiers.search(identifiers, depth, allowed);
    // Always computed: its top cosine is the low-evidence signal, even when the lane's weight is 0.
    const ngramHits = index.ngrams.cosine(analyzer.characterNgrams(lexicalQuery), depth, allowed);
    if (weights.ngram > 0) lanes.ngram = ngramHits;
    // Always computed, like the n-gram lane: its top score is the low-evidence signal.
    const keywordHits = index.words.bm25(analyzer.analyze(lexicalQuery), depth, allowed);
    if (weights.bm25 > 0) lanes.bm25 = keywordHits;
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
    let scopedFused: FusedHit[] | undefined;
    // An identifier asked for scopes the question to the documents that hold it; within them the
    // rest of the question, without the identifier, ranks the clauses (see `scopedByIdentifier`).
    if (lanes.exact !== undefined && lanes.exact.length > 0) {
      const scope = new Set(lanes.exact.map((hit) => (index.chunks[hit.index] as StoredChunk).docId));
      const inScope = (position: number) =>
        (allowed === undefined || allowed(position)) &&
        scope.has((index.chunks[position] as StoredChunk).docId);
      let rest = normalizeIdentifierText(stripped);
      for (const identifier of identifiers) rest = rest.replaceAll(identifier, ' ');
      const restQuery = index.homophones.correct(analyzer.canonicalText(rest));
      scopedFused = reciprocalRankFusion(
        {
          exact: lanes.exact,
          ngram: index.ngrams.cosine(analyzer.characterNgrams(restQuery), depth, inScope),
          bm25: index.words.bm25(analyzer.analyze(restQuery), depth, inScope),
        },
        weights,
        this.#options.rrfK ?? 60,
      );
    }
    const ordered =
      scopedFused !== undefined
        ? scopedByIdentifier(index, scopedFused, fused, identifiers)
        : [
            ...fused.filter((hit) => hit.lanes.exact !== undefined),
            ...fused.filter((hit) => hit.lanes.exact === undefined),
          ];
    const hits = distinctPassages(index.passages, ordered, topK).map(({ best, matched }) => {
      const context = index.passages.context(matched, contextChars);
      return toSearchHit(index, best, context);
    });
    const exactMatches = lanes.exact?.length ?? 0;
    const evidence: SearchEvidence = {
      exactMatches,
      topNgramCosine: ngramHits[0]?.score ?? 0,
      topKeywordScore: (keywordHits[0]?.score ?? 0) / unseenWordIdf(index.chunks.length),
    };
    const threshold = this.#options.lowEvidenceScore ?? DEFAULT_LOW_EVIDENCE_SCORE;
    return {
      query: trimmed,
      hits,
      lowEvidence: evidenceStrength(evidence) < threshold,
      evidence,
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
  const vectorGraph =
    embedder && vectors ? prepareVectorGraph(options, embedder.model, chunks, vectors) : undefined;
  const report: IndexBuildReport = { analysedChunks: {}, staleFields: [] };
  const words = InvertedIndex.fromPackedTerms(
    ...(await loadFieldTerms(options, analyzer, chunks, WORD_FIELD, report)),
  );
  const ngrams = InvertedIndex.fromPackedTerms(
    ...(await loadFieldTerms(options, analyzer, chunks, NGRAM_FIELD, report)),
  );
  const identifiers = IdentifierIndex.fromPackedTerms(
    ...(await loadFieldTerms(options, analyzer, chunks, IDENTIFIER_FIELD, report)),
  );
  return {
    chunks,
    documents,
    homophones: new HomophoneCorrector(ngrams.terms()),
    words,
    ngrams,
    // Off by default, so not stored: analysed at open when a weight turns it on.
    pinyin:
      (options.weights?.pinyin ?? DEFAULT_LANE_WEIGHTS.pinyin) > 0
        ? new InvertedIndex(chunks.length, (position) =>
            analyzer.pinyinTerms(contextualText(chunks[position] as StoredChunk)),
          )
        : undefined,
    identifiers,
    vectors,
    passages: new PassageIndex(chunks),
    vectorGraph: (await vectorGraph)?.done ?? Promise.resolve(),
    report,
  };
}

/**
 * Give the vector lane its ANN graph: the stored one when it was built over exactly these rows,
 * otherwise one built in the background (searches stay exact meanwhile) and stored when done, so
 * only the first open after an ingest pays for it. `done` settles when that background work has.
 */
async function prepareVectorGraph(
  options: KnowledgeBaseOptions,
  model: string,
  chunks: readonly StoredChunk[],
  vectors: VectorIndex,
): Promise<{ done: Promise<void> }> {
  // Wrapped in an object: an async function returning a bare promise would wait for it.
  if (vectors.vectorCount < ANN_MIN_VECTORS) return { done: Promise.resolve() };
  const hash = createHash('sha256');
  hash.update(`${vectors.dimensions}\n`);
  for (const chunk of vectors.rowChunks) hash.update(`${(chunks[chunk] as StoredChunk).chunkId}\n`);
  const rowsHash = hash.digest('hex');
  const stored = await options.store.loadVectorGraph(model);
  if (stored?.rowsHash === rowsHash && vectors.attachGraph(stored.graph)) return { done: Promise.resolve() };
  const done = vectors
    .buildGraph()
    .then(async (graph) => {
      if (graph) await options.store.saveVectorGraph(model, { rowsHash, graph: graph.toBytes() });
    })
    .catch((error: unknown) => {
      // Rebuilt at the next open; the searches were right either way.
      (options.onNotice ?? console.error)(`runstream: the vector graph was not stored: ${String(error)}`);
    });
  return { done };
}

/**
 * A lexical field's terms in chunk order, as the arguments of an index's `fromPackedTerms`: the
 * terms stored at ingest when they were made by the analysis in force. Chunks without usable stored
 * terms (a store written before terms were kept, or a changed analysis) are analysed now and their
 * terms stored, so the next open is fast again.
 */
async function loadFieldTerms(
  options: KnowledgeBaseOptions,
  analyzer: TextAnalyzer,
  chunks: readonly StoredChunk[],
  field: LexicalField,
  report: IndexBuildReport,
): Promise<[size: number, dictionary: (string | undefined)[], packedOf: (chunk: number) => Uint8Array]> {
  const { store } = options;
  const fingerprint = lexicalFieldFingerprint(field, analyzer);
  let stored = await store.loadTerms(field.name);
  const stale = stored.fingerprint !== null && stored.fingerprint !== fingerprint;
  // One lookup per chunk, position by position: at 100,000 chunks a second pass of lookups by id
  // measured a tenth of the open.
  const inOrder = (terms: StoredFieldTerms): (Uint8Array | undefined)[] =>
    chunks.map((chunk) => terms.byChunk.get(chunk.chunkId));
  // Terms of another analysis are of no use: every chunk is analysed again.
  let packedByPosition = stale ? new Array<undefined>(chunks.length).fill(undefined) : inOrder(stored);
  const missing = chunks.filter((_, position) => packedByPosition[position] === undefined);
  report.analysedChunks[field.name] = missing.length;
  if (stale) report.staleFields.push(field.name);
  if (missing.length > 0) {
    // Said once per open: analysing is what makes a large open slow, and a changed analysis means
    // the stored terms would not have matched the queries'.
    const notice = options.onNotice ?? ((message: string) => process.stderr.write(`${message}\n`));
    notice(
      stale
        ? `runstream: the ${field.name} terms in the knowledge store were analysed by ${stored.fingerprint}, ` +
            `not ${fingerprint}; re-analysing ${missing.length} chunks and storing their terms`
        : `runstream: ${missing.length} chunks have no stored ${field.name} terms; analysing and storing them`,
    );
  }
  if (missing.length > 0) {
    const packer = new TermPacker();
    const analysed = missing.map((chunk) => ({
      chunkId: chunk.chunkId,
      packed: packer.pack(fieldTerms(field, chunk, analyzer)),
    }));
    await store.putTerms([
      { field: field.name, fingerprint, dictionary: packer.dictionary, chunks: analysed },
    ]);
    stored = await store.loadTerms(field.name);
    packedByPosition = inOrder(stored);
    // Only when another process ingested between the reads: opening again sees both changes.
    if (packedByPosition.includes(undefined))
      throw new Error('the knowledge store changed while it was being opened; open it again');
  }
  const inPosition = packedByPosition;
  return [chunks.length, stored.dictionary, (position) => inPosition[position] as Uint8Array];
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

/**
 * An identifier names what the question is about more often than it holds the answer: 「FM-SEA-0508
 * 解冻后还能再冷冻吗」 is answered on that product's page by a clause that does not repeat the SKU. So
 * the clauses that hold an identifier asked for, and the clauses of the same documents that hold no
 * other identifier, come first, in fused order; then the rest. A clause naming another identifier (a
 * near miss: NS-X2-BLK-L for NS-X2-BLK-M) never outranks one in scope.
 */
function scopedByIdentifier(
  index: LoadedIndex,
  scoped: readonly FusedHit[],
  fused: readonly FusedHit[],
  asked: readonly string[],
): FusedHit[] {
  const wanted = new Set(asked);
  const inScope = (hit: FusedHit) =>
    hit.lanes.exact !== undefined ||
    extractIdentifiers((index.chunks[hit.index] as StoredChunk).indexText).every((identifier) =>
      wanted.has(identifier),
    );
  const first = scoped.filter(inScope);
  const taken = new Set(first.map((hit) => hit.index));
  return [...first, ...fused.filter((hit) => !taken.has(hit.index))];
}

/** BM25's idf (Lucene's, as the keyword lane uses) of a word no clause has, in a corpus of `size`. */
function unseenWordIdf(size: number): number {
  return Math.log(1 + (size + 0.5) / 0.5);
}

/**
 * The first `topK` passages in fused order, each with its best clause and the other clauses of it
 * among the first `topK × SIBLING_DEPTH_PER_SLOT` fused hits. A passage fills one slot, however many
 * of its clauses matched; the next-best passage takes the next.
 */
function distinctPassages(
  passages: PassageIndex,
  ordered: readonly FusedHit[],
  topK: number,
): { best: FusedHit; matched: number[] }[] {
  const picked: { best: FusedHit; matched: number[] }[] = [];
  const slotOf = new Map<number, { best: FusedHit; matched: number[] }>();
  const siblingDepth = topK * SIBLING_DEPTH_PER_SLOT;
  for (const [rank, hit] of ordered.entries()) {
    const passage = passages.passageOf(hit.index);
    const slot = slotOf.get(passage);
    if (slot !== undefined) {
      if (rank < siblingDepth) slot.matched.push(hit.index);
      continue;
    }
    if (picked.length === topK) {
      if (rank >= siblingDepth) break;
      continue;
    }
    const entry = { best: hit, matched: [hit.index] };
    slotOf.set(passage, entry);
    picked.push(entry);
  }
  return picked;
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
