import type { Database } from 'better-sqlite3';
import type { DocumentKind } from './chunking/index.ts';
import type {
  ChunkTermsChange,
  KnowledgeChangeSet,
  KnowledgeStore,
  StoredChunk,
  StoredDocument,
  StoredFieldTerms,
  StoredPostings,
  StoredVectorGraph,
} from './knowledge-store.ts';
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
}

export class SqliteKnowledgeStore implements KnowledgeStore {
  readonly #database: Database;

  constructor(database: Database) {
    this.#database = database;
    database.pragma('foreign_keys = ON');
    migrate(database);
  }

  async listDocuments(): Promise<StoredDocument[]> {
    const rows = this.#database.prepare('SELECT * FROM kb_documents ORDER BY doc_id').all() as DocumentRow[];
    return rows.map((row) => ({
      docId: row.doc_id,
      sourcePath: row.source_path,
      title: row.title,
      kind: row.kind as DocumentKind,
      contentHash: row.content_hash,
      chunkCount: row.chunk_count,
      updatedAt: row.updated_at,
    }));
  }

  async chunkIdsOf(docId: string): Promise<Map<string, string | null>> {
    const rows = this.#database
      .prepare('SELECT chunk_id, embedding_model FROM kb_chunks WHERE doc_id = ?')
      .all(docId) as Pick<ChunkRow, 'chunk_id' | 'embedding_model'>[];
    return new Map(rows.map((row) => [row.chunk_id, row.embedding_model]));
  }

  async apply(changes: KnowledgeChangeSet): Promise<void> {
    const database = this.#database;
    const removeDocument = database.prepare('DELETE FROM kb_documents WHERE doc_id = ?');
    const upsertDocument = database.prepare(
      `INSERT INTO kb_documents (doc_id, source_path, title, kind, content_hash, chunk_count, updated_at)
       VALUES (@docId, @sourcePath, @title, @kind, @contentHash, @chunkCount, @updatedAt)
       ON CONFLICT(doc_id) DO UPDATE SET source_path = excluded.source_path, title = excluded.title,
         kind = excluded.kind, content_hash = excluded.content_hash, chunk_count = excluded.chunk_count,
         updated_at = excluded.updated_at`,
    );
    const removeChunk = database.prepare('DELETE FROM kb_chunks WHERE chunk_id = ?');
    const insertChunk = database.prepare(
      `INSERT INTO kb_chunks (chunk_id, doc_id, heading_path, text, index_text, line, clause, parent, embedding_model, embedding)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const setEmbedding = database.prepare(
      'UPDATE kb_chunks SET embedding_model = ?, embedding = ? WHERE chunk_id = ?',
    );
    const updatePosition = database.prepare(
      'UPDATE kb_chunks SET line = ?, clause = ?, parent = ? WHERE chunk_id = ?',
    );
    const forgetPostings = database.prepare('DELETE FROM kb_postings');
    // Built over the chunk rows and terms as they were: any change of those makes them stale. New
    // vectors alone do not (nor does an ingest that changed nothing).
    const changesLexicalIndex =
      changes.upsertDocuments.length > 0 ||
      changes.removeDocuments.length > 0 ||
      changes.putChunks.length > 0 ||
      changes.removeChunks.length > 0 ||
      (changes.putTerms?.length ?? 0) > 0;
    database.transaction(() => {
      if (changesLexicalIndex) forgetPostings.run();
      for (const docId of changes.removeDocuments) removeDocument.run(docId);
      for (const chunkId of changes.removeChunks) removeChunk.run(chunkId);
      for (const document of changes.upsertDocuments) upsertDocument.run(document);
      for (const chunk of changes.putChunks) {
        // A kept clause may have moved within its file; its id stays, its citation must follow.
        const moved = updatePosition.run(chunk.line, chunk.clause, chunk.parent, chunk.chunkId);
        if (moved.changes > 0) continue;
        insertChunk.run(
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
        setEmbedding.run(update.embeddingModel, vectorToBlob(update.embedding), update.chunkId);
      }
      for (const change of changes.putTerms ?? []) writeTerms(database, change);
    })();
  }

  async putTerms(changes: readonly ChunkTermsChange[]): Promise<void> {
    const database = this.#database;
    const forgetPostings = database.prepare('DELETE FROM kb_postings WHERE field = ?');
    database.transaction(() => {
      for (const change of changes) {
        forgetPostings.run(change.field);
        writeTerms(database, change);
      }
    })();
  }

  async loadPostings(field: string): Promise<StoredPostings | undefined> {
    // Only postings of the analysis the stored terms have: the terms are what they were built from.
    const row = this.#database
      .prepare(
        `SELECT p.fingerprint, p.rows_hash, p.postings FROM kb_postings p
         JOIN kb_term_fields f ON f.field = p.field AND f.fingerprint = p.fingerprint
         WHERE p.field = ?`,
      )
      .get(field) as { fingerprint: string; rows_hash: string; postings: Buffer } | undefined;
    return row === undefined
      ? undefined
      : { fingerprint: row.fingerprint, rowsHash: row.rows_hash, postings: row.postings };
  }

  async savePostings(field: string, postings: StoredPostings): Promise<void> {
    const { buffer, byteOffset, byteLength } = postings.postings;
    this.#database
      .prepare(
        `INSERT INTO kb_postings (field, fingerprint, rows_hash, postings) VALUES (?, ?, ?, ?)
         ON CONFLICT(field) DO UPDATE SET fingerprint = excluded.fingerprint,
           rows_hash = excluded.rows_hash, postings = excluded.postings`,
      )
      .run(field, postings.fingerprint, postings.rowsHash, Buffer.from(buffer, byteOffset, byteLength));
  }

  async loadVectorGraph(embeddingModel: string): Promise<StoredVectorGraph | undefined> {
    const row = this.#database
      .prepare('SELECT rows_hash, graph FROM kb_vector_graphs WHERE embedding_model = ?')
      .get(embeddingModel) as { rows_hash: string; graph: Buffer } | undefined;
    return row === undefined ? undefined : { rowsHash: row.rows_hash, graph: row.graph };
  }

  async saveVectorGraph(embeddingModel: string, graph: StoredVectorGraph): Promise<void> {
    this.#database
      .prepare(
        `INSERT INTO kb_vector_graphs (embedding_model, rows_hash, graph) VALUES (?, ?, ?)
         ON CONFLICT(embedding_model) DO UPDATE SET rows_hash = excluded.rows_hash, graph = excluded.graph`,
      )
      .run(
        embeddingModel,
        graph.rowsHash,
        Buffer.from(graph.graph.buffer, graph.graph.byteOffset, graph.graph.byteLength),
      );
  }

  async loadTerms(field: string): Promise<StoredFieldTerms> {
    const database = this.#database;
    const row = database.prepare('SELECT fingerprint FROM kb_term_fields WHERE field = ?').get(field) as
      | { fingerprint: string }
      | undefined;
    const dictionary: (string | undefined)[] = [];
    const terms = database.prepare('SELECT term_id, term FROM kb_terms WHERE field = ?').raw().all(field) as [
      number,
      string,
    ][];
    for (const [id, term] of terms) dictionary[id] = term;
    // A scan of the terms table, matched to chunks by id: a join in chunk order reads every chunk
    // row again and measured twice as slow at 100,000 chunks.
    const byChunk = new Map<string, Uint8Array>();
    for (const [chunkId, blob] of database
      .prepare('SELECT chunk_id, terms FROM kb_chunk_terms WHERE field = ?')
      .raw()
      .iterate(field) as IterableIterator<[string, Buffer]>) {
      byChunk.set(chunkId, blob);
    }
    return { fingerprint: row?.fingerprint ?? null, dictionary, byChunk };
  }

  async loadChunks(options: { embeddingModel?: string } = {}): Promise<StoredChunk[]> {
    const rows = this.#database
      .prepare(
        `SELECT chunk_id, doc_id, heading_path, text, index_text, line, clause, parent, embedding_model,
           CASE WHEN embedding_model = ? THEN embedding END AS embedding
         FROM kb_chunks ORDER BY doc_id, clause, chunk_id`,
      )
      .all(options.embeddingModel ?? null) as ChunkRow[];
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
}

function migrate(database: Database): void {
  database.exec('CREATE TABLE IF NOT EXISTS kb_schema (version INTEGER NOT NULL)');
  const row = database.prepare('SELECT version FROM kb_schema').get() as { version: number } | undefined;
  const current = row?.version ?? 0;
  if (current > MIGRATIONS.length) {
    throw new Error(
      `the knowledge tables are at schema ${current}, newer than this version of runstream knows`,
    );
  }
  database.transaction(() => {
    for (const statement of MIGRATIONS.slice(current)) database.exec(statement);
    if (row === undefined)
      database.prepare('INSERT INTO kb_schema (version) VALUES (?)').run(MIGRATIONS.length);
    else database.prepare('UPDATE kb_schema SET version = ?').run(MIGRATIONS.length);
  })();
}

/**
 * Store one field's packed terms, translating the packer's ids into the field's stored dictionary
 * (new terms get the next ids). Terms of another analysis are dropped first: mixing them would make
 * the same word two terms. Runs inside the caller's transaction.
 */
function writeTerms(database: Database, change: ChunkTermsChange): void {
  const row = database.prepare('SELECT fingerprint FROM kb_term_fields WHERE field = ?').get(change.field) as
    | { fingerprint: string }
    | undefined;
  if (row?.fingerprint !== change.fingerprint) {
    database.prepare('DELETE FROM kb_chunk_terms WHERE field = ?').run(change.field);
    database.prepare('DELETE FROM kb_terms WHERE field = ?').run(change.field);
    database
      .prepare(
        `INSERT INTO kb_term_fields (field, fingerprint) VALUES (?, ?)
         ON CONFLICT(field) DO UPDATE SET fingerprint = excluded.fingerprint`,
      )
      .run(change.field, change.fingerprint);
  }
  const known = new Map<string, number>();
  let nextId = 0;
  for (const [id, term] of database
    .prepare('SELECT term_id, term FROM kb_terms WHERE field = ?')
    .raw()
    .iterate(change.field) as IterableIterator<[number, string]>) {
    known.set(term, id);
    if (id >= nextId) nextId = id + 1;
  }
  const insertTerm = database.prepare('INSERT INTO kb_terms (field, term_id, term) VALUES (?, ?, ?)');
  const putChunkTerms = database.prepare(
    'INSERT OR REPLACE INTO kb_chunk_terms (chunk_id, field, terms) VALUES (?, ?, ?)',
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
          insertTerm.run(change.field, id, term);
        }
        storedIds[local] = id;
      }
      writer.write(id, count);
    });
    const bytes = writer.finish();
    putChunkTerms.run(chunkId, change.field, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
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
