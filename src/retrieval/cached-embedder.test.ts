import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CachedEmbedder,
  type EmbeddingCache,
  MemoryEmbeddingCache,
  SqliteEmbeddingCache,
} from './cached-embedder.ts';
import type { Embedder } from './embedder.ts';
import { HashedNgramEmbedder } from './hashed-ngram-embedder.ts';

/** Wraps an embedder and records every call it gets. */
class RecordingEmbedder implements Embedder {
  readonly calls: string[][] = [];
  readonly #inner: Embedder;
  readonly model: string;

  constructor(inner: Embedder, model = inner.model) {
    this.#inner = inner;
    this.model = model;
  }

  get dimensions(): number {
    return this.#inner.dimensions;
  }

  async embed(texts: readonly string[], options?: { signal?: AbortSignal }): Promise<Float32Array[]> {
    this.calls.push([...texts]);
    return this.#inner.embed(texts, options);
  }
}

/** Returns fixed vectors, for exact round-trip checks. */
class FixedEmbedder implements Embedder {
  readonly model = 'fixed@5';
  readonly dimensions = 5;
  readonly vector = new Float32Array([Math.PI, -0, 1e-40, -3.4e38, 0.1]);

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    return texts.map(() => this.vector.slice());
  }
}

const POLICIES = [
  'NovaTrail X2 签收后 7 个自然日内可申请退货；商品需保持完好且配件齐全。',
  'NovaTrail X2 标准配送通常在付款后 1 至 3 个工作日发货，偏远地区时效可能延长。',
  'NovaTrail X2 提供黑色 M 码与 L 码；下单前请参考尺码表确认脚长。',
];

function bytesOf(vector: Float32Array | undefined): Buffer {
  if (vector === undefined) throw new Error('missing vector');
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

let directory: string;
const openDatabases: Database.Database[] = [];

function openDatabase(): Database.Database {
  const database = new Database(join(directory, 'runstream.sqlite'));
  openDatabases.push(database);
  return database;
}

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'runstream-embedding-cache-'));
});

afterEach(async () => {
  for (const database of openDatabases.splice(0)) database.close();
  await rm(directory, { recursive: true, force: true });
});

const caches: [string, () => EmbeddingCache][] = [
  ['SqliteEmbeddingCache', () => new SqliteEmbeddingCache(openDatabase())],
  ['MemoryEmbeddingCache', () => new MemoryEmbeddingCache()],
];

describe.each(caches)('CachedEmbedder over %s', (_name, createCache) => {
  it('embeds the same texts a second time without calling the inner embedder', async () => {
    const inner = new RecordingEmbedder(new HashedNgramEmbedder({ dimensions: 32 }));
    const embedder = new CachedEmbedder(inner, createCache());
    const first = await embedder.embed(POLICIES);
    const second = await embedder.embed(POLICIES);

    expect(inner.calls).toEqual([POLICIES]);
    expect(second.map(bytesOf)).toEqual(first.map(bytesOf));
    expect(embedder.misses).toBe(3);
    expect(embedder.hits).toBe(3);
    expect(embedder.model).toBe(inner.model);
    expect(embedder.dimensions).toBe(32);
  });

  it('sends only the changed text, and keeps the input order', async () => {
    const inner = new RecordingEmbedder(new HashedNgramEmbedder({ dimensions: 32 }));
    const embedder = new CachedEmbedder(inner, createCache());
    await embedder.embed(POLICIES);
    const changed = [POLICIES[0] as string, `${POLICIES[1]}（节假日顺延）`, POLICIES[2] as string];
    const vectors = await embedder.embed(changed);

    expect(inner.calls).toEqual([POLICIES, [changed[1]]]);
    const reference = new HashedNgramEmbedder({ dimensions: 32 });
    expect(vectors.map(bytesOf)).toEqual(changed.map((text) => bytesOf(reference.embedOne(text))));
    expect(embedder.misses).toBe(4);
    expect(embedder.hits).toBe(2);
  });

  it('embeds a text repeated within one call once, handing out independent copies', async () => {
    const inner = new RecordingEmbedder(new HashedNgramEmbedder({ dimensions: 32 }));
    const embedder = new CachedEmbedder(inner, createCache());
    const [first, second, third] = await embedder.embed(['退货', '发货', '退货']);

    expect(inner.calls).toEqual([['退货', '发货']]);
    expect(bytesOf(third)).toEqual(bytesOf(first));
    expect(third).not.toBe(first);
    expect(bytesOf(second)).not.toEqual(bytesOf(first));
    expect(embedder.misses).toBe(2);
    expect(embedder.hits).toBe(1);
  });

  it('does not share entries between model names', async () => {
    const cache = createCache();
    const base = new HashedNgramEmbedder({ dimensions: 32 });
    const small = new RecordingEmbedder(base, 'model-a@32');
    const other = new RecordingEmbedder(base, 'model-b@32');
    await new CachedEmbedder(small, cache).embed(POLICIES);
    await new CachedEmbedder(other, cache).embed(POLICIES);
    expect(small.calls).toHaveLength(1);
    expect(other.calls).toEqual([POLICIES]);
  });

  it('returns exactly the stored float32 values', async () => {
    const cache = createCache();
    const fixed = new FixedEmbedder();
    await new CachedEmbedder(fixed, cache).embed(['a']);
    const inner = new RecordingEmbedder(fixed);
    const [vector] = await new CachedEmbedder(inner, cache).embed(['a']);
    expect(inner.calls).toEqual([]);
    expect(bytesOf(vector)).toEqual(bytesOf(fixed.vector));
    expect(Object.is(vector?.[1], -0)).toBe(true);
  });

  it('replaces a stored vector whose length no longer matches the embedder', async () => {
    const cache = createCache();
    const fixed = new FixedEmbedder();
    await new CachedEmbedder(fixed, cache).embed(['a']);
    const longer = new RecordingEmbedder(new HashedNgramEmbedder({ dimensions: 8 }), fixed.model);
    const [vector] = await new CachedEmbedder(longer, cache).embed(['a']);
    expect(longer.calls).toEqual([['a']]);
    expect(vector).toHaveLength(8);
  });

  it('keeps stored vectors safe from callers changing what they got', async () => {
    const inner = new RecordingEmbedder(new HashedNgramEmbedder({ dimensions: 32 }));
    const embedder = new CachedEmbedder(inner, createCache());
    const [original] = await embedder.embed(['退货']);
    const expected = Buffer.from(bytesOf(original));
    original?.fill(7);
    const [again] = await embedder.embed(['退货']);
    expect(bytesOf(again)).toEqual(expected);
  });

  it('asks nothing for no texts and honours an aborted signal', async () => {
    const inner = new RecordingEmbedder(new HashedNgramEmbedder({ dimensions: 32 }));
    const embedder = new CachedEmbedder(inner, createCache());
    expect(await embedder.embed([])).toEqual([]);
    await expect(embedder.embed(['退货'], { signal: AbortSignal.abort() })).rejects.toThrow();
    expect(inner.calls).toEqual([]);
  });
});

describe('SqliteEmbeddingCache', () => {
  it('keeps vectors across connections to the same file', async () => {
    const writer = new CachedEmbedder(
      new HashedNgramEmbedder({ dimensions: 32 }),
      new SqliteEmbeddingCache(openDatabase()),
    );
    const written = await writer.embed(POLICIES);
    const inner = new RecordingEmbedder(new HashedNgramEmbedder({ dimensions: 32 }));
    const reader = new CachedEmbedder(inner, new SqliteEmbeddingCache(openDatabase()));
    const read = await reader.embed(POLICIES);
    expect(inner.calls).toEqual([]);
    expect(read.map(bytesOf)).toEqual(written.map(bytesOf));
  });

  it('creates the embedding_cache table once, with the documented columns', () => {
    const database = openDatabase();
    new SqliteEmbeddingCache(database);
    new SqliteEmbeddingCache(database);
    const columns = database.prepare('PRAGMA table_info(embedding_cache)').all() as {
      name: string;
      pk: number;
    }[];
    expect(columns.map((column) => column.name)).toEqual([
      'model',
      'content_hash',
      'dimensions',
      'vector',
      'created_at',
    ]);
    expect(columns.filter((column) => column.pk > 0).map((column) => column.name)).toEqual([
      'model',
      'content_hash',
    ]);
  });

  it('stores float32 bytes keyed by the SHA-256 of the text', async () => {
    const database = openDatabase();
    const fixed = new FixedEmbedder();
    const before = Date.now();
    await new CachedEmbedder(fixed, new SqliteEmbeddingCache(database)).embed(['退货']);
    const row = database.prepare('SELECT * FROM embedding_cache').get() as {
      model: string;
      content_hash: string;
      dimensions: number;
      vector: Buffer;
      created_at: number;
    };
    expect(row.model).toBe('fixed@5');
    expect(row.content_hash).toBe(createHash('sha256').update('退货', 'utf8').digest('hex'));
    expect(row.dimensions).toBe(5);
    expect(row.vector).toEqual(bytesOf(fixed.vector));
    expect(row.created_at).toBeGreaterThanOrEqual(before);
  });

  it('treats a damaged row as a miss and replaces it', async () => {
    const database = openDatabase();
    const cache = new SqliteEmbeddingCache(database);
    await new CachedEmbedder(new FixedEmbedder(), cache).embed(['退货']);
    database.prepare('UPDATE embedding_cache SET vector = ?').run(Buffer.from([1, 2, 3]));
    const inner = new RecordingEmbedder(new FixedEmbedder());
    const [vector] = await new CachedEmbedder(inner, cache).embed(['退货']);
    expect(inner.calls).toEqual([['退货']]);
    expect(vector).toHaveLength(5);
    expect(
      (database.prepare('SELECT vector FROM embedding_cache').get() as { vector: Buffer }).vector,
    ).toHaveLength(20);
  });
});
