import { readPackedTerms } from '../term-packer.ts';
import { extractIdentifiers } from './extract-identifiers.ts';
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
   * The same index from identifiers stored by `TermPacker` (see `InvertedIndex.fromPackedTerms`):
   * no regular expression runs over 100,000 clauses at open.
   */
  static fromPackedTerms(
    size: number,
    dictionary: readonly (string | undefined)[],
    packedOf: (chunk: number) => Uint8Array,
  ): IdentifierIndex {
    const index = new IdentifierIndex([]);
    for (let chunk = 0; chunk < size; chunk += 1) {
      readPackedTerms(packedOf(chunk), (id) => {
        const identifier = dictionary[id];
        if (identifier === undefined) throw new RangeError(`term id ${id} is not in the dictionary`);
        const chunks = index.#chunksByIdentifier.get(identifier);
        if (chunks === undefined) index.#chunksByIdentifier.set(identifier, [chunk]);
        else chunks.push(chunk);
      });
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
