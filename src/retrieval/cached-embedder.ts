import { createHash } from 'node:crypto';
import type BetterSqlite3 from 'better-sqlite3';
import type { Embedder } from './embedder.ts';
import { RetrievalError } from './retrieval-error.ts';

/**
 * Stored vectors, keyed by the embedder's `model` (which names the vector space, dimensions
 * included) and the SHA-256 of the exact text. Either method may answer synchronously (SQLite,
 * memory) or with a promise (a networked store such as PostgreSQL).
 */
export interface EmbeddingCache {
  /** The vectors stored for those of `contentHashes` that are known; unknown hashes are absent. */
  get(
    model: string,
    contentHashes: readonly string[],
  ): Map<string, Float32Array> | Promise<Map<string, Float32Array>>;
  /** Stores vectors by content hash, replacing any stored for the same model and hash. */
  set(model: string, entries: ReadonlyMap<string, Float32Array>): void | Promise<void>;
}

/**
 * An `Embedder` that asks its inner embedder only for texts it has not embedded before: re-ingesting
 * an unchanged knowledge base must not pay for (or wait on) a single remote embedding again.
 *
 * A text is identified by the SHA-256 of its exact characters, so any edit, even whitespace, is a
 * new text. All the misses of one `embed` call go to the inner embedder in one call, in input
 * order, each distinct text once; the inner embedder does its own batching. Stored vectors whose
 * length differs from the inner embedder's `dimensions` are treated as misses and replaced.
 */
export class CachedEmbedder implements Embedder {
  readonly #inner: Embedder;
  readonly #cache: EmbeddingCache;
  #hits = 0;
  #misses = 0;

  constructor(inner: Embedder, cache: EmbeddingCache) {
    this.#inner = inner;
    this.#cache = cache;
  }

  get model(): string {
    return this.#inner.model;
  }

  get dimensions(): number {
    return this.#inner.dimensions;
  }

  /** Texts answered without the inner embedder (stored, or repeated within one call), since creation. */
  get hits(): number {
    return this.#hits;
  }

  /** Texts sent to the inner embedder, since creation. `hits + misses` is every text requested. */
  get misses(): number {
    return this.#misses;
  }

  async embed(texts: readonly string[], options: { signal?: AbortSignal } = {}): Promise<Float32Array[]> {
    options.signal?.throwIfAborted();
    if (texts.length === 0) return [];
    const model = this.#inner.model;
    const hashes = texts.map(contentHash);
    const stored = await this.#cache.get(model, [...new Set(hashes)]);
    const vectors = new Map<string, Float32Array>();
    for (const [hash, vector] of stored) {
      if (this.#inner.dimensions === 0 || vector.length === this.#inner.dimensions) vectors.set(hash, vector);
    }

    const missingTexts: string[] = [];
    const missingHashes = new Set<string>();
    hashes.forEach((hash, position) => {
      if (vectors.has(hash) || missingHashes.has(hash)) return;
      missingHashes.add(hash);
      missingTexts.push(texts[position] as string);
    });
    if (missingTexts.length > 0) {
      const embedded = await this.#inner.embed(missingTexts, options);
      if (embedded.length !== missingTexts.length) {
        throw new RetrievalError(
          'embedding_failed',
          `embedder ${this.#inner.model} returned ${embedded.length} vectors for ${missingTexts.length} texts`,
        );
      }
      const fresh = new Map(
        [...missingHashes].map((hash, position) => [hash, embedded[position] as Float32Array]),
      );
      await this.#cache.set(model, fresh);
      for (const [hash, vector] of fresh) vectors.set(hash, vector);
    }
    this.#misses += missingTexts.length;
    this.#hits += texts.length - missingTexts.length;

    // A text repeated in the input gets its own copy, so a caller changing one result changes no other.
    const handedOut = new Set<string>();
    return hashes.map((hash) => {
      const vector = vectors.get(hash) as Float32Array;
      if (!handedOut.has(hash)) {
        handedOut.add(hash);
        return vector;
      }
      return vector.slice();
    });
  }
}

/** The cache key of a text: SHA-256 of its UTF-8 bytes, in hex. */
function contentHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** An `EmbeddingCache` in process memory: for tests and one-off runs that store nothing. */
export class MemoryEmbeddingCache implements EmbeddingCache {
  readonly #models = new Map<string, Map<string, Float32Array>>();

  get(model: string, contentHashes: readonly string[]): Map<string, Float32Array> {
    const stored = this.#models.get(model);
    const found = new Map<string, Float32Array>();
    for (const hash of contentHashes) {
      const vector = stored?.get(hash);
      // Copies in and out, as a real store would: no caller can change what is stored.
      if (vector !== undefined) found.set(hash, vector.slice());
    }
    return found;
  }

  set(model: string, entries: ReadonlyMap<string, Float32Array>): void {
    let stored = this.#models.get(model);
    if (stored === undefined) {
      stored = new Map();
      this.#models.set(model, stored);
    }
    for (const [hash, vector] of entries) stored.set(hash, vector.slice());
  }

  /** Stored vectors over all models. */
  get size(): number {
    let size = 0;
    for (const stored of this.#models.values()) size += stored.size;
    return size;
  }
}

interface EmbeddingCacheRow {
  dimensions: number;
  vector: Buffer;
}

/**
 * An `EmbeddingCache` in the product's SQLite file, table `embedding_cache`. Vectors are stored as
 * little-endian float32 bytes: compact, and exactly the values the embedder returned. On a database
 * opened read-only it reads what is there and keeps nothing new.
 */
export class SqliteEmbeddingCache implements EmbeddingCache {
  readonly #database: BetterSqlite3.Database;
  /** Undefined when a read-only file has no cache table: every lookup misses. */
  readonly #select: BetterSqlite3.Statement<[string, string], EmbeddingCacheRow> | undefined;
  /** Undefined on a read-only file: new vectors are used, not kept. */
  readonly #upsert: BetterSqlite3.Statement<[string, string, number, Buffer, number]> | undefined;

  constructor(database: BetterSqlite3.Database) {
    this.#database = database;
    const hasTable =
      database
        .prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'embedding_cache'")
        .get() !== undefined;
    if (!hasTable && !database.readonly) {
      database.exec(`
        CREATE TABLE IF NOT EXISTS embedding_cache (
          model TEXT NOT NULL,
          content_hash TEXT NOT NULL,
          dimensions INTEGER NOT NULL,
          vector BLOB NOT NULL,
          created_at INTEGER NOT NULL,
          PRIMARY KEY (model, content_hash)
        )
      `);
    }
    this.#select =
      hasTable || !database.readonly
        ? database.prepare<[string, string], EmbeddingCacheRow>(
            'SELECT dimensions, vector FROM embedding_cache WHERE model = ? AND content_hash = ?',
          )
        : undefined;
    this.#upsert = database.readonly
      ? undefined
      : database.prepare<[string, string, number, Buffer, number]>(
          `INSERT INTO embedding_cache (model, content_hash, dimensions, vector, created_at)
           VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (model, content_hash)
           DO UPDATE SET dimensions = excluded.dimensions, vector = excluded.vector, created_at = excluded.created_at`,
        );
  }

  get(model: string, contentHashes: readonly string[]): Map<string, Float32Array> {
    const select = this.#select;
    if (select === undefined) return new Map();
    // One transaction: a consistent read, and far faster than a transaction per row.
    return this.#database.transaction(() => {
      const found = new Map<string, Float32Array>();
      for (const hash of contentHashes) {
        const row = select.get(model, hash);
        // A row whose bytes disagree with its dimensions is damaged: a miss, replaced on the next set.
        if (row !== undefined && row.vector.byteLength === row.dimensions * 4) {
          found.set(hash, decodeFloat32(row.vector));
        }
      }
      return found;
    })();
  }

  set(model: string, entries: ReadonlyMap<string, Float32Array>): void {
    const upsert = this.#upsert;
    if (upsert === undefined) return;
    const createdAt = Date.now();
    this.#database.transaction(() => {
      for (const [hash, vector] of entries) {
        upsert.run(model, hash, vector.length, encodeFloat32(vector), createdAt);
      }
    })();
  }
}

const PLATFORM_IS_LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

function encodeFloat32(vector: Float32Array): Buffer {
  if (PLATFORM_IS_LITTLE_ENDIAN) return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
  const bytes = Buffer.alloc(vector.byteLength);
  vector.forEach((value, position) => {
    bytes.writeFloatLE(value, position * 4);
  });
  return bytes;
}

function decodeFloat32(bytes: Buffer): Float32Array {
  if (PLATFORM_IS_LITTLE_ENDIAN) {
    // Copied into a fresh buffer: SQLite's bytes may sit at an offset no Float32Array can start at.
    return new Float32Array(new Uint8Array(bytes).buffer);
  }
  return Float32Array.from({ length: bytes.byteLength / 4 }, (_, position) =>
    bytes.readFloatLE(position * 4),
  );
}
