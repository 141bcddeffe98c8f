import { createHash } from 'node:crypto';
import { documentsNamedBy } from './document-names.ts';
import type { Embedder } from './embedder.ts';
import { EnglishLexicon, readCedictEntries } from './english-lexicon.ts';
import { HomophoneCorrector } from './homophone-correction.ts';
import type { KnowledgeStore, StoredChunk, StoredDocument, StoredFieldTerms } from './knowledge-store.ts';
import {
  ANN_MIN_VECTORS,
  decodePostings,
  encodePostings,
  IdentifierIndex,
  InvertedIndex,
  type InvertedIndexPostings,
  postingsFromPacked,
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
import { PassageIndex } from './passage-index.ts';
import { PackedTermsWriter, readPackedTerms, TermPacker } from './term-packer.ts';
import { defaultTextAnalyzer, type TextAnalyzer } from './text/index.ts';

export interface KnowledgeIndexOptions {
  store: KnowledgeStore;
  embedder?: Embedder | undefined;
  analyzer?: TextAnalyzer | undefined;
  /** Build the pinyin lane's index (off by default, so its terms are not stored: analysed here). */
  pinyinLane: boolean;
  /** Where a line worth an operator's attention goes (`KnowledgeBaseOptions.onNotice`). */
  onNotice: (message: string) => void;
}

/** How the last open built the lexical indexes. */
export interface IndexBuildReport {
  /** Chunks analysed at open, per field: 0 when every chunk's stored terms were reused. */
  analysedChunks: Record<string, number>;
  /** Fields whose stored terms came from another analysis (or another field version). */
  staleFields: string[];
  /** Fields whose postings were read whole from the store, without reading any chunk's terms. */
  storedPostings: string[];
}

/** What a search reads: loaded once per open, replaced whole after an ingest. */
export interface LoadedIndex {
  chunks: StoredChunk[];
  documents: Map<string, StoredDocument>;
  /** Identifier → the documents it names in their title or file name (`document-names.ts`). */
  namedBy: Map<string, Set<string>>;
  words: InvertedIndex;
  ngrams: InvertedIndex;
  homophones: HomophoneCorrector;
  /** Pinyin bigrams (homophone typos); undefined when the lane's weight is 0. */
  pinyin: InvertedIndex | undefined;
  identifiers: IdentifierIndex;
  vectors: VectorIndex | undefined;
  passages: PassageIndex;
  /**
   * English to this knowledge base's Chinese words, and its paraphrases of words it lacks, built on
   * first use: the first question with a Latin word of two letters or more (English, or a name like
   * Apple Watch) or with a Chinese word no clause holds pays for reading CC-CEDICT (0.3 to 1 s,
   * during which this process serves nothing else). Built again after an ingest, with the new
   * vocabulary.
   */
  englishLexicon: () => EnglishLexicon;
  /** Settles when the vector lane's graph is attached or built (and stored), or needs none. */
  vectorGraph: Promise<void>;
  report: IndexBuildReport;
}

/**
 * Load the search indexes from the store: chunks, documents, the lexical indexes from the terms stored
 * at ingest (analysing only chunks whose stored terms are missing or of another analysis), the
 * vectors of the embedder's model with their ANN graph, and the passages.
 */
export async function loadKnowledgeIndex(options: KnowledgeIndexOptions): Promise<LoadedIndex> {
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
  const report: IndexBuildReport = { analysedChunks: {}, staleFields: [], storedPostings: [] };
  const rowsHash = chunkRowsHash(chunks);
  const postingsOf = (field: LexicalField) =>
    loadFieldPostings(options, analyzer, chunks, field, report, rowsHash);
  const words = new InvertedIndex(chunks.length, await postingsOf(WORD_FIELD));
  const ngrams = new InvertedIndex(chunks.length, await postingsOf(NGRAM_FIELD));
  const identifiers = IdentifierIndex.fromPostings(await postingsOf(IDENTIFIER_FIELD));
  return {
    chunks,
    documents,
    namedBy: documentsNamedBy(documents.values()),
    homophones: new HomophoneCorrector(ngrams.terms()),
    words,
    ngrams,
    // Off by default, so not stored: analysed at open when a weight turns it on.
    pinyin: options.pinyinLane
      ? new InvertedIndex(chunks.length, (position) =>
          analyzer.pinyinTerms(contextualText(chunks[position] as StoredChunk)),
        )
      : undefined,
    identifiers,
    vectors,
    passages: new PassageIndex(chunks),
    englishLexicon: lazyEnglishLexicon(words, options.onNotice),
    vectorGraph: (await vectorGraph)?.done ?? Promise.resolve(),
    report,
  };
}

function lazyEnglishLexicon(words: InvertedIndex, notice: (message: string) => void): () => EnglishLexicon {
  let lexicon: EnglishLexicon | undefined;
  return () => {
    if (lexicon !== undefined) return lexicon;
    // Built once per loaded index, also when it fails: a broken dictionary must not cost every
    // English question another read, nor fail the search.
    lexicon = EnglishLexicon.empty();
    try {
      const entries = readCedictEntries();
      if (entries === undefined) {
        notice(
          'the cc-cedict package is not installed; English questions are matched through the glossary only',
        );
      } else {
        lexicon = EnglishLexicon.fromGlosses(entries, (word) => words.documentFrequency(word));
      }
    } catch (error) {
      notice(
        `CC-CEDICT could not be read (${(error as Error).message}); English questions are matched through the glossary only`,
      );
    }
    return lexicon;
  };
}

/**
 * Give the vector lane its ANN graph: the stored one when it was built over exactly these rows,
 * otherwise one built in the background (searches stay exact meanwhile) and stored when done, so
 * only the first open after an ingest pays for it. `done` settles when that background work has.
 */
async function prepareVectorGraph(
  options: KnowledgeIndexOptions,
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
      // A read-only open keeps the graph it built for itself.
      if (graph && !options.store.readOnly)
        await options.store.saveVectorGraph(model, { rowsHash, graph: graph.toBytes() });
    })
    .catch((error: unknown) => {
      // Rebuilt at the next open; the searches were right either way.
      options.onNotice(`the vector graph was not stored: ${String(error)}`);
    });
  return { done };
}

/** The chunk ids in index order, hashed: what stored postings must have been built over. */
function chunkRowsHash(chunks: readonly StoredChunk[]): string {
  const hash = createHash('sha256');
  for (const chunk of chunks) hash.update(`${chunk.chunkId}\n`);
  return hash.digest('hex');
}

/**
 * A lexical field's postings: read whole from the store when they were built over these chunk rows
 * with this analysis, otherwise built from the chunks' stored terms (`loadFieldTerms`) and stored,
 * so that only the first open after an ingest reads every chunk's terms.
 */
async function loadFieldPostings(
  options: KnowledgeIndexOptions,
  analyzer: TextAnalyzer,
  chunks: readonly StoredChunk[],
  field: LexicalField,
  report: IndexBuildReport,
  rowsHash: string,
): Promise<InvertedIndexPostings> {
  const fingerprint = lexicalFieldFingerprint(field, analyzer);
  const stored = await options.store.loadPostings(field.name);
  if (stored?.fingerprint === fingerprint && stored.rowsHash === rowsHash) {
    try {
      const postings = decodePostings(stored.postings, chunks.length);
      report.analysedChunks[field.name] = 0;
      report.storedPostings.push(field.name);
      return postings;
    } catch {
      // Unreadable (written by another version, or damaged): built again from the terms below.
    }
  }
  const postings = postingsFromPacked(...(await loadFieldTerms(options, analyzer, chunks, field, report)));
  if (options.store.readOnly) return postings;
  try {
    await options.store.savePostings(field.name, {
      fingerprint,
      rowsHash,
      postings: encodePostings(postings),
    });
  } catch (error) {
    // A read-only store still opens; the next open builds them from the terms again.
    options.onNotice(`the ${field.name} postings were not stored: ${String(error)}`);
  }
  return postings;
}

/**
 * A lexical field's terms in chunk order, as the arguments of `postingsFromPacked`: the
 * terms stored at ingest when they were made by the analysis in force. Chunks without usable stored
 * terms (a store written before terms were kept, or a changed analysis) are analysed now and their
 * terms stored, so the next open is fast again.
 */
async function loadFieldTerms(
  options: KnowledgeIndexOptions,
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
    const storing = store.readOnly ? 'for this open (the store is read-only)' : 'and storing their terms';
    options.onNotice(
      stale
        ? `the ${field.name} terms in the knowledge store were analysed by ${stored.fingerprint}, ` +
            `not ${fingerprint}; re-analysing ${missing.length} chunks ${storing}`
        : `${missing.length} chunks have no stored ${field.name} terms; analysing them ${storing}`,
    );
  }
  if (missing.length > 0) {
    const packer = new TermPacker();
    const analysed = missing.map((chunk) => ({
      chunkId: chunk.chunkId,
      packed: packer.pack(fieldTerms(field, chunk, analyzer)),
    }));
    if (store.readOnly) {
      // Merged in memory as the store would merge them, so the index is the one a writable open builds.
      const merged = mergeTerms(stale ? EMPTY_TERMS : stored, packer.dictionary, analysed);
      const inMemory = inOrder(merged);
      return [chunks.length, merged.dictionary, (position) => inMemory[position] as Uint8Array];
    }
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

const EMPTY_TERMS: StoredFieldTerms = { fingerprint: null, dictionary: [], byChunk: new Map() };

/**
 * Stored terms plus chunks packed against another dictionary, with the packer's ids translated into
 * the stored dictionary (new terms get the next ids), as `SqliteKnowledgeStore.putTerms` stores them:
 * what a read-only open searches with instead of storing.
 */
function mergeTerms(
  stored: StoredFieldTerms,
  dictionary: readonly string[],
  chunks: readonly { chunkId: string; packed: Uint8Array }[],
): StoredFieldTerms {
  const merged = [...stored.dictionary];
  const known = new Map<string, number>();
  merged.forEach((term, id) => {
    if (term !== undefined) known.set(term, id);
  });
  const ids = dictionary.map((term) => {
    let id = known.get(term);
    if (id === undefined) {
      id = merged.length;
      merged.push(term);
      known.set(term, id);
    }
    return id;
  });
  const byChunk = new Map(stored.byChunk);
  for (const { chunkId, packed } of chunks) {
    const writer = new PackedTermsWriter(packed.length + 8);
    readPackedTerms(packed, (local, count) => writer.write(ids[local] as number, count));
    byChunk.set(chunkId, writer.finish());
  }
  return { fingerprint: stored.fingerprint, dictionary: merged, byChunk };
}
