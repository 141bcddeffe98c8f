import type { Database } from 'better-sqlite3';
import type { DocumentKind } from './chunking/index.ts';
import {
  type ChunkTermsChange,
  DEFAULT_KNOWLEDGE_NAMESPACE,
  type KnowledgeChangeSet,
  type KnowledgeStore,
  type StoredChunk,
  type StoredDocument,
  type StoredFieldTerms,
  type StoredPostings,
  type StoredVectorGraph,
} from './knowledge-store.ts';
import { RetrievalError } from './retrieval-error.ts';
import { PackedTermsWriter, readPackedTerms } from './term-packer.ts';

/**
 * Each entry is one schema version; the store records how many it applied. Tables are prefixed
 * `kb_` because they share the product's SQLite file with runs, messages and users.
 */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE kb_documents (
     doc_id TEXT PRIMARY KEY,
     source_path TEXT NOT NULL,
     title TEXT NOT NULL,
     kind TEXT NOT NULL,
     content_hash TEXT NOT NULL,
     chunk_count INTEGER NOT NULL,
     updated_at INTEGER NOT NULL
   );
   CREATE TABLE kb_chunks (
     chunk_id TEXT PRIMARY KEY,
     doc_id TEXT NOT NULL REFERENCES kb_documents(doc_id) ON DELETE CASCADE,
     heading_path TEXT NOT NULL,
     text TEXT NOT NULL,
     index_text TEXT NOT NULL,
     line INTEGER NOT NULL,
     clause INTEGER NOT NULL,
     embedding_model TEXT,
     embedding BLOB
   );
   CREATE INDEX kb_chunks_by_document ON kb_chunks(doc_id, clause);`,
  // The parent passage of each clause; null until its document is chunked again.
  'ALTER TABLE kb_chunks ADD COLUMN parent INTEGER;',
  // Analysed terms of the lexical lanes, so that opening a large index reads them instead of running
  // jieba, OpenCC and the n-gram cutter over every chunk. Tables of their own, keyed by field: a new
  // lane is a new `field` value. `terms` packs (term id, count) pairs as varints (`TermPacker`).
  `CREATE TABLE kb_term_fields (
     field TEXT PRIMARY KEY,
     fingerprint TEXT NOT NULL
   );
   CREATE TABLE kb_terms (
     field TEXT NOT NULL,
     term_id INTEGER NOT NULL,
     term TEXT NOT NULL,
     PRIMARY KEY (field, term_id)
   ) WITHOUT ROWID;
   CREATE TABLE kb_chunk_terms (
     chunk_id TEXT NOT NULL REFERENCES kb_chunks(chunk_id) ON DELETE CASCADE,
     field TEXT NOT NULL,
     terms BLOB NOT NULL,
     PRIMARY KEY (chunk_id, field)
   ) WITHOUT ROWID;
   CREATE TABLE kb_vector_graphs (
     embedding_model TEXT PRIMARY KEY,
     rows_hash TEXT NOT NULL,
     graph BLOB NOT NULL
   );`,
  // Each lexical field's whole postings (`encodePostings`), so that an open reads one value per field
  // instead of every chunk's terms. Valid for the chunk rows it was built over (`rows_hash`) and the
  // analysis of the stored terms (`fingerprint`); any change to the chunks or terms deletes it.
  `CREATE TABLE kb_postings (
     field TEXT PRIMARY KEY,
     fingerprint TEXT NOT NULL,
     rows_hash TEXT NOT NULL,
     postings BLOB NOT NULL
   );`,
  // Namespaces: one file holds the knowledge bases of several agents, each independent (the same
  // document path, chunk id, term or lane in two of them are two rows). SQLite cannot change a
  // primary key in place, so every table is built again under a new name, filled from the old one
  // (whose rows become the default namespace's), and renamed back; a rename carries the foreign
  // keys that name it. `file_path` records where each document was read from, so that an ingest of
  // a folder removes only documents it owns.
  `CREATE TABLE kb_documents_next (
     namespace TEXT NOT NULL,
     doc_id TEXT NOT NULL,
     source_path TEXT NOT NULL,
     title TEXT NOT NULL,
     kind TEXT NOT NULL,
     content_hash TEXT NOT NULL,
     chunk_count INTEGER NOT NULL,
     updated_at INTEGER NOT NULL,
     file_path TEXT,
     PRIMARY KEY (namespace, doc_id)
   );
   CREATE TABLE kb_chunks_next (
     namespace TEXT NOT NULL,
     chunk_id TEXT NOT NULL,
     doc_id TEXT NOT NULL,
     heading_path TEXT NOT NULL,
     text TEXT NOT NULL,
     index_text TEXT NOT NULL,
     line INTEGER NOT NULL,
     clause INTEGER NOT NULL,
     parent INTEGER,
     embedding_model TEXT,
     embedding BLOB,
     PRIMARY KEY (namespace, chunk_id),
     FOREIGN KEY (namespace, doc_id) REFERENCES kb_documents_next(namespace, doc_id) ON DELETE CASCADE
   );
   CREATE TABLE kb_term_fields_next (
     namespace TEXT NOT NULL,
     field TEXT NOT NULL,
     fingerprint TEXT NOT NULL,
     PRIMARY KEY (namespace, field)
   );
   CREATE TABLE kb_terms_next (
     namespace TEXT NOT NULL,
     field TEXT NOT NULL,
     term_id INTEGER NOT NULL,
     term TEXT NOT NULL,
     PRIMARY KEY (namespace, field, term_id)
   ) WITHOUT ROWID;
   CREATE TABLE kb_chunk_terms_next (
     namespace TEXT NOT NULL,
     chunk_id TEXT NOT NULL,
     field TEXT NOT NULL,
     terms BLOB NOT NULL,
     PRIMARY KEY (namespace, chunk_id, field),
     FOREIGN KEY (namespace, chunk_id) REFERENCES kb_chunks_next(namespace, chunk_id) ON DELETE CASCADE
   ) WITHOUT ROWID;
   CREATE TABLE kb_vector_graphs_next (
     namespace TEXT NOT NULL,
     embedding_model TEXT NOT NULL,
     rows_hash TEXT NOT NULL,
     graph BLOB NOT NULL,
     PRIMARY KEY (namespace, embedding_model)
   );
   CREATE TABLE kb_postings_next (
     namespace TEXT NOT NULL,
     field TEXT NOT NULL,
     fingerprint TEXT NOT NULL,
     rows_hash TEXT NOT NULL,
     postings BLOB NOT NULL,
     PRIMARY KEY (namespace, field)
   );
   INSERT INTO kb_documents_next
     SELECT '${DEFAULT_KNOWLEDGE_NAMESPACE}', doc_id, source_path, title, kind, content_hash, chunk_count, updated_at, NULL
     FROM kb_documents;
   INSERT INTO kb_chunks_next
     SELECT '${DEFAULT_KNOWLEDGE_NAMESPACE}', chunk_id, doc_id, heading_path, text, index_text, line, clause, parent,
       embedding_model, embedding
     FROM kb_chunks;
   INSERT INTO kb_term_fields_next SELECT '${DEFAULT_KNOWLEDGE_NAMESPACE}', field, fingerprint FROM kb_term_fields;
   INSERT INTO kb_terms_next SELECT '${DEFAULT_KNOWLEDGE_NAMESPACE}', field, term_id, term FROM kb_terms;
   INSERT INTO kb_chunk_terms_next SELECT '${DEFAULT_KNOWLEDGE_NAMESPACE}', chunk_id, field, terms FROM kb_chunk_terms;
   INSERT INTO kb_vector_graphs_next
     SELECT '${DEFAULT_KNOWLEDGE_NAMESPACE}', embedding_model, rows_hash, graph FROM kb_vector_graphs;
   INSERT INTO kb_postings_next
     SELECT '${DEFAULT_KNOWLEDGE_NAMESPACE}', field, fingerprint, rows_hash, postings FROM kb_postings;
   DROP TABLE kb_chunk_terms;
   DROP TABLE kb_chunks;
   DROP TABLE kb_documents;
   DROP TABLE kb_term_fields;
   DROP TABLE kb_terms;
   DROP TABLE kb_vector_graphs;
   DROP TABLE kb_postings;
   ALTER TABLE kb_documents_next RENAME TO kb_documents;
   ALTER TABLE kb_chunks_next RENAME TO kb_chunks;
   ALTER TABLE kb_term_fields_next RENAME TO kb_term_fields;
   ALTER TABLE kb_terms_next RENAME TO kb_terms;
   ALTER TABLE kb_chunk_terms_next RENAME TO kb_chunk_terms;
   ALTER TABLE kb_vector_graphs_next RENAME TO kb_vector_graphs;
   ALTER TABLE kb_postings_next RENAME TO kb_postings;
   CREATE INDEX kb_chunks_by_document ON kb_chunks(namespace, doc_id, clause);`,
];

interface ChunkRow {
  chunk_id: string;
  doc_id: string;
  heading_path: string;
  text: string;
  index_text: string;
  line: number;
  clause: number;
  parent: number | null;
  embedding_model: string | null;
  embedding: Buffer | null;
}

interface DocumentRow {
  doc_id: string;
  source_path: string;
  title: string;
  kind: string;
  content_hash: string;
  chunk_count: number;
  updated_at: number;
  file_path: string | null;
}

export interface SqliteKnowledgeStoreOptions {
  /** The knowledge base to open: an agent's id. Default {@link DEFAULT_KNOWLEDGE_NAMESPACE}. */
  namespace?: string;
}

/** One namespace of a file, as `SqliteKnowledgeStore.namespaces` lists them. */
export interface KnowledgeNamespaceSummary {
  namespace: string;
  documents: number;
  chunks: number;
}

/** Longer than any agent id; a longer namespace is a mistake, not a name. */
const MAX_NAMESPACE_LENGTH = 128;

/**
 * One namespace of the knowledge tables in a SQLite file. A database opened read-only
 * (`new Database(path, { readonly: true })`) gives a read-only store: it neither migrates nor
 * writes, and reads a file without knowledge tables as empty.
 */
export class SqliteKnowledgeStore implements KnowledgeStore {
  readonly namespace: string;
  readonly readOnly: boolean;
  readonly #database: Database;
  /** False only for a read-only file that has no knowledge tables: every read is then empty. */
  readonly #hasTables: boolean;

  constructor(database: Database, options: SqliteKnowledgeStoreOptions = {}) {
    const namespace = options.namespace ?? DEFAULT_KNOWLEDGE_NAMESPACE;
    if (typeof namespace !== 'string' || namespace.length === 0 || namespace.length > MAX_NAMESPACE_LENGTH)
      throw new RangeError(
        `a knowledge namespace is a non-empty string of at most ${MAX_NAMESPACE_LENGTH} characters`,
      );
    this.namespace = namespace;
    this.#database = database;
    this.readOnly = database.readonly;
    database.pragma('foreign_keys = ON');
    if (this.readOnly) {
      const version = schemaVersion(database);
      if (version !== undefined && version !== MIGRATIONS.length) {
        throw new RetrievalError(
          'invalid_source',
          version > MIGRATIONS.length
            ? `the knowledge tables are at schema ${version}, newer than this version of runstream knows`
            : `the knowledge tables are at schema ${version}, older than this version of runstream's ${MIGRATIONS.length}: ` +
                'open the file once for writing (runstream kb ingest, or the server) to upgrade them',
        );
      }
      this.#hasTables = version !== undefined;
    } else {
      migrate(database);
      this.#hasTables = true;
    }
  }

  /** Every namespace with documents in the file, by name. */
  static namespaces(database: Database): KnowledgeNamespaceSummary[] {
    if (schemaVersion(database) !== MIGRATIONS.length) return [];
    return database
      .prepare(
        `SELECT namespace, count(*) AS documents, sum(chunk_count) AS chunks FROM kb_documents
         GROUP BY namespace ORDER BY namespace`,
      )
      .all() as KnowledgeNamespaceSummary[];
  }

  async listDocuments(): Promise<StoredDocument[]> {
    if (!this.#hasTables) return [];
    const rows = this.#database
      .prepare('SELECT * FROM kb_documents WHERE namespace = ? ORDER BY doc_id')
      .all(this.namespace) as DocumentRow[];
    return rows.map((row) => ({
      docId: row.doc_id,
      sourcePath: row.source_path,
      title: row.title,
      kind: row.kind as DocumentKind,
      contentHash: row.content_hash,
      chunkCount: row.chunk_count,
      updatedAt: row.updated_at,
      filePath: row.file_path,
    }));
  }

  async chunkIdsOf(docId: string): Promise<Map<string, string | null>> {
    if (!this.#hasTables) return new Map();
    const rows = this.#database
      .prepare('SELECT chunk_id, embedding_model FROM kb_chunks WHERE namespace = ? AND doc_id = ?')
      .all(this.namespace, docId) as Pick<ChunkRow, 'chunk_id' | 'embedding_model'>[];
    return new Map(rows.map((row) => [row.chunk_id, row.embedding_model]));
  }

  async apply(changes: KnowledgeChangeSet): Promise<void> {
    this.#assertWritable();
    const database = this.#database;
    const namespace = this.namespace;
    const removeDocument = database.prepare('DELETE FROM kb_documents WHERE namespace = ? AND doc_id = ?');
    const upsertDocument = database.prepare(
      `INSERT INTO kb_documents (namespace, doc_id, source_path, title, kind, content_hash, chunk_count, updated_at, file_path)
       VALUES (@namespace, @docId, @sourcePath, @title, @kind, @contentHash, @chunkCount, @updatedAt, @filePath)
       ON CONFLICT(namespace, doc_id) DO UPDATE SET source_path = excluded.source_path, title = excluded.title,
         kind = excluded.kind, content_hash = excluded.content_hash, chunk_count = excluded.chunk_count,
         updated_at = excluded.updated_at, file_path = excluded.file_path`,
    );
    const setFilePath = database.prepare(
      'UPDATE kb_documents SET file_path = ? WHERE namespace = ? AND doc_id = ?',
    );
    const removeChunk = database.prepare('DELETE FROM kb_chunks WHERE namespace = ? AND chunk_id = ?');
    const insertChunk = database.prepare(
      `INSERT INTO kb_chunks (namespace, chunk_id, doc_id, heading_path, text, index_text, line, clause, parent, embedding_model, embedding)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const setEmbedding = database.prepare(
      'UPDATE kb_chunks SET embedding_model = ?, embedding = ? WHERE namespace = ? AND chunk_id = ?',
    );
    const updatePosition = database.prepare(
      'UPDATE kb_chunks SET line = ?, clause = ?, parent = ? WHERE namespace = ? AND chunk_id = ?',
    );
    const forgetPostings = database.prepare('DELETE FROM kb_postings WHERE namespace = ?');
    // Built over the chunk rows and terms as they were: any change of those makes them stale. New
    // vectors alone do not (nor does an ingest that changed nothing, nor a document's new file path).
    const changesLexicalIndex =
      changes.upsertDocuments.length > 0 ||
      changes.removeDocuments.length > 0 ||
      changes.putChunks.length > 0 ||
      changes.removeChunks.length > 0 ||
      (changes.putTerms?.length ?? 0) > 0;
    database.transaction(() => {
      if (changesLexicalIndex) forgetPostings.run(namespace);
      for (const docId of changes.removeDocuments) removeDocument.run(namespace, docId);
      for (const chunkId of changes.removeChunks) removeChunk.run(namespace, chunkId);
      for (const document of changes.upsertDocuments) upsertDocument.run({ ...document, namespace });
      for (const { docId, filePath } of changes.setFilePaths ?? [])
        setFilePath.run(filePath, namespace, docId);
      for (const chunk of changes.putChunks) {
        // A kept clause may have moved within its file; its id stays, its citation must follow.
        const moved = updatePosition.run(chunk.line, chunk.clause, chunk.parent, namespace, chunk.chunkId);
        if (moved.changes > 0) continue;
        insertChunk.run(
          namespace,
          chunk.chunkId,
          chunk.docId,
          JSON.stringify(chunk.headingPath),
          chunk.text,
          chunk.indexText,
          chunk.line,
          chunk.clause,
          chunk.parent,
          chunk.embeddingModel,
          chunk.embedding === null ? null : vectorToBlob(chunk.embedding),
        );
      }
      for (const update of changes.setEmbeddings) {
        setEmbedding.run(update.embeddingModel, vectorToBlob(update.embedding), namespace, update.chunkId);
      }
      for (const change of changes.putTerms ?? []) writeTerms(database, namespace, change);
    })();
  }

  async putTerms(changes: readonly ChunkTermsChange[]): Promise<void> {
    this.#assertWritable();
    const database = this.#database;
    const forgetPostings = database.prepare('DELETE FROM kb_postings WHERE namespace = ? AND field = ?');
    database.transaction(() => {
      for (const change of changes) {
        forgetPostings.run(this.namespace, change.field);
        writeTerms(database, this.namespace, change);
      }
    })();
  }

  async loadPostings(field: string): Promise<StoredPostings | undefined> {
    if (!this.#hasTables) return undefined;
    // Only postings of the analysis the stored terms have: the terms are what they were built from.
    const row = this.#database
      .prepare(
        `SELECT p.fingerprint, p.rows_hash, p.postings FROM kb_postings p
         JOIN kb_term_fields f ON f.namespace = p.namespace AND f.field = p.field AND f.fingerprint = p.fingerprint
         WHERE p.namespace = ? AND p.field = ?`,
      )
      .get(this.namespace, field) as { fingerprint: string; rows_hash: string; postings: Buffer } | undefined;
    return row === undefined
      ? undefined
      : { fingerprint: row.fingerprint, rowsHash: row.rows_hash, postings: row.postings };
  }

  async savePostings(field: string, postings: StoredPostings): Promise<void> {
    this.#assertWritable();
    const { buffer, byteOffset, byteLength } = postings.postings;
    this.#database
      .prepare(
        `INSERT INTO kb_postings (namespace, field, fingerprint, rows_hash, postings) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT(namespace, field) DO UPDATE SET fingerprint = excluded.fingerprint,
           rows_hash = excluded.rows_hash, postings = excluded.postings`,
      )
      .run(
        this.namespace,
        field,
        postings.fingerprint,
        postings.rowsHash,
        Buffer.from(buffer, byteOffset, byteLength),
      );
  }

  async loadVectorGraph(embeddingModel: string): Promise<StoredVectorGraph | undefined> {
    if (!this.#hasTables) return undefined;
    const row = this.#database
      .prepare('SELECT rows_hash, graph FROM kb_vector_graphs WHERE namespace = ? AND embedding_model = ?')
      .get(this.namespace, embeddingModel) as { rows_hash: string; graph: Buffer } | undefined;
    return row === undefined ? undefined : { rowsHash: row.rows_hash, graph: row.graph };
  }

  async saveVectorGraph(embeddingModel: string, graph: StoredVectorGraph): Promise<void> {
    this.#assertWritable();
    this.#database
      .prepare(
        `INSERT INTO kb_vector_graphs (namespace, embedding_model, rows_hash, graph) VALUES (?, ?, ?, ?)
         ON CONFLICT(namespace, embedding_model) DO UPDATE SET rows_hash = excluded.rows_hash, graph = excluded.graph`,
      )
      .run(
        this.namespace,
        embeddingModel,
        graph.rowsHash,
        Buffer.from(graph.graph.buffer, graph.graph.byteOffset, graph.graph.byteLength),
      );
  }

  async loadTerms(field: string): Promise<StoredFieldTerms> {
    if (!this.#hasTables) return { fingerprint: null, dictionary: [], byChunk: new Map() };
    const database = this.#database;
    const namespace = this.namespace;
    const row = database
      .prepare('SELECT fingerprint FROM kb_term_fields WHERE namespace = ? AND field = ?')
      .get(namespace, field) as { fingerprint: string } | undefined;
    const dictionary: (string | undefined)[] = [];
    const terms = database
      .prepare('SELECT term_id, term FROM kb_terms WHERE namespace = ? AND field = ?')
      .raw()
      .all(namespace, field) as [number, string][];
    for (const [id, term] of terms) dictionary[id] = term;
    // A scan of the terms table, matched to chunks by id: a join in chunk order reads every chunk
    // row again and measured twice as slow at 100,000 chunks.
    const byChunk = new Map<string, Uint8Array>();
    for (const [chunkId, blob] of database
      .prepare('SELECT chunk_id, terms FROM kb_chunk_terms WHERE namespace = ? AND field = ?')
      .raw()
      .iterate(namespace, field) as IterableIterator<[string, Buffer]>) {
      byChunk.set(chunkId, blob);
    }
    return { fingerprint: row?.fingerprint ?? null, dictionary, byChunk };
  }

  async loadChunks(options: { embeddingModel?: string } = {}): Promise<StoredChunk[]> {
    if (!this.#hasTables) return [];
    const rows = this.#database
      .prepare(
        `SELECT chunk_id, doc_id, heading_path, text, index_text, line, clause, parent, embedding_model,
           CASE WHEN embedding_model = ? THEN embedding END AS embedding
         FROM kb_chunks WHERE namespace = ? ORDER BY doc_id, clause, chunk_id`,
      )
      .all(options.embeddingModel ?? null, this.namespace) as ChunkRow[];
    // Clauses of one section share a heading path: parse each distinct one once (100,000 chunks
    // have a few thousand). Shared arrays: nothing downstream changes a heading path.
    const headingPaths = new Map<string, string[]>();
    const parseHeadingPath = (json: string) => {
      let parsed = headingPaths.get(json);
      if (parsed === undefined) {
        parsed = JSON.parse(json) as string[];
        headingPaths.set(json, parsed);
      }
      return parsed;
    };
    return rows.map((row, ordinal) => ({
      chunkId: row.chunk_id,
      docId: row.doc_id,
      ordinal,
      headingPath: parseHeadingPath(row.heading_path),
      text: row.text,
      indexText: row.index_text,
      line: row.line,
      clause: row.clause,
      parent: row.parent,
      embeddingModel: row.embedding_model,
      embedding: row.embedding === null ? null : blobToVector(row.embedding),
    }));
  }

  #assertWritable(): void {
    if (this.readOnly) throw new Error('the knowledge store is open read-only');
  }
}

/** The knowledge tables' schema version, or undefined when the file has none. */
function schemaVersion(database: Database): number | undefined {
  const table = database
    .prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'kb_schema'")
    .get();
  if (table === undefined) return undefined;
  const row = database.prepare('SELECT version FROM kb_schema').get() as { version: number } | undefined;
  return row?.version ?? 0;
}

function migrate(database: Database): void {
  const current = schemaVersion(database);
  if (current !== undefined && current > MIGRATIONS.length) {
    throw new Error(
      `the knowledge tables are at schema ${current}, newer than this version of runstream knows`,
    );
  }
  // Nothing to do is nothing written: an open of an up-to-date file leaves its bytes alone.
  if (current === MIGRATIONS.length) return;
  // Immediate, and the version read again inside: two processes opening an old file at once migrate
  // it once, the second waiting for the first instead of failing on the upgrade of its read lock.
  database
    .transaction(() => {
      database.exec('CREATE TABLE IF NOT EXISTS kb_schema (version INTEGER NOT NULL)');
      const row = database.prepare('SELECT version FROM kb_schema').get() as { version: number } | undefined;
      const applied = row?.version ?? 0;
      for (const statement of MIGRATIONS.slice(applied)) database.exec(statement);
      if (row === undefined)
        database.prepare('INSERT INTO kb_schema (version) VALUES (?)').run(MIGRATIONS.length);
      else database.prepare('UPDATE kb_schema SET version = ?').run(MIGRATIONS.length);
    })
    .immediate();
}

/**
 * Store one field's packed terms, translating the packer's ids into the field's stored dictionary
 * (new terms get the next ids). Terms of another analysis are dropped first: mixing them would make
 * the same word two terms. Runs inside the caller's transaction.
 */
function writeTerms(database: Database, namespace: string, change: ChunkTermsChange): void {
  const row = database
    .prepare('SELECT fingerprint FROM kb_term_fields WHERE namespace = ? AND field = ?')
    .get(namespace, change.field) as { fingerprint: string } | undefined;
  if (row?.fingerprint !== change.fingerprint) {
    database
      .prepare('DELETE FROM kb_chunk_terms WHERE namespace = ? AND field = ?')
      .run(namespace, change.field);
    database.prepare('DELETE FROM kb_terms WHERE namespace = ? AND field = ?').run(namespace, change.field);
    database
      .prepare(
        `INSERT INTO kb_term_fields (namespace, field, fingerprint) VALUES (?, ?, ?)
         ON CONFLICT(namespace, field) DO UPDATE SET fingerprint = excluded.fingerprint`,
      )
      .run(namespace, change.field, change.fingerprint);
  }
  const known = new Map<string, number>();
  let nextId = 0;
  for (const [id, term] of database
    .prepare('SELECT term_id, term FROM kb_terms WHERE namespace = ? AND field = ?')
    .raw()
    .iterate(namespace, change.field) as IterableIterator<[number, string]>) {
    known.set(term, id);
    if (id >= nextId) nextId = id + 1;
  }
  const insertTerm = database.prepare(
    'INSERT INTO kb_terms (namespace, field, term_id, term) VALUES (?, ?, ?, ?)',
  );
  const putChunkTerms = database.prepare(
    'INSERT OR REPLACE INTO kb_chunk_terms (namespace, chunk_id, field, terms) VALUES (?, ?, ?, ?)',
  );
  // The packer's id → the stored id, resolved once per term of the change.
  const storedIds = new Int32Array(change.dictionary.length).fill(-1);
  for (const { chunkId, packed } of change.chunks) {
    const writer = new PackedTermsWriter(packed.length + 8);
    readPackedTerms(packed, (local, count) => {
      let id = storedIds[local] ?? -1;
      if (id === -1) {
        const term = change.dictionary[local];
        if (term === undefined) throw new RangeError(`term id ${local} is not in the change's dictionary`);
        id = known.get(term) ?? -1;
        if (id === -1) {
          id = nextId;
          nextId += 1;
          known.set(term, id);
          insertTerm.run(namespace, change.field, id, term);
        }
        storedIds[local] = id;
      }
      writer.write(id, count);
    });
    const bytes = writer.finish();
    putChunkTerms.run(
      namespace,
      chunkId,
      change.field,
      Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    );
  }
}

function vectorToBlob(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

function blobToVector(blob: Buffer): Float32Array {
  // A view when the bytes are aligned for Float32 (100,000 copies of 1 KB are a second of an open);
  // a copy when the Buffer sits in a shared pool at an offset that is not.
  if (blob.byteOffset % 4 === 0) return new Float32Array(blob.buffer, blob.byteOffset, blob.byteLength / 4);
  const copy = new Uint8Array(blob.byteLength);
  copy.set(blob);
  return new Float32Array(copy.buffer);
}
