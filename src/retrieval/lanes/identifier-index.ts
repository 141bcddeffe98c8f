import { extractIdentifiers } from './extract-identifiers.ts';
import type { InvertedIndexPostings } from './inverted-index.ts';
import { type LaneHit, selectTop } from './select-top.ts';

/**
 * The exact lane: identifier → the chunks that contain it. A chunk scores the number of the query's
 * identifiers it contains; a near miss (NS-X2-BLK-L for NS-X2-BLK-M) scores nothing here.
 */
export class IdentifierIndex {
  readonly #chunksByIdentifier = new Map<string, number[]>();

  constructor(texts: readonly string[]) {
    texts.forEach((text, chunk) => {
      for (const identifier of extractIdentifiers(text)) {
        const chunks = this.#chunksByIdentifier.get(identifier);
        if (chunks === undefined) this.#chunksByIdentifier.set(identifier, [chunk]);
        else chunks.push(chunk);
      }
    });
  }

  /**
   * The same index from postings (stored or built by `postingsFromPacked`): each identifier's
   * chunks in chunk order, as the other constructors leave them.
   */
  static fromPostings(postings: InvertedIndexPostings): IdentifierIndex {
    const index = new IdentifierIndex([]);
    for (const [identifier, id] of postings.termIds) {
      const start = postings.offsets[id] as number;
      const end = postings.offsets[id + 1] as number;
      index.#chunksByIdentifier.set(identifier, Array.from(postings.postingChunks.subarray(start, end)));
    }
    return index;
  }

  search(identifiers: readonly string[], limit: number, allowed?: (chunk: number) => boolean): LaneHit[] {
    const scores = new Map<number, number>();
    for (const identifier of new Set(identifiers)) {
      for (const chunk of this.#chunksByIdentifier.get(identifier) ?? []) {
        if (allowed === undefined || allowed(chunk)) scores.set(chunk, (scores.get(chunk) ?? 0) + 1);
      }
    }
    return selectTop(scores.keys(), (chunk) => scores.get(chunk) ?? 0, limit);
  }
}
