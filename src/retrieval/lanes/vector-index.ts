import { RetrievalError } from '../retrieval-error.ts';
import { type LaneHit, selectTop } from './select-top.ts';

/**
 * The vector lane: unit-length vectors in one contiguous Float32Array, so a query is one pass of dot
 * products (cosine of unit vectors). Chunks without a vector of this model are left out, never
 * compared as zero vectors.
 */
export class VectorIndex {
  readonly dimensions: number;
  readonly #matrix: Float32Array;
  readonly #present: Uint8Array;
  readonly size: number;

  constructor(vectors: readonly (Float32Array | null)[], dimensions: number) {
    this.dimensions = dimensions;
    this.size = vectors.length;
    this.#matrix = new Float32Array(vectors.length * dimensions);
    this.#present = new Uint8Array(vectors.length);
    vectors.forEach((vector, chunk) => {
      if (vector === null) return;
      if (vector.length !== dimensions) {
        throw new RetrievalError(
          'dimension_mismatch',
          `chunk vector has ${vector.length} dimensions, the index has ${dimensions}; re-ingest with one embedding model`,
        );
      }
      const norm = euclideanNorm(vector);
      if (norm === 0) return;
      this.#matrix.set(
        vector.map((value) => value / norm),
        chunk * dimensions,
      );
      this.#present[chunk] = 1;
    });
  }

  get vectorCount(): number {
    return this.#present.reduce((count, present) => count + present, 0);
  }

  search(query: Float32Array, limit: number, allowed?: (chunk: number) => boolean): LaneHit[] {
    const { dimensions } = this;
    if (query.length !== dimensions) {
      throw new RetrievalError(
        'dimension_mismatch',
        `query vector has ${query.length} dimensions, the index has ${dimensions}`,
      );
    }
    const norm = euclideanNorm(query);
    if (norm === 0)
      throw new RetrievalError('zero_vector', 'the query embedding is a zero vector; nothing to compare');
    const unitQuery = query.map((value) => value / norm);
    const matrix = this.#matrix;
    const scores = new Float32Array(this.size);
    const candidates: number[] = [];
    for (let chunk = 0; chunk < this.size; chunk += 1) {
      if (this.#present[chunk] === 0 || (allowed !== undefined && !allowed(chunk))) continue;
      scores[chunk] = dotAt(matrix, chunk * dimensions, unitQuery);
      candidates.push(chunk);
    }
    return selectTop(candidates, (chunk) => scores[chunk] ?? 0, limit);
  }
}

function euclideanNorm(vector: Float32Array): number {
  let sum = 0;
  for (const value of vector) sum += value * value;
  return Math.sqrt(sum);
}

/** Dot product of `query` with the row of `matrix` at `offset`; four accumulators let the CPU overlap. */
function dotAt(matrix: Float32Array, offset: number, query: Float32Array): number {
  const length = query.length;
  let a = 0;
  let b = 0;
  let c = 0;
  let d = 0;
  let index = 0;
  for (; index + 3 < length; index += 4) {
    a += (matrix[offset + index] as number) * (query[index] as number);
    b += (matrix[offset + index + 1] as number) * (query[index + 1] as number);
    c += (matrix[offset + index + 2] as number) * (query[index + 2] as number);
    d += (matrix[offset + index + 3] as number) * (query[index + 3] as number);
  }
  for (; index < length; index += 1) a += (matrix[offset + index] as number) * (query[index] as number);
  return a + b + c + d;
}
