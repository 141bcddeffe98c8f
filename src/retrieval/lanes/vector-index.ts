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
      const norm = Math.hypot(...vector);
      if (norm === 0) return;
      for (let dimension = 0; dimension < dimensions; dimension += 1) {
        this.#matrix[chunk * dimensions + dimension] = (vector[dimension] ?? 0) / norm;
      }
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
    const norm = Math.hypot(...query);
    if (norm === 0)
      throw new RetrievalError('zero_vector', 'the query embedding is a zero vector; nothing to compare');
    const scores = new Float32Array(this.size);
    const candidates: number[] = [];
    for (let chunk = 0; chunk < this.size; chunk += 1) {
      if (this.#present[chunk] === 0 || (allowed !== undefined && !allowed(chunk))) continue;
      let dot = 0;
      const offset = chunk * dimensions;
      for (let dimension = 0; dimension < dimensions; dimension += 1) {
        dot += (this.#matrix[offset + dimension] ?? 0) * (query[dimension] ?? 0);
      }
      scores[chunk] = dot / norm;
      candidates.push(chunk);
    }
    return selectTop(candidates, (chunk) => scores[chunk] ?? 0, limit);
  }
}
