import { type LaneHit, selectTop } from './select-top.ts';

/**
 * Term → (chunk, frequency) postings over a fixed set of chunks, with the two lexical scorings the
 * search uses: BM25 (the word lane) and tf-idf cosine (the character n-gram lane).
 *
 * Built for 100,000+ chunks on a small machine: terms get integer ids and the postings live in three
 * flat typed arrays (compressed sparse rows: `offsets[term]` … `offsets[term + 1]`), not in a map of
 * JavaScript arrays, and a query accumulates into one reused dense score array, touching only the
 * postings of its own terms.
 */
/**
 * An index's postings before scoring: term ids, compressed sparse rows sorted by chunk within each
 * term, and each chunk's length in terms. Built from raw terms or from packed stored terms.
 */
export interface InvertedIndexPostings {
  termIds: Map<string, number>;
  offsets: Int32Array;
  postingChunks: Int32Array;
  postingFrequencies: Uint16Array;
  lengths: Float32Array;
  totalLength: number;
}

export class InvertedIndex {
  readonly size: number;
  readonly #termIds: Map<string, number>;
  readonly #offsets: Int32Array;
  readonly #postingChunks: Int32Array;
  readonly #postingFrequencies: Uint16Array;
  readonly #lengths: Float32Array;
  readonly #norms: Float32Array;
  readonly #averageLength: number;
  /** Scratch space for one query at a time (searches are synchronous, so never shared). */
  readonly #scores: Float64Array;
  readonly #touched: Int32Array;

  /**
   * `termsOf(chunk)` is called once per chunk, in order; its array is not kept. Or postings built
   * already (see `InvertedIndex.fromPackedTerms`).
   */
  constructor(size: number, source: ((chunk: number) => readonly string[]) | InvertedIndexPostings) {
    this.size = size;
    const postings = typeof source === 'function' ? postingsFromTerms(size, source) : source;
    this.#termIds = postings.termIds;
    this.#offsets = postings.offsets;
    this.#postingChunks = postings.postingChunks;
    this.#postingFrequencies = postings.postingFrequencies;
    this.#lengths = postings.lengths;
    this.#averageLength = size === 0 ? 0 : postings.totalLength / size;
    const termCount = this.#termIds.size;
    this.#norms = new Float32Array(size);
    for (let term = 0; term < termCount; term += 1) {
      const start = this.#offsets[term] as number;
      const end = this.#offsets[term + 1] as number;
      const idf = this.#idf(end - start);
      for (let position = start; position < end; position += 1) {
        const weight = sublinear(this.#postingFrequencies[position] as number) * idf;
        const chunk = this.#postingChunks[position] as number;
        this.#norms[chunk] = (this.#norms[chunk] as number) + weight * weight;
      }
    }
    for (let chunk = 0; chunk < size; chunk += 1)
      this.#norms[chunk] = Math.sqrt(this.#norms[chunk] as number);
    this.#scores = new Float64Array(size);
    this.#touched = new Int32Array(size);
  }

  /**
   * The same index as `new InvertedIndex(size, termsOf)`, from terms analysed earlier and packed by
   * `TermPacker`: `packedOf(chunk)` gives (term id, count) varint pairs in first-occurrence order,
   * ids into `dictionary`. No analyser runs: this is how a stored knowledge base opens in seconds.
   */
  static fromPackedTerms(
    size: number,
    dictionary: readonly (string | undefined)[],
    packedOf: (chunk: number) => Uint8Array,
  ): InvertedIndex {
    return new InvertedIndex(size, postingsFromPacked(size, dictionary, packedOf));
  }

  /** How many chunks contain `term`. */
  documentFrequency(term: string): number {
    const id = this.#termIds.get(term);
    return id === undefined ? 0 : (this.#offsets[id + 1] as number) - (this.#offsets[id] as number);
  }

  /** Every term with its document frequency, in first-seen order. */
  *terms(): IterableIterator<[term: string, documentFrequency: number]> {
    for (const [term, id] of this.#termIds) {
      yield [term, (this.#offsets[id + 1] as number) - (this.#offsets[id] as number)];
    }
  }

  get termCount(): number {
    return this.#termIds.size;
  }

  get postingCount(): number {
    return this.#postingChunks.length;
  }

  /**
   * Okapi BM25 (k1 = 1.2, b = 0.75) with the non-negative idf of Lucene. `termWeight` scales a query
   * term's contribution (default 1): a word the question only gains by paraphrase counts less.
   */
  bm25(
    queryTerms: readonly string[],
    limit: number,
    allowed?: (chunk: number) => boolean,
    termWeight?: (term: string) => number,
  ): LaneHit[] {
    const k1 = 1.2;
    const b = 0.75;
    const averageLength = this.#averageLength || 1;
    let touchedCount = 0;
    for (const term of new Set(queryTerms)) {
      const id = this.#termIds.get(term);
      if (id === undefined) continue;
      const start = this.#offsets[id] as number;
      const end = this.#offsets[id + 1] as number;
      const frequencyOfTerm = end - start;
      const idf =
        Math.log(1 + (this.size - frequencyOfTerm + 0.5) / (frequencyOfTerm + 0.5)) *
        (termWeight?.(term) ?? 1);
      for (let position = start; position < end; position += 1) {
        const chunk = this.#postingChunks[position] as number;
        const frequency = this.#postingFrequencies[position] as number;
        const length = this.#lengths[chunk] as number;
        const saturation = (frequency * (k1 + 1)) / (frequency + k1 * (1 - b + (b * length) / averageLength));
        if (this.#scores[chunk] === 0) this.#touched[touchedCount++] = chunk;
        this.#scores[chunk] = (this.#scores[chunk] as number) + idf * saturation;
      }
    }
    return this.#collect(touchedCount, limit, allowed, (chunk) => this.#scores[chunk] as number);
  }

  /**
   * Cosine of sub-linear tf-idf vectors. Scores are comparable across queries (0 to 1), which is what
   * the low-evidence signal needs: the top hit's cosine says how much of the question the best
   * clause covers. `termWeight` scales a query term's weight (default 1), as in `bm25`.
   */
  cosine(
    queryTerms: readonly string[],
    limit: number,
    allowed?: (chunk: number) => boolean,
    termWeight?: (term: string) => number,
  ): LaneHit[] {
    const queryCounts = new Map<string, number>();
    for (const term of queryTerms) queryCounts.set(term, (queryCounts.get(term) ?? 0) + 1);
    let queryNorm = 0;
    let touchedCount = 0;
    for (const [term, count] of queryCounts) {
      const id = this.#termIds.get(term);
      if (id === undefined) {
        // Terms no chunk contains still make the question longer: they count against every match.
        const unseen = (1 + Math.log(count)) * this.#idf(0) * (termWeight?.(term) ?? 1);
        queryNorm += unseen * unseen;
        continue;
      }
      const start = this.#offsets[id] as number;
      const end = this.#offsets[id + 1] as number;
      const idf = this.#idf(end - start);
      const queryWeight = (1 + Math.log(count)) * idf * (termWeight?.(term) ?? 1);
      queryNorm += queryWeight * queryWeight;
      const scale = queryWeight * idf;
      for (let position = start; position < end; position += 1) {
        const chunk = this.#postingChunks[position] as number;
        if (this.#scores[chunk] === 0) this.#touched[touchedCount++] = chunk;
        this.#scores[chunk] =
          (this.#scores[chunk] as number) + scale * sublinear(this.#postingFrequencies[position] as number);
      }
    }
    const denominator = Math.sqrt(queryNorm);
    return this.#collect(
      touchedCount,
      limit,
      allowed,
      (chunk) => (this.#scores[chunk] as number) / (denominator * ((this.#norms[chunk] as number) || 1)),
    );
  }

  /** Select the best touched chunks, then clear the scratch scores for the next query. */
  #collect(
    touchedCount: number,
    limit: number,
    allowed: ((chunk: number) => boolean) | undefined,
    scoreOf: (chunk: number) => number,
  ): LaneHit[] {
    const touched = this.#touched.subarray(0, touchedCount);
    const candidates = allowed === undefined ? touched : touched.filter((chunk) => allowed(chunk));
    const hits = selectTop(candidates, scoreOf, limit);
    for (const chunk of touched) this.#scores[chunk] = 0;
    return hits;
  }

  #idf(documentFrequency: number): number {
    return Math.log((this.size + 1) / (documentFrequency + 1)) + 1;
  }
}

/**
 * Postings from raw terms: (term id, chunk, frequency) triples in growable typed arrays, then a
 * counting sort by term id. Chunks are visited in order, so each term's postings come out sorted by
 * chunk. Term ids are given in order of first occurrence, chunk by chunk.
 */
function postingsFromTerms(
  size: number,
  termsOf: (chunk: number) => readonly string[],
): InvertedIndexPostings {
  const termIds = new Map<string, number>();
  const lengths = new Float32Array(size);
  let capacity = 1 << 16;
  let tripleTerms = new Int32Array(capacity);
  let tripleChunks = new Int32Array(capacity);
  let tripleFrequencies = new Uint16Array(capacity);
  let count = 0;
  let totalLength = 0;
  const counts = new Map<string, number>();
  for (let chunk = 0; chunk < size; chunk += 1) {
    const terms = termsOf(chunk);
    lengths[chunk] = terms.length;
    totalLength += terms.length;
    counts.clear();
    for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
    for (const [term, frequency] of counts) {
      let id = termIds.get(term);
      if (id === undefined) {
        id = termIds.size;
        termIds.set(term, id);
      }
      if (count === capacity) {
        capacity *= 2;
        tripleTerms = grow(tripleTerms, capacity);
        tripleChunks = grow(tripleChunks, capacity);
        tripleFrequencies = grow(tripleFrequencies, capacity);
      }
      tripleTerms[count] = id;
      tripleChunks[count] = chunk;
      tripleFrequencies[count] = Math.min(frequency, 0xffff);
      count += 1;
    }
  }
  const termCount = termIds.size;
  const offsets = new Int32Array(termCount + 1);
  for (let index = 0; index < count; index += 1) {
    const slot = (tripleTerms[index] as number) + 1;
    offsets[slot] = (offsets[slot] as number) + 1;
  }
  for (let term = 0; term < termCount; term += 1) {
    offsets[term + 1] = (offsets[term + 1] as number) + (offsets[term] as number);
  }
  const cursor = offsets.slice(0, termCount);
  const postingChunks = new Int32Array(count);
  const postingFrequencies = new Uint16Array(count);
  for (let index = 0; index < count; index += 1) {
    const term = tripleTerms[index] as number;
    const position = cursor[term] as number;
    cursor[term] = position + 1;
    postingChunks[position] = tripleChunks[index] as number;
    postingFrequencies[position] = tripleFrequencies[index] as number;
  }
  return { termIds, offsets, postingChunks, postingFrequencies, lengths, totalLength };
}

/**
 * Postings from packed stored terms (see `TermPacker`), in two passes over the packed bytes and no intermediate
 * triples: the first gives each stored id this index's id on first sight (the same order as
 * `postingsFromTerms`, so every floating-point sum comes out the same) and counts document
 * frequencies; the second drops each posting straight into its place.
 */
export function postingsFromPacked(
  size: number,
  dictionary: readonly (string | undefined)[],
  packedOf: (chunk: number) => Uint8Array,
): InvertedIndexPostings {
  const termIds = new Map<string, number>();
  const local = new Int32Array(dictionary.length).fill(-1);
  // Document frequency by local id, shifted by one to become the offsets in place.
  const offsets = new Int32Array(dictionary.length + 1);
  const lengths = new Float32Array(size);
  let totalLength = 0;
  let count = 0;
  // Both passes decode inline (see `readPackedTerms` for the format): they run for every posting
  // of the corpus, and a callback per pair measured a fifth of the open.
  for (let chunk = 0; chunk < size; chunk += 1) {
    const packed = packedOf(chunk);
    const end = packed.length;
    let length = 0;
    let position = 0;
    while (position < end) {
      let byte = packed[position++] as number;
      let stored = byte & 0x7f;
      for (let shift = 7; byte >= 0x80 && position < end; shift += 7) {
        byte = packed[position++] as number;
        stored |= (byte & 0x7f) << shift;
      }
      byte = packed[position++] as number;
      let frequency = byte & 0x7f;
      for (let shift = 7; byte >= 0x80 && position < end; shift += 7) {
        byte = packed[position++] as number;
        frequency |= (byte & 0x7f) << shift;
      }
      let id = local[stored];
      if (id === undefined) throw new RangeError(`term id ${stored} is not in the dictionary`);
      if (id === -1) {
        id = termIds.size;
        local[stored] = id;
        termIds.set(dictionary[stored] ?? '', id);
      }
      offsets[id + 1] = (offsets[id + 1] as number) + 1;
      length += frequency;
      count += 1;
    }
    lengths[chunk] = length;
    totalLength += length;
  }
  const termCount = termIds.size;
  for (let term = 0; term < termCount; term += 1) {
    offsets[term + 1] = (offsets[term + 1] as number) + (offsets[term] as number);
  }
  const cursor = offsets.slice(0, termCount);
  const postingChunks = new Int32Array(count);
  const postingFrequencies = new Uint16Array(count);
  for (let chunk = 0; chunk < size; chunk += 1) {
    const packed = packedOf(chunk);
    const end = packed.length;
    let position = 0;
    while (position < end) {
      let byte = packed[position++] as number;
      let stored = byte & 0x7f;
      for (let shift = 7; byte >= 0x80 && position < end; shift += 7) {
        byte = packed[position++] as number;
        stored |= (byte & 0x7f) << shift;
      }
      byte = packed[position++] as number;
      let frequency = byte & 0x7f;
      for (let shift = 7; byte >= 0x80 && position < end; shift += 7) {
        byte = packed[position++] as number;
        frequency |= (byte & 0x7f) << shift;
      }
      const term = local[stored] as number;
      const slot = cursor[term] as number;
      cursor[term] = slot + 1;
      postingChunks[slot] = chunk;
      postingFrequencies[slot] = Math.min(frequency, 0xffff);
    }
  }
  return {
    termIds,
    offsets: offsets.slice(0, termCount + 1),
    postingChunks,
    postingFrequencies,
    lengths,
    totalLength,
  };
}

/** 1 + ln(tf), from a table for the small frequencies that are nearly all of them. */
const SUBLINEAR = Float64Array.from({ length: 256 }, (_, frequency) =>
  frequency === 0 ? 0 : 1 + Math.log(frequency),
);

function sublinear(frequency: number): number {
  return frequency < 256 ? (SUBLINEAR[frequency] as number) : 1 + Math.log(frequency);
}

function grow<T extends Int32Array | Uint16Array>(array: T, capacity: number): T {
  const larger = new (array.constructor as new (length: number) => T)(capacity);
  larger.set(array);
  return larger;
}
