/**
 * Interns terms and packs one chunk's terms as (term id, count) pairs, each number a LEB128 varint
 * (seven bits a byte), in the order each term first occurs in the chunk. That order is what
 * `InvertedIndex` sees when it analyses a chunk itself, so an index built from packed terms is the
 * same index, to the last bit of every score. Varints because nearly every count is 1 and most ids
 * fit two bytes: 100,000 synthetic clauses pack their n-grams into about 30 MB instead of 86 MB of
 * uint32 pairs, and reading the store is most of the time it takes to open.
 */
export class TermPacker {
  /** Term → id in this packer's dictionary; `dictionary[id]` is the term. */
  readonly #ids = new Map<string, number>();
  readonly dictionary: string[] = [];
  readonly #counts = new Map<number, number>();

  pack(terms: readonly string[]): Uint8Array {
    const counts = this.#counts;
    counts.clear();
    for (const term of terms) {
      let id = this.#ids.get(term);
      if (id === undefined) {
        id = this.dictionary.length;
        this.#ids.set(term, id);
        this.dictionary.push(term);
      }
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    const writer = new PackedTermsWriter(counts.size * 3);
    for (const [id, count] of counts) writer.write(id, count);
    return writer.finish();
  }
}

/** Appends (id, count) varint pairs to a growable byte array. */
export class PackedTermsWriter {
  #bytes: Uint8Array;
  #length = 0;

  constructor(capacity = 64) {
    this.#bytes = new Uint8Array(Math.max(capacity, 16));
  }

  write(id: number, count: number): void {
    if (this.#length + 10 > this.#bytes.length) {
      const larger = new Uint8Array(this.#bytes.length * 2 + 10);
      larger.set(this.#bytes);
      this.#bytes = larger;
    }
    this.#length = writeVarint(this.#bytes, this.#length, id);
    this.#length = writeVarint(this.#bytes, this.#length, count);
  }

  finish(): Uint8Array {
    return this.#bytes.slice(0, this.#length);
  }
}

function writeVarint(bytes: Uint8Array, start: number, value: number): number {
  let position = start;
  let rest = value >>> 0;
  while (rest >= 0x80) {
    bytes[position] = (rest & 0x7f) | 0x80;
    position += 1;
    rest >>>= 7;
  }
  bytes[position] = rest;
  return position + 1;
}

/**
 * Calls `visit(id, count)` for each pair of a packed chunk, in order. Decoded in place: opening
 * 100,000 chunks allocates nothing per pair.
 */
export function readPackedTerms(packed: Uint8Array, visit: (id: number, count: number) => void): void {
  let position = 0;
  const length = packed.length;
  while (position < length) {
    let id = 0;
    let shift = 0;
    let byte: number;
    do {
      byte = packed[position] as number;
      position += 1;
      id += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte >= 0x80 && position < length);
    let count = 0;
    shift = 0;
    do {
      byte = packed[position] as number;
      position += 1;
      count += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte >= 0x80 && position < length);
    visit(id, count);
  }
}
