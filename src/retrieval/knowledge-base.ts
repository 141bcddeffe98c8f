import { createHash } from 'node:crypto';
import type { DocumentKind } from './chunking/index.ts';
import type { Embedder } from './embedder.ts';
import { type IngestOptions, type IngestSummary, ingestPaths } from './ingest.ts';
import type { KnowledgeStore, StoredChunk, StoredDocument, StoredFieldTerms } from './knowledge-store.ts';
import {
  ANN_MIN_VECTORS,
  extractIdentifiers,
  IdentifierIndex,
  InvertedIndex,
  type LaneHit,
  VectorIndex,
} from './lanes/index.ts';
import {
  fieldTerms,
  IDENTIFIER_FIELD,
  type LexicalField,
  lexicalFieldFingerprint,
  NGRAM_FIELD,
  WORD_FIELD,
} from './lexical-fields.ts';
import { type LaneName, type LaneRank, reciprocalRankFusion } from './reciprocal-rank-fusion.ts';
import { RetrievalError } from './retrieval-error.ts';
import { TermPacker } from './term-packer.ts';
import { analyze, characterNgrams } from './text/index.ts';

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
  vector: 1,
};
export const DEFAULT_LOW_EVIDENCE_COSINE = 0.1;

interface LoadedIndex {
  chunks: StoredChunk[];
  documents: Map<string, StoredDocument>;
  words: InvertedIndex;
  ngrams: InvertedIndex;
  identifiers: IdentifierIndex;
  vectors: VectorIndex | undefined;
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
      (lane) => weights[lane] > 0 && (lane !== 'vector' || this.#index.vectors !== undefined),
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
    const index = this.#index;
    const weights = { ...DEFAULT_LANE_WEIGHTS, ...this.#options.weights };
    const allowed = options.filter ? filterPredicate(index, options.filter) : undefined;
    const depth = Math.max(topK * 4, 50);

    const lanes: Partial<Record<LaneName, LaneHit[]>> = {};
    const identifiers = extractIdentifiers(trimmed);
    if (weights.exact > 0 && identifiers.length > 0)
      lanes.exact = index.identifiers.search(identifiers, depth, allowed);
    // Always computed: its top cosine is the low-evidence signal, even when the lane's weight is 0.
    const ngramHits = index.ngrams.cosine(characterNgrams(trimmed), depth, allowed);
    if (weights.ngram > 0) lanes.ngram = ngramHits;
    if (weights.bm25 > 0) lanes.bm25 = index.words.bm25(analyze(trimmed), depth, allowed);
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
    const topNgramCosine = ngramHits[0]?.score ?? 0;
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
  const words = InvertedIndex.fromPackedTerms(...(await loadFieldTerms(options, chunks, WORD_FIELD, report)));
  const ngrams = InvertedIndex.fromPackedTerms(
    ...(await loadFieldTerms(options, chunks, NGRAM_FIELD, report)),
  );
  const identifiers = IdentifierIndex.fromPackedTerms(
    ...(await loadFieldTerms(options, chunks, IDENTIFIER_FIELD, report)),
  );
  return {
    chunks,
    documents,
    words,
    ngrams,
    identifiers,
    vectors,
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
  chunks: readonly StoredChunk[],
  field: LexicalField,
  report: IndexBuildReport,
): Promise<[size: number, dictionary: (string | undefined)[], packedOf: (chunk: number) => Uint8Array]> {
  const { store } = options;
  const fingerprint = lexicalFieldFingerprint(field);
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
      packed: packer.pack(fieldTerms(field, chunk)),
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
    // A copy: loaded chunks share heading path arrays, and a caller may change its hit.
    headingPath: [...chunk.headingPath],
    text: chunk.text,
    score,
    lanes,
    source: { path, line: chunk.line, clause: chunk.clause, citation: `${path}#L${chunk.line}` },
  };
}
