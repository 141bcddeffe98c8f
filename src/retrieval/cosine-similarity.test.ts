import { describe, expect, it } from 'vitest';
import {
  cosineSimilarity,
  dotProduct,
  normalizeVector,
  rankByCosine,
  rankByDotProduct,
} from './cosine-similarity.ts';
import { RetrievalError } from './retrieval-error.ts';

function retrievalErrorOf(action: () => unknown): RetrievalError {
  try {
    action();
  } catch (error) {
    if (error instanceof RetrievalError) return error;
    throw error;
  }
  throw new Error('expected a RetrievalError, nothing was thrown');
}

describe('cosineSimilarity', () => {
  it('is 1 for vectors pointing the same way, whatever their lengths', () => {
    expect(cosineSimilarity([3, 4], [6, 8])).toBeCloseTo(1, 12);
  });

  it('is 0 for orthogonal vectors and -1 for opposite ones', () => {
    expect(cosineSimilarity([1, 0], [0, 5])).toBe(0);
    expect(cosineSimilarity([1, 2, 3], [-2, -4, -6])).toBeCloseTo(-1, 12);
  });

  it('accepts typed arrays as well as plain arrays', () => {
    expect(cosineSimilarity(new Float32Array([1, 1]), [2, 2])).toBeCloseTo(1, 6);
  });

  it('refuses vectors of different length, naming both lengths', () => {
    const error = retrievalErrorOf(() => cosineSimilarity([1, 2, 3], [1, 2, 3, 4]));
    expect(error.code).toBe('dimension_mismatch');
    expect(error.message).toContain('3');
    expect(error.message).toContain('4');
  });

  it('refuses a zero vector on either side', () => {
    expect(retrievalErrorOf(() => cosineSimilarity([0, 0], [1, 2])).code).toBe('zero_vector');
    expect(retrievalErrorOf(() => cosineSimilarity([1, 2], [0, 0])).code).toBe('zero_vector');
  });

  it('refuses empty vectors', () => {
    expect(retrievalErrorOf(() => cosineSimilarity([], [])).code).toBe('zero_vector');
  });

  it('never leaves [-1, 1] through rounding', () => {
    const vector = [0.1, 0.2, 0.3, 0.7, 1e-9];
    const score = cosineSimilarity(vector, vector);
    expect(score).toBeLessThanOrEqual(1);
    expect(score).toBeCloseTo(1, 12);
  });
});

describe('normalizeVector and dotProduct', () => {
  it('scales to unit length, so the dot product of normalised vectors is their cosine', () => {
    const left = normalizeVector([3, 4]);
    expect(left).toBeInstanceOf(Float32Array);
    expect(Array.from(left)).toEqual([Math.fround(0.6), Math.fround(0.8)]);
    const right = normalizeVector([1, 7]);
    expect(dotProduct(left, right)).toBeCloseTo(cosineSimilarity([3, 4], [1, 7]), 6);
  });

  it('refuses zero and empty vectors', () => {
    expect(retrievalErrorOf(() => normalizeVector([0, 0, 0])).code).toBe('zero_vector');
    expect(retrievalErrorOf(() => normalizeVector([])).code).toBe('zero_vector');
  });

  it('refuses a dot product of different lengths', () => {
    expect(retrievalErrorOf(() => dotProduct([1], [1, 2])).code).toBe('dimension_mismatch');
  });
});

describe('rankByCosine', () => {
  it("ranks the seed's toy example: equal scores keep their original order", () => {
    const ranked = rankByCosine(
      [1, 0],
      [
        [1, 0],
        [2, 0],
        [0, 1],
      ],
      2,
    );
    expect(ranked.map((entry) => entry.index)).toEqual([0, 1]);
    expect(ranked[0]?.score).toBeCloseTo(1, 12);
    expect(ranked[1]?.score).toBeCloseTo(1, 12);
  });

  it('puts the best first', () => {
    const ranked = rankByCosine(
      [1, 1],
      [
        [-1, -1],
        [1, 0],
        [1, 1],
      ],
      3,
    );
    expect(ranked.map((entry) => entry.index)).toEqual([2, 1, 0]);
    expect(ranked[2]?.score).toBeCloseTo(-1, 12);
  });

  it('returns fewer than topK when there are fewer candidates, and nothing for none', () => {
    expect(rankByCosine([1, 0], [[0, 1]], 5)).toHaveLength(1);
    expect(rankByCosine([1, 0], [], 5)).toEqual([]);
  });

  it('keeps many equal scores in insertion order, for small and large topK alike', () => {
    // Interleave two score levels so that a sort without the index tie-break could reorder them.
    const vectors = Array.from({ length: 500 }, (_, index) => (index % 2 === 0 ? [1, 0] : [5, 5]));
    const evenIndexes = Array.from({ length: 250 }, (_, position) => position * 2);
    const oddIndexes = evenIndexes.map((index) => index + 1);
    for (const topK of [1, 10, 64, 65, 300, 1000]) {
      const ranked = rankByCosine([1, 0], vectors, topK);
      expect(ranked.map((entry) => entry.index)).toEqual([...evenIndexes, ...oddIndexes].slice(0, topK));
    }
  });

  it('gives the same ranking on every run of the same input', () => {
    const vectors = Array.from({ length: 200 }, (_, index) => [Math.sin(index), Math.cos(index), index % 3]);
    const first = rankByCosine([0.3, 0.4, 1], vectors, 20);
    for (let run = 0; run < 5; run++) expect(rankByCosine([0.3, 0.4, 1], vectors, 20)).toEqual(first);
  });

  it('refuses topK of zero or less', () => {
    expect(() => rankByCosine([1, 0], [[1, 0]], 0)).toThrow(RangeError);
    expect(() => rankByCosine([1, 0], [[1, 0]], -3)).toThrow(RangeError);
    expect(() => rankByCosine([1, 0], [[1, 0]], 1.5)).toThrow(RangeError);
  });

  it('names the offending candidate when one has another length or no direction', () => {
    const mismatch = retrievalErrorOf(() =>
      rankByCosine(
        [1, 0],
        [
          [1, 0],
          [1, 0, 0],
        ],
        2,
      ),
    );
    expect(mismatch.code).toBe('dimension_mismatch');
    expect(mismatch.message).toContain('candidate 1');
    const zero = retrievalErrorOf(() =>
      rankByCosine(
        [1, 0],
        [
          [1, 0],
          [0, 0],
        ],
        2,
      ),
    );
    expect(zero.code).toBe('zero_vector');
    expect(zero.message).toContain('candidate 1');
    expect(retrievalErrorOf(() => rankByCosine([0, 0], [[1, 0]], 1)).code).toBe('zero_vector');
  });
});

describe('rankByDotProduct', () => {
  it('ranks normalised vectors like rankByCosine ranks the raw ones', () => {
    const raw = [
      [2, 0],
      [1, 1],
      [0, 3],
      [-1, 0],
      [4, 0],
    ];
    const query = [3, 1];
    const byCosine = rankByCosine(query, raw, 5);
    const byDot = rankByDotProduct(normalizeVector(query), raw.map(normalizeVector), 5);
    expect(byDot.map((entry) => entry.index)).toEqual(byCosine.map((entry) => entry.index));
    byDot.forEach((entry, position) => {
      expect(entry.score).toBeCloseTo(byCosine[position]?.score ?? Number.NaN, 6);
    });
  });

  it('refuses a candidate of another length', () => {
    const error = retrievalErrorOf(() => rankByDotProduct([1, 0], [[1, 0, 0]], 1));
    expect(error.code).toBe('dimension_mismatch');
  });
});
