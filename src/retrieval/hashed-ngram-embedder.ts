import type { Embedder } from './embedder.ts';

export interface HashedNgramEmbedderOptions {
  /** Number of hash buckets, i.e. the vector length. Default 256. */
  dimensions?: number;
  /** Lengths of the character n-grams, in code points. Default `[1, 2, 3]`. */
  ngramSizes?: readonly number[];
  /**
   * Applied to every text before it is cut into n-grams, so documents and queries go through the
   * same normaliser (full-width, case, Traditional to Simplified, numerals …).
   */
  prepare?: (text: string) => string;
  /**
   * Names the `prepare` function's behaviour in `model`, e.g. `normalize-v3`. Change it whenever the
   * normaliser changes: vectors prepared differently live in different spaces, and anything keyed
   * by `model` (caches, stored vectors) must not mix them.
   */
  prepareVersion?: string;
}

const DEFAULT_DIMENSIONS = 256;
const DEFAULT_NGRAM_SIZES: readonly number[] = [1, 2, 3];
const FNV_OFFSET_BASIS = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/**
 * An offline embedder that needs no model weights: signed feature hashing of character n-grams.
 *
 * Every character n-gram (1 to 3 code points by default) is hashed with 32-bit FNV-1a over its
 * UTF-8 bytes; the hash picks one of `dimensions` buckets and a sign, and the bucket receives
 * sign × (1 + ln tf), where tf counts the n-gram in the text. The vector is then scaled to unit
 * length. Character n-grams suit Chinese, which has no spaces between words: 「退货」 and
 * 「可申请退货」 share n-grams without any word segmentation. The sign keeps collisions unbiased
 * (colliding n-grams cancel on average instead of adding up), and the sub-linear tf stops one
 * repeated character from dominating a text.
 *
 * The result depends only on the text, the options and this code: no randomness, no platform
 * byte order, no locale, so a vector stored on one machine compares with a query embedded on
 * another. Runs of whitespace count as one space, and n-grams made only of whitespace are skipped.
 *
 * A text with no n-grams (empty, or whitespace only after `prepare`) gets the zero vector rather
 * than an error, so one empty chunk does not fail a whole batch. The zero vector has no direction:
 * `cosineSimilarity` and `normalizeVector` refuse it, so callers skip such texts (there is nothing
 * to find in them anyway) instead of ranking them.
 */
export class HashedNgramEmbedder implements Embedder {
  readonly model: string;
  readonly dimensions: number;
  readonly #ngramSizes: readonly number[];
  readonly #prepare: ((text: string) => string) | undefined;

  constructor(options: HashedNgramEmbedderOptions = {}) {
    const dimensions = options.dimensions ?? DEFAULT_DIMENSIONS;
    if (!Number.isInteger(dimensions) || dimensions <= 0) {
      throw new RangeError(`dimensions must be a positive integer, got ${dimensions}`);
    }
    const ngramSizes = [...new Set(options.ngramSizes ?? DEFAULT_NGRAM_SIZES)].sort((a, b) => a - b);
    if (ngramSizes.length === 0 || ngramSizes.some((size) => !Number.isInteger(size) || size <= 0)) {
      throw new RangeError(`ngramSizes must be positive integers, got [${options.ngramSizes?.join(', ')}]`);
    }
    this.dimensions = dimensions;
    this.#ngramSizes = ngramSizes;
    this.#prepare = options.prepare;
    this.model = modelName(dimensions, ngramSizes, options.prepareVersion);
  }

  async embed(texts: readonly string[], options: { signal?: AbortSignal } = {}): Promise<Float32Array[]> {
    options.signal?.throwIfAborted();
    return texts.map((text) => this.embedOne(text));
  }

  /** The synchronous core of `embed`, for callers (benchmarks, the search's query path) that loop. */
  embedOne(text: string): Float32Array {
    const prepared = this.#prepare === undefined ? text : this.#prepare(text);
    const codePoints = toCodePoints(prepared);
    const counts = new Map<number, number>();
    for (const size of this.#ngramSizes) {
      for (let start = 0; start + size <= codePoints.length; start++) {
        let onlyWhitespace = true;
        let hash = FNV_OFFSET_BASIS;
        for (let offset = start; offset < start + size; offset++) {
          const codePoint = codePoints[offset] as number;
          if (codePoint !== SPACE) onlyWhitespace = false;
          hash = fnv1aCodePoint(hash, codePoint);
        }
        if (onlyWhitespace) continue;
        // Keyed by the 32-bit hash rather than the string: no allocation per n-gram, and two
        // n-grams colliding in 32 bits would share a bucket below anyway.
        counts.set(hash, (counts.get(hash) ?? 0) + 1);
      }
    }
    const vector = new Float64Array(this.dimensions);
    for (const [hash, count] of counts) {
      const mixed = finalizeHash(hash);
      const bucket = (mixed & 0x7fffffff) % this.dimensions;
      const sign = mixed & 0x80000000 ? -1 : 1;
      vector[bucket] = (vector[bucket] as number) + sign * (1 + Math.log(count));
    }
    return toUnitFloat32(vector);
  }
}

const SPACE = 0x20;

function modelName(dimensions: number, ngramSizes: readonly number[], prepareVersion?: string): string {
  const isDefaultSizes =
    ngramSizes.length === DEFAULT_NGRAM_SIZES.length &&
    ngramSizes.every((size, position) => size === DEFAULT_NGRAM_SIZES[position]);
  const sizes = isDefaultSizes ? '' : `-n${ngramSizes.join('-')}`;
  const prepared = prepareVersion === undefined ? '' : `+${prepareVersion}`;
  return `hashed-ngram-v1${sizes}${prepared}@${dimensions}`;
}

/** The text as code points (so a character outside the BMP is one character), whitespace runs as one space. */
function toCodePoints(text: string): number[] {
  const codePoints: number[] = [];
  let previousWasSpace = true; // also drops leading whitespace
  for (const character of text) {
    const codePoint = character.codePointAt(0) as number;
    if (isWhitespace(codePoint)) {
      if (!previousWasSpace) codePoints.push(SPACE);
      previousWasSpace = true;
      continue;
    }
    codePoints.push(codePoint);
    previousWasSpace = false;
  }
  if (codePoints[codePoints.length - 1] === SPACE) codePoints.pop();
  return codePoints;
}

/** The code points of JavaScript's `\s` (including the ideographic space), without a regex per character. */
function isWhitespace(codePoint: number): boolean {
  if (codePoint < 0x80) return codePoint === SPACE || (codePoint >= 0x09 && codePoint <= 0x0d);
  return (
    codePoint === 0xa0 ||
    codePoint === 0x1680 ||
    (codePoint >= 0x2000 && codePoint <= 0x200a) ||
    codePoint === 0x2028 ||
    codePoint === 0x2029 ||
    codePoint === 0x202f ||
    codePoint === 0x205f ||
    codePoint === 0x3000 ||
    codePoint === 0xfeff
  );
}

/**
 * Feeds one code point's UTF-8 bytes into a 32-bit FNV-1a hash. Hashing UTF-8 rather than UTF-16
 * code units matches what any other language would compute for the same n-gram.
 */
function fnv1aCodePoint(hash: number, codePoint: number): number {
  if (codePoint < 0x80) return fnv1aByte(hash, codePoint);
  if (codePoint < 0x800) {
    return fnv1aByte(fnv1aByte(hash, 0xc0 | (codePoint >> 6)), 0x80 | (codePoint & 0x3f));
  }
  if (codePoint < 0x10000) {
    const first = fnv1aByte(hash, 0xe0 | (codePoint >> 12));
    return fnv1aByte(fnv1aByte(first, 0x80 | ((codePoint >> 6) & 0x3f)), 0x80 | (codePoint & 0x3f));
  }
  const first = fnv1aByte(fnv1aByte(hash, 0xf0 | (codePoint >> 18)), 0x80 | ((codePoint >> 12) & 0x3f));
  return fnv1aByte(fnv1aByte(first, 0x80 | ((codePoint >> 6) & 0x3f)), 0x80 | (codePoint & 0x3f));
}

function fnv1aByte(hash: number, byte: number): number {
  return Math.imul(hash ^ byte, FNV_PRIME) >>> 0;
}

/**
 * MurmurHash3's finaliser. FNV-1a's low bits mix poorly for inputs of a few bytes, and the bucket
 * is taken from the low bits; this spreads every input bit over the whole word first.
 */
function finalizeHash(hash: number): number {
  let mixed = hash;
  mixed = Math.imul(mixed ^ (mixed >>> 16), 0x85ebca6b);
  mixed = Math.imul(mixed ^ (mixed >>> 13), 0xc2b2ae35);
  return (mixed ^ (mixed >>> 16)) >>> 0;
}

/** Scales to unit length; leaves the zero vector as it is (see the class comment). */
function toUnitFloat32(vector: Float64Array): Float32Array {
  let squares = 0;
  for (const value of vector) squares += value * value;
  const unit = new Float32Array(vector.length);
  if (squares === 0) return unit;
  const length = Math.sqrt(squares);
  for (let position = 0; position < vector.length; position++) {
    unit[position] = (vector[position] as number) / length;
  }
  return unit;
}
