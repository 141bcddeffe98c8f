import type { Database } from 'better-sqlite3';
import type { DocumentKind } from './chunking/index.ts';
import type { KnowledgeChangeSet, KnowledgeStore, StoredChunk, StoredDocument } from './knowledge-store.ts';

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
    database.transaction(() => {
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
    })();
  }

  async loadChunks(options: { embeddingModel?: string } = {}): Promise<StoredChunk[]> {
    const rows = this.#database
      .prepare(
        `SELECT chunk_id, doc_id, heading_path, text, index_text, line, clause, parent, embedding_model,
           CASE WHEN embedding_model = ? THEN embedding END AS embedding
         FROM kb_chunks ORDER BY doc_id, clause, chunk_id`,
      )
      .all(options.embeddingModel ?? null) as ChunkRow[];
    return rows.map((row, ordinal) => ({
      chunkId: row.chunk_id,
      docId: row.doc_id,
      ordinal,
      headingPath: JSON.parse(row.heading_path) as string[],
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

function vectorToBlob(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

function blobToVector(blob: Buffer): Float32Array {
  // Copy: the Buffer may be a view into a shared pool with an offset not aligned for Float32.
  const copy = new Uint8Array(blob.byteLength);
  copy.set(blob);
  return new Float32Array(copy.buffer);
}
