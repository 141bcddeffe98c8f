import type { DocumentKind } from './chunking/index.ts';

/**
 * The namespace of a store opened without one. A namespace is one knowledge base (an agent's id):
 * documents, chunks, terms and indexes of different namespaces share a file and nothing else.
 */
export const DEFAULT_KNOWLEDGE_NAMESPACE = 'default';

export interface StoredDocument {
  docId: string;
  sourcePath: string;
  title: string;
  kind: DocumentKind;
  contentHash: string;
  chunkCount: number;
  updatedAt: number;
  /**
   * The absolute path of the file it was read from at its last ingest: what decides whether an
   * ingest of a folder owns it, and what its source is read from. Null for a document stored before
   * paths were recorded, until an ingest sees it again.
   */
  filePath: string | null;
}

export interface StoredChunk {
  chunkId: string;
  docId: string;
  /** Position in the whole store, for stable tie-breaking: documents in id order, clauses in order. */
  ordinal: number;
  headingPath: string[];
  text: string;
  indexText: string;
  line: number;
  clause: number;
  /**
   * The clause's parent passage within its document (see `ChunkDraft.parent`); null for a chunk
   * stored before passages were recorded, which then stands alone until its document is ingested
   * again.
   */
  parent: number | null;
  /** The embedder's `model` that produced `embedding`, or null when the chunk was not embedded. */
  embeddingModel: string | null;
  embedding: Float32Array | null;
}

/** Everything one ingest changes, applied at once or not at all. */
export interface KnowledgeChangeSet {
  upsertDocuments: StoredDocument[];
  removeDocuments: string[];
  /**
   * Chunks of changed documents: new ones are inserted; kept ones (same id, so same text) only get
   * their new line, clause and parent number, and keep their embedding.
   */
  putChunks: Omit<StoredChunk, 'ordinal'>[];
  removeChunks: string[];
  /** Vectors for chunks that are kept but were embedded by another model (or not at all). */
  setEmbeddings: { chunkId: string; embeddingModel: string; embedding: Float32Array }[];
  /** Analysed terms of inserted chunks, per lexical field, so that opening needs no analyser. */
  putTerms?: ChunkTermsChange[];
  /** Unchanged documents now read from another file path (a moved checkout, or a migrated row). */
  setFilePaths?: { docId: string; filePath: string }[];
}

/**
 * One lexical field's analysed terms for some chunks, as `TermPacker` packs them: `packed` holds
 * (term id, count) varint pairs, ids into `dictionary`. `fingerprint` names the analysis that produced them;
 * terms stored under another fingerprint are dropped for the field, since the two do not match.
 */
export interface ChunkTermsChange {
  field: string;
  fingerprint: string;
  dictionary: readonly string[];
  chunks: { chunkId: string; packed: Uint8Array }[];
}

/** One lexical field's stored terms: `dictionary[id]` is a term; `byChunk` has packed (id, count) pairs. */
export interface StoredFieldTerms {
  /** The analysis they were produced by, or null when the field has none stored. */
  fingerprint: string | null;
  dictionary: (string | undefined)[];
  byChunk: Map<string, Uint8Array>;
}

/**
 * Where the knowledge base lives. SQLite (the product's one file) by default; PostgreSQL comes with
 * the scale-out work. Asynchronous so that a networked implementation fits the same interface.
 */
export interface KnowledgeStore {
  /** The knowledge base this store reads and writes; every method sees only its rows. */
  readonly namespace: string;
  /**
   * Opened for reading only: nothing is written, not even the caches of an open (terms analysed
   * again, postings, the vector graph), which are then built in memory; `apply` and `putTerms` throw.
   */
  readonly readOnly: boolean;
  listDocuments(): Promise<StoredDocument[]>;
  /** The ids of a document's chunks, with the model of their embedding (null when none). */
  chunkIdsOf(docId: string): Promise<Map<string, string | null>>;
  /** Apply a change set atomically: a failure leaves the store as it was. */
  apply(changes: KnowledgeChangeSet): Promise<void>;
  /**
   * Every chunk, documents in id order and clauses in order, for building the search indexes.
   * Vectors are loaded only for `embeddingModel` (others come back null): at 100,000 chunks they are
   * the largest part of the store, and the lexical lanes need none.
   */
  loadChunks(options?: { embeddingModel?: string }): Promise<StoredChunk[]>;
  /** A lexical field's stored terms, for building its index without the analyser. */
  loadTerms(field: string): Promise<StoredFieldTerms>;
  /** Store analysed terms of existing chunks (replacing theirs), atomically. */
  putTerms(changes: readonly ChunkTermsChange[]): Promise<void>;
  /**
   * A lexical field's whole postings as stored by `savePostings`, if the stored terms are still of
   * the analysis they were built from; `apply` and `putTerms` drop the postings they make stale.
   */
  loadPostings(field: string): Promise<StoredPostings | undefined>;
  savePostings(field: string, postings: StoredPostings): Promise<void>;
  /** The ANN graph stored for a model's vectors, if any. */
  loadVectorGraph(embeddingModel: string): Promise<StoredVectorGraph | undefined>;
  saveVectorGraph(embeddingModel: string, graph: StoredVectorGraph): Promise<void>;
}

/**
 * An HNSW graph over a model's vectors (`HnswGraph.toBytes`). `rowsHash` names the rows it was built
 * over (their chunk ids, in order): a graph whose rows are not the current ones is rebuilt.
 */
export interface StoredVectorGraph {
  rowsHash: string;
  graph: Uint8Array;
}

/** One lexical field's postings (`encodePostings`), with what they were built over. */
export interface StoredPostings {
  /** The analysis of the terms they were built from (`lexicalFieldFingerprint`). */
  fingerprint: string;
  /** Hash of the chunk ids in the order the index numbers them. */
  rowsHash: string;
  postings: Uint8Array;
}
