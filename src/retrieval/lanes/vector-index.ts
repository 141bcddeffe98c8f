import { RetrievalError } from '../retrieval-error.ts';
import { dotAt } from './dot-at.ts';
import { HnswGraph, type HnswOptions } from './hnsw-graph.ts';
import { type LaneHit, selectTop } from './select-top.ts';

/**
 * Below this many vectors the lane compares the query with every vector: exact, and at 5,000
 * vectors of 256 dimensions about a millisecond, so a graph would save nothing worth its build.
 */
export const ANN_MIN_VECTORS = 5_000;
/**
 * Candidates an ANN search keeps (HNSW's ef). At 100,000 synthetic clauses 128 gave recall@10 of
 * 0.944 against the exact scan; 200 is the margin above 0.95 (docs/retrieval.md, "Scale").
 */
export const ANN_SEARCH_BREADTH = 200;
/** A filter that lets through less than this share of the vectors is searched exactly. */
const SELECTIVE_FILTER = 0.1;

export interface VectorSearchOptions {
  /** Compare with every vector even when a graph is ready (the benchmark's reference). */
  exact?: boolean;
}

/**
 * The vector lane: unit-length vectors in one contiguous Float32Array, one row per chunk that has a
 * vector of this model (chunks without one are left out, never compared as zero vectors). A query
 * is a pass of dot products (cosine of unit vectors) or, once a graph over the rows is attached or
 * built and there are at least `ANN_MIN_VECTORS`, an HNSW search.
 */
export class VectorIndex {
  readonly dimensions: number;
  /** How many chunks the index spans (rows are only those with a vector). */
  readonly size: number;
  readonly #matrix: Float32Array;
  /** Row → the chunk's position in the index. */
  readonly #rowChunks: Int32Array;
  #graph: HnswGraph | undefined;
  #building: Promise<HnswGraph | undefined> | undefined;
  #cancelled = false;

  constructor(vectors: readonly (Float32Array | null)[], dimensions: number) {
    this.dimensions = dimensions;
    this.size = vectors.length;
    const rows: number[] = [];
    const norms: number[] = [];
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
      rows.push(chunk);
      norms.push(norm);
    });
    this.#rowChunks = Int32Array.from(rows);
    // Locals in the loop: it writes every number of every vector (25 million at 100,000 × 256).
    const matrix = new Float32Array(rows.length * dimensions);
    for (let row = 0; row < rows.length; row += 1) {
      const vector = vectors[rows[row] as number] as Float32Array;
      const norm = norms[row] as number;
      const offset = row * dimensions;
      for (let index = 0; index < dimensions; index += 1)
        matrix[offset + index] = (vector[index] as number) / norm;
    }
    this.#matrix = matrix;
  }

  get vectorCount(): number {
    return this.#rowChunks.length;
  }

  /** The chunk positions of the rows, in row order: what a stored graph is checked against. */
  get rowChunks(): Int32Array {
    return this.#rowChunks;
  }

  /** True when searches go through the graph. */
  get approximate(): boolean {
    return this.#graph !== undefined && this.vectorCount >= ANN_MIN_VECTORS;
  }

  /** Use a graph stored earlier over these same rows; false when it does not fit them. */
  attachGraph(bytes: Uint8Array): boolean {
    const graph = HnswGraph.fromBytes(bytes, this.#matrix, this.dimensions);
    if (graph === undefined) return false;
    this.#graph = graph;
    return true;
  }

  /**
   * Build the graph a slice at a time (`sliceMs` of work, then the event loop runs), so that opening
   * stays fast and searches go on, exact, until it is done. Resolves with the graph, or undefined
   * when cancelled. At 100,000 vectors this takes minutes of CPU: store the result.
   */
  buildGraph(options: HnswOptions & { sliceMs?: number } = {}): Promise<HnswGraph | undefined> {
    if (this.#building) return this.#building;
    const graph = new HnswGraph(this.#matrix, this.dimensions, options);
    const sliceMs = options.sliceMs ?? 50;
    this.#building = new Promise((resolve) => {
      const step = () => {
        if (this.#cancelled) return resolve(undefined);
        const deadline = performance.now() + sliceMs;
        while (performance.now() < deadline && graph.insertNext()) {}
        if (!graph.complete) {
          // Unref'd: a build in progress never keeps the process alive.
          setTimeout(step, 0).unref();
          return;
        }
        this.#graph = graph;
        resolve(graph);
      };
      step();
    });
    return this.#building;
  }

  /** Stop a graph build in progress (the index is being replaced). */
  cancelBuild(): void {
    this.#cancelled = true;
  }

  search(
    query: Float32Array,
    limit: number,
    allowed?: (chunk: number) => boolean,
    options: VectorSearchOptions = {},
  ): LaneHit[] {
    const unitQuery = this.#unit(query);
    const graph = this.#graph;
    if (options.exact || graph === undefined || this.vectorCount < ANN_MIN_VECTORS)
      return this.#exact(unitQuery, limit, allowed);
    const rowChunks = this.#rowChunks;
    if (allowed === undefined) {
      return graph
        .search(unitQuery, limit, Math.max(ANN_SEARCH_BREADTH, limit))
        .map((found) => ({ index: rowChunks[found.node] as number, score: found.score }));
    }
    // A filter: over-fetch in proportion to how much it keeps, then filter. One that keeps little
    // would need most of the graph, so the allowed rows are compared exactly instead.
    let allowedCount = 0;
    for (const chunk of rowChunks) if (allowed(chunk)) allowedCount += 1;
    const share = allowedCount / this.vectorCount;
    if (share < SELECTIVE_FILTER || allowedCount <= limit) return this.#exact(unitQuery, limit, allowed);
    const breadth = Math.ceil(Math.max(ANN_SEARCH_BREADTH, limit) / share);
    const hits = graph
      .search(unitQuery, breadth, breadth)
      .map((found) => ({ index: rowChunks[found.node] as number, score: found.score }))
      .filter((hit) => allowed(hit.index))
      .slice(0, limit);
    return hits.length < limit ? this.#exact(unitQuery, limit, allowed) : hits;
  }

  #unit(query: Float32Array): Float32Array {
    if (query.length !== this.dimensions) {
      throw new RetrievalError(
        'dimension_mismatch',
        `query vector has ${query.length} dimensions, the index has ${this.dimensions}`,
      );
    }
    const norm = euclideanNorm(query);
    if (norm === 0)
      throw new RetrievalError('zero_vector', 'the query embedding is a zero vector; nothing to compare');
    return query.map((value) => value / norm);
  }

  #exact(unitQuery: Float32Array, limit: number, allowed?: (chunk: number) => boolean): LaneHit[] {
    const { dimensions } = this;
    const matrix = this.#matrix;
    const rowChunks = this.#rowChunks;
    const scores = new Float32Array(rowChunks.length);
    const candidates: number[] = [];
    for (let row = 0; row < rowChunks.length; row += 1) {
      if (allowed !== undefined && !allowed(rowChunks[row] as number)) continue;
      scores[row] = dotAt(matrix, row * dimensions, unitQuery);
      candidates.push(row);
    }
    return selectTop(candidates, (row) => scores[row] ?? 0, limit).map((hit) => ({
      index: rowChunks[hit.index] as number,
      score: hit.score,
    }));
  }
}

function euclideanNorm(vector: Float32Array): number {
  let sum = 0;
  for (let index = 0; index < vector.length; index += 1) {
    const value = vector[index] as number;
    sum += value * value;
  }
  return Math.sqrt(sum);
}
