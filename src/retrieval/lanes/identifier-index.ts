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
