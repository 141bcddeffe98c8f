import { dotAt } from './dot-at.ts';
import { seededRandom } from './seeded-random.ts';

/** Bump when `toBytes` changes: a stored graph of another format is rebuilt. */
const GRAPH_FORMAT = 1;

export interface HnswOptions {
  /** Links per node on the upper layers (M); the bottom layer keeps twice as many. Default 16. */
  links?: number;
  /** Candidates kept while inserting (efConstruction): wider is slower to build, better linked. Default 100. */
  buildBreadth?: number;
  /** Seed of the level draw, so that the same vectors always give the same graph. Default 1. */
  seed?: number;
}

/**
 * A hierarchical navigable small-world graph (Malkov & Yashunin, 2016) over unit vectors, scored by
 * dot product (their cosine). Pure TypeScript, so it installs wherever Node does: the native
 * candidates failed here (usearch 2.26 needs Node 22; hnswlib-node compiles with node-gyp at
 * install), see docs/retrieval.md, "Scale".
 *
 * Nodes are rows of `matrix`, inserted in order. The bottom layer's links live in one flat
 * Int32Array (2M slots a node); the few nodes on upper layers keep small arrays. A search allocates
 * nothing proportional to the corpus: the visited marks are one reused array of generations.
 * Insertion is incremental (`insertNext`), so a large graph can be built a slice at a time.
 */
export class HnswGraph {
  readonly dimensions: number;
  readonly size: number;
  readonly #matrix: Float32Array;
  readonly #links: number;
  readonly #bottomLinks: number;
  readonly #buildBreadth: number;
  readonly #random: () => number;
  readonly #levelScale: number;
  /** Bottom layer: node n's neighbours are `#bottom[n * bottomLinks …]`, `#bottomCount[n]` of them. */
  readonly #bottom: Int32Array;
  readonly #bottomCount: Uint8Array;
  /** Upper layers: `#upper[n][level - 1]` lists n's neighbours on that level. */
  readonly #upper: (number[][] | undefined)[];
  #entry = -1;
  #topLevel = -1;
  #inserted = 0;
  readonly #visited: Uint32Array;
  #generation = 0;
  readonly #candidates = new ScoredHeap(true);
  readonly #results = new ScoredHeap(false);

  constructor(matrix: Float32Array, dimensions: number, options: HnswOptions = {}) {
    this.dimensions = dimensions;
    this.size = dimensions === 0 ? 0 : matrix.length / dimensions;
    this.#matrix = matrix;
    this.#links = options.links ?? 16;
    this.#bottomLinks = this.#links * 2;
    this.#buildBreadth = options.buildBreadth ?? 100;
    this.#random = seededRandom(options.seed ?? 1);
    this.#levelScale = 1 / Math.log(this.#links);
    this.#bottom = new Int32Array(this.size * this.#bottomLinks);
    this.#bottomCount = new Uint8Array(this.size);
    this.#upper = new Array(this.size);
    this.#visited = new Uint32Array(this.size);
  }

  /**
   * The links as int32 words, to store beside the vectors: a graph of 100,000 nodes takes about
   * 14 MB and reads back in milliseconds, where building it again takes minutes. Layout: a header
   * (format, size, dimensions, links, entry, top level), each node's level and bottom-layer link
   * count, the bottom layer's link slots, then each upper-layer node's lists as (count, ids…).
   */
  toBytes(): Uint8Array {
    if (!this.complete) throw new Error('the graph is still being built');
    const words: number[] = [];
    for (let node = 0; node < this.size; node += 1) {
      for (const list of this.#upper[node] ?? []) words.push(list.length, ...list);
    }
    const header = [GRAPH_FORMAT, this.size, this.dimensions, this.#links, this.#entry, this.#topLevel];
    const out = new Int32Array(header.length + this.size * 2 + this.#bottom.length + words.length);
    out.set(header, 0);
    let position = header.length;
    for (let node = 0; node < this.size; node += 1) {
      out[position] = this.#upper[node]?.length ?? 0;
      out[position + 1] = this.#bottomCount[node] as number;
      position += 2;
    }
    out.set(this.#bottom, position);
    out.set(words, position + this.#bottom.length);
    return new Uint8Array(out.buffer);
  }

  /** A graph stored by `toBytes`, over the same rows; undefined when it does not fit them. */
  static fromBytes(bytes: Uint8Array, matrix: Float32Array, dimensions: number): HnswGraph | undefined {
    const aligned = new Uint8Array(bytes.byteLength);
    aligned.set(bytes);
    const words = new Int32Array(aligned.buffer);
    const [format, size, storedDimensions, links, entry, topLevel] = words;
    if (format !== GRAPH_FORMAT || storedDimensions !== dimensions || size !== matrix.length / dimensions)
      return undefined;
    const graph = new HnswGraph(matrix, dimensions, { links: links ?? 16 });
    let position = 6;
    const levels = new Int32Array(size);
    for (let node = 0; node < size; node += 1) {
      levels[node] = words[position] as number;
      graph.#bottomCount[node] = words[position + 1] as number;
      position += 2;
    }
    graph.#bottom.set(words.subarray(position, position + graph.#bottom.length));
    position += graph.#bottom.length;
    for (let node = 0; node < size; node += 1) {
      const level = levels[node] as number;
      if (level === 0) continue;
      const lists: number[][] = [];
      for (let layer = 0; layer < level; layer += 1) {
        const count = words[position] as number;
        lists.push(Array.from(words.subarray(position + 1, position + 1 + count)));
        position += 1 + count;
      }
      graph.#upper[node] = lists;
    }
    graph.#entry = entry ?? -1;
    graph.#topLevel = topLevel ?? -1;
    graph.#inserted = size;
    return graph;
  }

  /** How many rows are in the graph so far. */
  get insertedCount(): number {
    return this.#inserted;
  }

  get complete(): boolean {
    return this.#inserted === this.size;
  }

  /** Insert the next row; false when every row is in. */
  insertNext(): boolean {
    if (this.#inserted >= this.size) return false;
    const node = this.#inserted;
    this.#inserted += 1;
    const level = Math.min(15, Math.floor(-Math.log(1 - this.#random()) * this.#levelScale));
    if (level > 0) this.#upper[node] = Array.from({ length: level }, () => []);
    if (this.#entry === -1) {
      this.#entry = node;
      this.#topLevel = level;
      return true;
    }
    const offset = node * this.dimensions;
    const query = this.#matrix.subarray(offset, offset + this.dimensions);
    let entry = this.#entry;
    for (let layer = this.#topLevel; layer > level; layer -= 1) entry = this.#greedy(query, entry, layer);
    for (let layer = Math.min(level, this.#topLevel); layer >= 0; layer -= 1) {
      const found = this.#searchLayer(query, entry, this.#buildBreadth, layer);
      const capacity = layer === 0 ? this.#bottomLinks : this.#links;
      const chosen = this.#selectNeighbours(found, capacity);
      this.#setNeighbours(node, layer, chosen);
      for (const neighbour of chosen) this.#link(neighbour, node, layer, capacity);
      entry = found[0]?.node ?? entry;
    }
    if (level > this.#topLevel) {
      this.#entry = node;
      this.#topLevel = level;
    }
    return true;
  }

  /**
   * The `limit` rows most similar to `query` (a unit vector) found with `breadth` candidates (ef),
   * best first. Only rows inserted so far take part.
   */
  search(query: Float32Array, limit: number, breadth: number): { node: number; score: number }[] {
    if (this.#entry === -1 || limit <= 0) return [];
    let entry = this.#entry;
    for (let layer = this.#topLevel; layer > 0; layer -= 1) entry = this.#greedy(query, entry, layer);
    return this.#searchLayer(query, entry, Math.max(breadth, limit), 0).slice(0, limit);
  }

  #neighbours(node: number, layer: number): ArrayLike<number> {
    if (layer === 0) {
      const start = node * this.#bottomLinks;
      return this.#bottom.subarray(start, start + (this.#bottomCount[node] as number));
    }
    return this.#upper[node]?.[layer - 1] ?? [];
  }

  #setNeighbours(node: number, layer: number, neighbours: readonly number[]): void {
    if (layer === 0) {
      this.#bottom.set(neighbours, node * this.#bottomLinks);
      this.#bottomCount[node] = neighbours.length;
      return;
    }
    const levels = this.#upper[node];
    if (levels) levels[layer - 1] = [...neighbours];
  }

  /** Add `node` to `target`'s links; when they are full, keep the best spread of them (the heuristic). */
  #link(target: number, node: number, layer: number, capacity: number): void {
    const current = Array.from(this.#neighbours(target, layer));
    if (current.length < capacity) {
      current.push(node);
      this.#setNeighbours(target, layer, current);
      return;
    }
    const scored = [...current, node]
      .map((candidate) => ({ node: candidate, score: this.#dotRows(target, candidate) }))
      .sort((a, b) => b.score - a.score);
    this.#setNeighbours(target, layer, this.#selectNeighbours(scored, capacity));
  }

  /**
   * The neighbour heuristic of the paper (algorithm 4), as hnswlib does it: take candidates best
   * first, keeping one only when it is closer to the new node than to every one already kept, so
   * links spread out instead of crowding one cluster.
   */
  #selectNeighbours(sortedBestFirst: readonly { node: number; score: number }[], capacity: number): number[] {
    if (sortedBestFirst.length <= capacity) return sortedBestFirst.map((entry) => entry.node);
    const kept: number[] = [];
    for (const candidate of sortedBestFirst) {
      if (kept.length >= capacity) break;
      let diverse = true;
      for (const other of kept) {
        if (this.#dotRows(candidate.node, other) > candidate.score) {
          diverse = false;
          break;
        }
      }
      if (diverse) kept.push(candidate.node);
    }
    return kept;
  }

  #dotRows(first: number, second: number): number {
    const matrix = this.#matrix;
    const length = this.dimensions;
    const a = first * length;
    const b = second * length;
    let sum0 = 0;
    let sum1 = 0;
    let index = 0;
    for (; index + 1 < length; index += 2) {
      sum0 += (matrix[a + index] as number) * (matrix[b + index] as number);
      sum1 += (matrix[a + index + 1] as number) * (matrix[b + index + 1] as number);
    }
    for (; index < length; index += 1) sum0 += (matrix[a + index] as number) * (matrix[b + index] as number);
    return sum0 + sum1;
  }

  #greedy(query: Float32Array, start: number, layer: number): number {
    let best = start;
    let bestScore = this.#dot(query, start);
    for (let improved = true; improved; ) {
      improved = false;
      const neighbours = this.#neighbours(best, layer);
      for (let index = 0; index < neighbours.length; index += 1) {
        const neighbour = neighbours[index] as number;
        const score = this.#dot(query, neighbour);
        if (score > bestScore) {
          bestScore = score;
          best = neighbour;
          improved = true;
        }
      }
    }
    return best;
  }

  /** Best-first search of one layer keeping `breadth` results; returns them best first. */
  #searchLayer(
    query: Float32Array,
    entry: number,
    breadth: number,
    layer: number,
  ): { node: number; score: number }[] {
    this.#generation += 1;
    if (this.#generation === 0xffffffff) {
      this.#visited.fill(0);
      this.#generation = 1;
    }
    const generation = this.#generation;
    const visited = this.#visited;
    const candidates = this.#candidates;
    const results = this.#results;
    candidates.clear();
    results.clear();
    const entryScore = this.#dot(query, entry);
    visited[entry] = generation;
    candidates.push(entry, entryScore);
    results.push(entry, entryScore);
    while (candidates.length > 0) {
      const score = candidates.topScore;
      const node = candidates.pop();
      if (results.length >= breadth && score < results.topScore) break;
      const neighbours = this.#neighbours(node, layer);
      for (let index = 0; index < neighbours.length; index += 1) {
        const neighbour = neighbours[index] as number;
        if (neighbour >= this.#inserted || visited[neighbour] === generation) continue;
        visited[neighbour] = generation;
        const neighbourScore = this.#dot(query, neighbour);
        if (results.length < breadth || neighbourScore > results.topScore) {
          candidates.push(neighbour, neighbourScore);
          results.push(neighbour, neighbourScore);
          if (results.length > breadth) results.pop();
        }
      }
    }
    const found: { node: number; score: number }[] = new Array(results.length);
    for (let index = results.length - 1; index >= 0; index -= 1) {
      const score = results.topScore;
      found[index] = { node: results.pop(), score };
    }
    return found;
  }

  #dot(query: Float32Array, node: number): number {
    return dotAt(this.#matrix, node * this.dimensions, query);
  }
}

/**
 * A binary heap of (node, score) in growable typed arrays: the best score on top when `bestOnTop`,
 * the worst otherwise. Reused across searches, so a query allocates no heap entries.
 */
class ScoredHeap {
  readonly #bestOnTop: boolean;
  #nodes = new Int32Array(256);
  #scores = new Float64Array(256);
  length = 0;

  constructor(bestOnTop: boolean) {
    this.#bestOnTop = bestOnTop;
  }

  clear(): void {
    this.length = 0;
  }

  get topScore(): number {
    return this.#scores[0] as number;
  }

  #above(a: number, b: number): boolean {
    return this.#bestOnTop ? a > b : a < b;
  }

  push(node: number, score: number): void {
    if (this.length === this.#nodes.length) {
      const nodes = new Int32Array(this.length * 2);
      nodes.set(this.#nodes);
      this.#nodes = nodes;
      const scores = new Float64Array(this.length * 2);
      scores.set(this.#scores);
      this.#scores = scores;
    }
    let position = this.length;
    this.length += 1;
    while (position > 0) {
      const parent = (position - 1) >> 1;
      const parentScore = this.#scores[parent] as number;
      if (!this.#above(score, parentScore)) break;
      this.#nodes[position] = this.#nodes[parent] as number;
      this.#scores[position] = parentScore;
      position = parent;
    }
    this.#nodes[position] = node;
    this.#scores[position] = score;
  }

  /** Remove the top entry and return its node. */
  pop(): number {
    const top = this.#nodes[0] as number;
    this.length -= 1;
    const length = this.length;
    if (length === 0) return top;
    const node = this.#nodes[length] as number;
    const score = this.#scores[length] as number;
    let position = 0;
    for (;;) {
      const left = 2 * position + 1;
      if (left >= length) break;
      const right = left + 1;
      let child = left;
      if (right < length && this.#above(this.#scores[right] as number, this.#scores[left] as number))
        child = right;
      if (!this.#above(this.#scores[child] as number, score)) break;
      this.#nodes[position] = this.#nodes[child] as number;
      this.#scores[position] = this.#scores[child] as number;
      position = child;
    }
    this.#nodes[position] = node;
    this.#scores[position] = score;
    return top;
  }
}
