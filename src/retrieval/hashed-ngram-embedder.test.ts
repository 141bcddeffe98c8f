import { describe, expect, it } from 'vitest';
import { cosineSimilarity, normalizeVector } from './cosine-similarity.ts';
import { HashedNgramEmbedder } from './hashed-ngram-embedder.ts';
import { RetrievalError } from './retrieval-error.ts';

const RETURN_POLICY = 'NovaTrail X2 签收后 7 个自然日内可申请退货；商品需保持完好且配件齐全。';
const SHIPPING_POLICY = 'NovaTrail X2 标准配送通常在付款后 1 至 3 个工作日发货，偏远地区时效可能延长。';
const SIZE_GUIDE = 'NovaTrail X2 提供黑色 M 码与 L 码；下单前请参考尺码表确认脚长。';

function nonZeroBuckets(vector: Float32Array): [number, number][] {
  return Array.from(vector.entries()).filter(([, value]) => value !== 0);
}

describe('HashedNgramEmbedder', () => {
  it('names its space after the version and the dimensions', () => {
    expect(new HashedNgramEmbedder().model).toBe('hashed-ngram-v1@256');
    expect(new HashedNgramEmbedder({ dimensions: 64 }).model).toBe('hashed-ngram-v1@64');
    expect(new HashedNgramEmbedder({ ngramSizes: [2, 3] }).model).toBe('hashed-ngram-v1-n2-3@256');
    expect(new HashedNgramEmbedder({ prepare: (text) => text, prepareVersion: 'normalize-v1' }).model).toBe(
      'hashed-ngram-v1+normalize-v1@256',
    );
  });

  it('returns one unit vector of the configured length per text, in order', async () => {
    const embedder = new HashedNgramEmbedder({ dimensions: 64 });
    const vectors = await embedder.embed(['退货', '发货', 'return']);
    expect(vectors).toHaveLength(3);
    for (const vector of vectors) {
      expect(vector).toBeInstanceOf(Float32Array);
      expect(vector).toHaveLength(64);
      expect(Math.hypot(...vector)).toBeCloseTo(1, 6);
    }
    expect(vectors[0]).toEqual(embedder.embedOne('退货'));
    expect(new HashedNgramEmbedder().dimensions).toBe(256);
    expect(await new HashedNgramEmbedder().embed(['x'])).toSatisfy((all: Float32Array[]) =>
      all.every((vector) => vector.length === 256),
    );
  });

  it('is deterministic: two instances, the same vector, and the same as recorded', async () => {
    const first = await new HashedNgramEmbedder().embed([RETURN_POLICY]);
    const second = await new HashedNgramEmbedder().embed([RETURN_POLICY]);
    expect(first).toEqual(second);
    // Pinned output: a change here changes every stored vector, which needs a new model version.
    // The values were computed independently by a Python transcription of the algorithm.
    const pinned = new HashedNgramEmbedder({ dimensions: 16 }).embedOne('7天内退货 退货');
    expect(nonZeroBuckets(pinned).map(([bucket, value]) => [bucket, Number(value.toFixed(6))])).toEqual(
      PINNED_RETURN_BUCKETS,
    );
  });

  it('gives the same text a cosine of 1', () => {
    const embedder = new HashedNgramEmbedder();
    expect(cosineSimilarity(embedder.embedOne(RETURN_POLICY), embedder.embedOne(RETURN_POLICY))).toBeCloseTo(
      1,
      6,
    );
  });

  it('scores texts sharing n-grams above unrelated texts', () => {
    const embedder = new HashedNgramEmbedder();
    const query = embedder.embedOne('签收后几天内可以申请退货？');
    const related = cosineSimilarity(query, embedder.embedOne(RETURN_POLICY));
    for (const unrelatedText of [SHIPPING_POLICY, SIZE_GUIDE, '今天天气很好']) {
      expect(related).toBeGreaterThan(cosineSimilarity(query, embedder.embedOne(unrelatedText)));
    }
  });

  it('treats any run of whitespace as one space and skips whitespace-only n-grams', () => {
    const embedder = new HashedNgramEmbedder();
    expect(embedder.embedOne('  退货\n\n  政策\t')).toEqual(embedder.embedOne('退货 政策'));
    expect(embedder.embedOne('退货\u3000政策')).toEqual(embedder.embedOne('退货 政策'));
  });

  it('counts a character outside the Basic Multilingual Plane as one character', () => {
    const unigrams = new HashedNgramEmbedder({ ngramSizes: [1] });
    expect(nonZeroBuckets(unigrams.embedOne('𠀀'))).toHaveLength(1);
  });

  it('dampens repetition: ten times a character is not ten times its weight', () => {
    const embedder = new HashedNgramEmbedder({ ngramSizes: [1] });
    const vector = embedder.embedOne('退退退退退退退退退退货');
    const [largest, smallest] = [
      Math.max(...vector.map(Math.abs)),
      Math.min(...nonZeroBuckets(vector).map(([, value]) => Math.abs(value))),
    ];
    expect(largest / smallest).toBeCloseTo(1 + Math.log(10), 5);
  });

  it('applies prepare before cutting n-grams', () => {
    const embedder = new HashedNgramEmbedder({ prepare: (text) => text.toLowerCase() });
    expect(embedder.embedOne('NS-X2-BLK-M')).toEqual(embedder.embedOne('ns-x2-blk-m'));
  });

  it('returns the zero vector for a text with no n-grams, which cosine then refuses', async () => {
    const embedder = new HashedNgramEmbedder({ dimensions: 8 });
    const [empty, blank] = await embedder.embed(['', ' \n\t ']);
    expect(Array.from(empty ?? [])).toEqual(new Array(8).fill(0));
    expect(Array.from(blank ?? [])).toEqual(new Array(8).fill(0));
    expect(() => normalizeVector(empty ?? [])).toThrow(RetrievalError);
  });

  it('refuses nonsensical options', () => {
    expect(() => new HashedNgramEmbedder({ dimensions: 0 })).toThrow(RangeError);
    expect(() => new HashedNgramEmbedder({ dimensions: 2.5 })).toThrow(RangeError);
    expect(() => new HashedNgramEmbedder({ ngramSizes: [] })).toThrow(RangeError);
    expect(() => new HashedNgramEmbedder({ ngramSizes: [0, 2] })).toThrow(RangeError);
  });

  it('honours an aborted signal', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(new HashedNgramEmbedder().embed(['退货'], { signal: controller.signal })).rejects.toThrow();
  });
});

const PINNED_RETURN_BUCKETS: [number, number][] = [
  [0, 0.184176],
  [4, 0.184176],
  [6, 0.184176],
  [7, 0.184176],
  [9, -0.127661],
  [11, 0.368352],
  [12, -0.736704],
  [13, 0.184176],
  [15, 0.368352],
];
