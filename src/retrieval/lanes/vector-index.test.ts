import { describe, expect, it } from 'vitest';
import { seededRandom } from './seeded-random.ts';
import type { LaneHit } from './select-top.ts';
import { ANN_MIN_VECTORS, VectorIndex } from './vector-index.ts';

const DIMENSIONS = 24;

/** Clustered vectors, as embeddings of a corpus are: a few topics, each with its spread. */
function clusteredVectors(count: number, seed: number): Float32Array[] {
  const random = seededRandom(seed);
  const gaussian = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const centres = Array.from({ length: 40 }, () => Float32Array.from({ length: DIMENSIONS }, gaussian));
  return Array.from({ length: count }, () => {
    const centre = centres[Math.floor(random() * centres.length)] as Float32Array;
    return centre.map((value) => value + 0.6 * gaussian());
  });
}

/** Share of the exact top `limit` the approximate search found (ties at the last score count). */
function recall(exact: readonly LaneHit[], approximate: readonly LaneHit[]): number {
  const last = exact[exact.length - 1]?.score ?? Number.NEGATIVE_INFINITY;
  return approximate.filter((hit) => hit.score >= last - 1e-6).length / exact.length;
}

describe('VectorIndex with an HNSW graph', () => {
  const vectors = clusteredVectors(6_000, 7);
  const queries = clusteredVectors(60, 8);
  const index = new VectorIndex(vectors, DIMENSIONS);
  const built = index.buildGraph({ sliceMs: 1_000 });

  it('finds at least 95% of the exact top 10 (recall@10, fixed seed)', async () => {
    await built;
    expect(index.approximate).toBe(true);
    let total = 0;
    for (const query of queries) {
      total += recall(index.search(query, 10, undefined, { exact: true }), index.search(query, 10));
    }
    expect(total / queries.length).toBeGreaterThanOrEqual(0.95);
  });

  it('honours a filter, over-fetching when it keeps much and going exact when it keeps little', async () => {
    await built;
    const everyThird = (chunk: number) => chunk % 3 === 0;
    const firstHundred = (chunk: number) => chunk < 100;
    let total = 0;
    for (const query of queries) {
      const approximate = index.search(query, 10, everyThird);
      expect(approximate).toHaveLength(10);
      expect(approximate.every((hit) => everyThird(hit.index))).toBe(true);
      total += recall(index.search(query, 10, everyThird, { exact: true }), approximate);
      expect(index.search(query, 10, firstHundred)).toEqual(
        index.search(query, 10, firstHundred, { exact: true }),
      );
    }
    expect(total / queries.length).toBeGreaterThanOrEqual(0.95);
  });

  it('stores its graph: the same rows read it back and search the same', async () => {
    const graph = await built;
    const bytes = graph?.toBytes() ?? new Uint8Array();
    const reopened = new VectorIndex(vectors, DIMENSIONS);
    expect(reopened.attachGraph(bytes)).toBe(true);
    for (const query of queries.slice(0, 10))
      expect(reopened.search(query, 10)).toEqual(index.search(query, 10));
    expect(new VectorIndex(vectors.slice(1), DIMENSIONS).attachGraph(bytes)).toBe(false);
  });

  it('stays exact below the size where a graph pays', async () => {
    const small = new VectorIndex(vectors.slice(0, ANN_MIN_VECTORS - 1), DIMENSIONS);
    await small.buildGraph();
    expect(small.approximate).toBe(false);
    for (const query of queries.slice(0, 5))
      expect(small.search(query, 10)).toEqual(small.search(query, 10, undefined, { exact: true }));
  });

  it('leaves out chunks without a vector and maps rows back to chunk positions', () => {
    const sparse = new VectorIndex([null, vectors[0] ?? null, null, vectors[1] ?? null], DIMENSIONS);
    expect(sparse.vectorCount).toBe(2);
    expect(sparse.search(vectors[1] as Float32Array, 1)[0]?.index).toBe(3);
  });
});
