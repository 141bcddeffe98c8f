import { type LaneHit, selectTop } from './select-top.ts';

interface Postings {
  chunks: Int32Array;
  frequencies: Float32Array;
}

/**
 * Term → (chunk, frequency) postings over a fixed set of chunks, with the two lexical scorings the
 * search uses: BM25 (the word lane) and tf-idf cosine (the character n-gram lane). Built once from
 * the store; a query touches only the postings of its own terms.
 */
export class InvertedIndex {
  readonly #postings = new Map<string, Postings>();
  readonly #lengths: Float32Array;
  readonly #norms: Float32Array;
  readonly #averageLength: number;
  readonly size: number;

  constructor(termLists: readonly (readonly string[])[]) {
    this.size = termLists.length;
    this.#lengths = new Float32Array(this.size);
    const building = new Map<string, { chunks: number[]; frequencies: number[] }>();
    let totalLength = 0;
    termLists.forEach((terms, chunk) => {
      this.#lengths[chunk] = terms.length;
      totalLength += terms.length;
      const counts = new Map<string, number>();
      for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
      for (const [term, count] of counts) {
        let entry = building.get(term);
        if (entry === undefined) {
          entry = { chunks: [], frequencies: [] };
          building.set(term, entry);
        }
        entry.chunks.push(chunk);
        entry.frequencies.push(count);
      }
    });
    this.#averageLength = this.size === 0 ? 0 : totalLength / this.size;
    this.#norms = new Float32Array(this.size);
    for (const [term, entry] of building) {
      const postings = {
        chunks: Int32Array.from(entry.chunks),
        frequencies: Float32Array.from(entry.frequencies),
      };
      this.#postings.set(term, postings);
      const idf = this.#idf(postings.chunks.length);
      for (let position = 0; position < postings.chunks.length; position += 1) {
        const weight = (1 + Math.log(postings.frequencies[position] ?? 1)) * idf;
        const chunk = postings.chunks[position] ?? 0;
        this.#norms[chunk] = (this.#norms[chunk] ?? 0) + weight * weight;
      }
    }
    for (let chunk = 0; chunk < this.size; chunk += 1)
      this.#norms[chunk] = Math.sqrt(this.#norms[chunk] ?? 0);
  }

  /** How many chunks contain `term`. */
  documentFrequency(term: string): number {
    return this.#postings.get(term)?.chunks.length ?? 0;
  }

  /** Okapi BM25 (k1 = 1.2, b = 0.75) with the non-negative idf of Lucene. */
  bm25(queryTerms: readonly string[], limit: number, allowed?: (chunk: number) => boolean): LaneHit[] {
    const k1 = 1.2;
    const b = 0.75;
    const scores = new Map<number, number>();
    for (const term of new Set(queryTerms)) {
      const postings = this.#postings.get(term);
      if (postings === undefined) continue;
      const idf = Math.log(1 + (this.size - postings.chunks.length + 0.5) / (postings.chunks.length + 0.5));
      for (let position = 0; position < postings.chunks.length; position += 1) {
        const chunk = postings.chunks[position] ?? 0;
        const frequency = postings.frequencies[position] ?? 0;
        const length = this.#lengths[chunk] ?? 0;
        const saturation =
          (frequency * (k1 + 1)) / (frequency + k1 * (1 - b + (b * length) / (this.#averageLength || 1)));
        scores.set(chunk, (scores.get(chunk) ?? 0) + idf * saturation);
      }
    }
    return selectTop(filterCandidates(scores.keys(), allowed), (chunk) => scores.get(chunk) ?? 0, limit);
  }

  /**
   * Cosine of sub-linear tf-idf vectors. Scores are comparable across queries (0 to 1), which is what
   * the low-evidence signal needs: the top hit's cosine says how much of the question the best
   * clause covers.
   */
  cosine(queryTerms: readonly string[], limit: number, allowed?: (chunk: number) => boolean): LaneHit[] {
    const queryCounts = new Map<string, number>();
    for (const term of queryTerms) queryCounts.set(term, (queryCounts.get(term) ?? 0) + 1);
    const dots = new Map<number, number>();
    let queryNorm = 0;
    for (const [term, count] of queryCounts) {
      const postings = this.#postings.get(term);
      if (postings === undefined) continue;
      const idf = this.#idf(postings.chunks.length);
      const queryWeight = (1 + Math.log(count)) * idf;
      queryNorm += queryWeight * queryWeight;
      for (let position = 0; position < postings.chunks.length; position += 1) {
        const chunk = postings.chunks[position] ?? 0;
        const weight = (1 + Math.log(postings.frequencies[position] ?? 1)) * idf;
        dots.set(chunk, (dots.get(chunk) ?? 0) + queryWeight * weight);
      }
    }
    // Terms no chunk contains still make the question longer: they count against every match.
    for (const [term, count] of queryCounts) {
      if (!this.#postings.has(term)) {
        const unseen = (1 + Math.log(count)) * this.#idf(0);
        queryNorm += unseen * unseen;
      }
    }
    const denominator = Math.sqrt(queryNorm);
    const scoreOf = (chunk: number) => (dots.get(chunk) ?? 0) / (denominator * (this.#norms[chunk] || 1));
    return selectTop(filterCandidates(dots.keys(), allowed), scoreOf, limit);
  }

  #idf(documentFrequency: number): number {
    return Math.log((this.size + 1) / (documentFrequency + 1)) + 1;
  }
}

function* filterCandidates(
  candidates: Iterable<number>,
  allowed?: (chunk: number) => boolean,
): Iterable<number> {
  for (const candidate of candidates) if (allowed === undefined || allowed(candidate)) yield candidate;
}
