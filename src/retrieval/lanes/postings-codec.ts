import type { InvertedIndexPostings } from './inverted-index.ts';

/**
 * A lexical index's postings as one byte string, so that a large knowledge base opens by reading one
 * value per field instead of every chunk's terms: at 100,000 clauses, reading the chunks' packed
 * terms and scattering them into postings was two thirds of the open.
 *
 * Layout (little-endian): the magic `RSP1`; size, term count and posting count as uint32; the total
 * length as float64; the terms as UTF-8 JSON of one array (term id order) behind its byte length;
 * each chunk's length as float32; then per term, in id order, its document frequency and its
 * postings as varints: the gap to the previous chunk and the frequency. Postings are sorted by chunk
 * within a term, so the gaps are small: about 2.5 bytes a posting instead of 6 raw.
 */
const MAGIC = 0x31505352; // "RSP1" read as a little-endian uint32
const HEADER_BYTES = 4 + 4 * 3 + 8 + 4;

export function encodePostings(postings: InvertedIndexPostings): Uint8Array {
  const terms = new TextEncoder().encode(JSON.stringify([...postings.termIds.keys()]));
  const termCount = postings.termIds.size;
  const size = postings.lengths.length;
  const postingCount = postings.postingChunks.length;
  let bytes = new Uint8Array(HEADER_BYTES + terms.length + size * 4 + termCount * 2 + postingCount * 3);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, size, true);
  view.setUint32(8, termCount, true);
  view.setUint32(12, postingCount, true);
  view.setFloat64(16, postings.totalLength, true);
  view.setUint32(24, terms.length, true);
  bytes.set(terms, HEADER_BYTES);
  let position = HEADER_BYTES + terms.length;
  for (let chunk = 0; chunk < size; chunk += 1) {
    view.setFloat32(position, postings.lengths[chunk] as number, true);
    position += 4;
  }
  const write = (value: number) => {
    if (position + 5 > bytes.length) {
      const larger = new Uint8Array(bytes.length * 2);
      larger.set(bytes);
      bytes = larger;
    }
    let rest = value >>> 0;
    while (rest >= 0x80) {
      bytes[position++] = (rest & 0x7f) | 0x80;
      rest >>>= 7;
    }
    bytes[position++] = rest;
  };
  for (let term = 0; term < termCount; term += 1) {
    const start = postings.offsets[term] as number;
    const end = postings.offsets[term + 1] as number;
    write(end - start);
    let previous = 0;
    for (let index = start; index < end; index += 1) {
      const chunk = postings.postingChunks[index] as number;
      write(chunk - previous);
      write(postings.postingFrequencies[index] as number);
      previous = chunk;
    }
  }
  return bytes.slice(0, position);
}

/**
 * The postings `encodePostings` wrote. Throws a `RangeError` when the bytes are not such postings
 * or were written for another number of chunks: the caller rebuilds them from the stored terms.
 */
export function decodePostings(bytes: Uint8Array, expectedSize: number): InvertedIndexPostings {
  if (bytes.length < HEADER_BYTES) throw new RangeError('postings snapshot is truncated');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0, true) !== MAGIC) throw new RangeError('not a postings snapshot');
  const size = view.getUint32(4, true);
  const termCount = view.getUint32(8, true);
  const postingCount = view.getUint32(12, true);
  const totalLength = view.getFloat64(16, true);
  const termsLength = view.getUint32(24, true);
  if (size !== expectedSize)
    throw new RangeError(`postings snapshot is for ${size} chunks, not ${expectedSize}`);
  let position = HEADER_BYTES + termsLength;
  if (position + size * 4 > bytes.length) throw new RangeError('postings snapshot is truncated');
  const terms = JSON.parse(
    new TextDecoder().decode(bytes.subarray(HEADER_BYTES, HEADER_BYTES + termsLength)),
  ) as unknown;
  if (!Array.isArray(terms) || terms.length !== termCount) throw new RangeError('postings snapshot terms');
  const termIds = new Map<string, number>(terms.map((term, id) => [String(term), id]));
  const lengths = new Float32Array(size);
  for (let chunk = 0; chunk < size; chunk += 1) {
    lengths[chunk] = view.getFloat32(position, true);
    position += 4;
  }
  const end = bytes.length;
  // The rare varint of two bytes or more; nearly every gap and frequency fits one byte, read inline
  // below (a call per number measured half the decode).
  const readLong = (first: number): number => {
    let value = first & 0x7f;
    let byte = first;
    for (let shift = 7; byte >= 0x80; shift += 7) {
      if (position >= end) throw new RangeError('postings snapshot is truncated');
      byte = bytes[position++] as number;
      value += (byte & 0x7f) * 2 ** shift;
    }
    return value;
  };
  const offsets = new Int32Array(termCount + 1);
  const postingChunks = new Int32Array(postingCount);
  const postingFrequencies = new Uint16Array(postingCount);
  let index = 0;
  for (let term = 0; term < termCount; term += 1) {
    if (position >= end) throw new RangeError('postings snapshot is truncated');
    let byte = bytes[position++] as number;
    const frequency = byte < 0x80 ? byte : readLong(byte);
    const last = index + frequency;
    if (last > postingCount) throw new RangeError('postings snapshot counts disagree');
    let chunk = 0;
    for (; index < last; index += 1) {
      // A pair needs two bytes at least; past the end, `undefined` would read as 0.
      if (position + 1 >= end) throw new RangeError('postings snapshot is truncated');
      byte = bytes[position++] as number;
      chunk += byte < 0x80 ? byte : readLong(byte);
      postingChunks[index] = chunk;
      byte = bytes[position++] as number;
      postingFrequencies[index] = byte < 0x80 ? byte : readLong(byte);
    }
    if (chunk >= size) throw new RangeError('postings snapshot names a chunk out of range');
    offsets[term + 1] = index;
  }
  if (index !== postingCount || position !== end) throw new RangeError('postings snapshot counts disagree');
  return { termIds, offsets, postingChunks, postingFrequencies, lengths, totalLength };
}
