import type { StoredChunk } from './knowledge-store.ts';

/** Where a matched clause sits in a hit's `context`: UTF-16 offsets, end exclusive. */
export interface ContextSpan {
  start: number;
  end: number;
}

export interface PassageContext {
  /** The parent passage, or the part of it around the matched clauses that fits the cap. */
  text: string;
  /** The matched clauses within `text`, the best first. */
  highlights: ContextSpan[];
  /**
   * The source line of each line of `text` (split at `\n`): clauses from different source lines are
   * never joined on one line, so a quote taken from the context can be cited at its own line.
   */
  lines: number[];
}

/** Between two clauses that are not next to each other in the passage, and at a cut edge. */
export const CONTEXT_ELLIPSIS = '…';

type PassageChunk = Pick<StoredChunk, 'docId' | 'parent' | 'line' | 'text'>;

/**
 * Which clauses make up each parent passage (a paragraph, list item, table or FAQ entry), so a hit
 * can carry the passage around its clause: small to big. Clauses are scored on their own, since a
 * short unit ranks precisely; the answer, though, is often the clause next to the one that matched
 * ("type code 02 is an e-invoice." … "it is sent to your e-mail."), and the model and the shopper
 * need to see it.
 *
 * Chunks come in store order (documents in id order, clauses in order), so a passage is a run of
 * neighbours with the same document and parent number. Two typed arrays hold the runs: a lookup per
 * hit and no objects per chunk, which matters at 100,000 clauses.
 */
export class PassageIndex {
  readonly #chunks: readonly PassageChunk[];
  /** For each chunk, the position of its passage's first clause: the passage's key. */
  readonly #first: Int32Array;
  /** For each chunk, one past the position of its passage's last clause. */
  readonly #end: Int32Array;

  constructor(chunks: readonly PassageChunk[]) {
    this.#chunks = chunks;
    this.#first = new Int32Array(chunks.length);
    this.#end = new Int32Array(chunks.length);
    let start = 0;
    for (let position = 1; position <= chunks.length; position += 1) {
      if (position < chunks.length && samePassage(chunks[start], chunks[position])) continue;
      this.#first.fill(start, start, position);
      this.#end.fill(position, start, position);
      start = position;
    }
  }

  /** The passage a clause belongs to, as the position of its first clause. */
  passageOf(position: number): number {
    return this.#first[position] ?? position;
  }

  /**
   * The context of a hit: its passage whole when it fits in `maxChars`, else the matched clauses
   * (`matched`, the best first; the first is always kept) and as many neighbours as fit, the next
   * clause before the previous one (a clause is more often explained by what follows it), with `…`
   * where clauses are left out.
   */
  context(matched: readonly number[], maxChars: number): PassageContext {
    const primary = matched[0];
    if (primary === undefined) return { text: '', highlights: [], lines: [] };
    const start = this.#first[primary] ?? primary;
    const end = this.#end[primary] ?? primary + 1;
    const selected = new Uint8Array(end - start);
    const lengthOf = (position: number) => (this.#chunks[position]?.text.length ?? 0) + 1;
    let used = 0;
    const take = (position: number): boolean => {
      if (selected[position - start] === 1) return true;
      const length = lengthOf(position);
      if (used > 0 && used + length > maxChars) return false;
      selected[position - start] = 1;
      used += length;
      return true;
    };

    let whole = 0;
    for (let position = start; position < end; position += 1) whole += lengthOf(position);
    if (whole <= maxChars) {
      selected.fill(1);
    } else {
      // The best clause with the sentence on each side first: the answer is most often the clause
      // next to the one that matched (a definition, then what follows from it). Then the other
      // clauses of the passage that matched.
      take(primary);
      if (primary + 1 < end) take(primary + 1);
      if (primary - 1 >= start) take(primary - 1);
      for (const position of matched) if (position >= start && position < end) take(position);
      let low = end;
      let high = start - 1;
      for (let position = start; position < end; position += 1) {
        if (selected[position - start] !== 1) continue;
        low = Math.min(low, position);
        high = Math.max(high, position);
      }
      // The clauses between two matched ones first, so the context reads as one stretch.
      for (let position = low; position <= high; position += 1) take(position);
      // Then outwards, one clause on each side at a time, each side until a clause does not fit.
      let growAfter = true;
      let growBefore = true;
      while (growAfter || growBefore) {
        if (growAfter) {
          growAfter = high + 1 < end && take(high + 1);
          if (growAfter) high += 1;
        }
        if (growBefore) {
          growBefore = low - 1 >= start && take(low - 1);
          if (growBefore) low -= 1;
        }
      }
    }
    return this.#render(start, end, selected, matched);
  }

  #render(start: number, end: number, selected: Uint8Array, matched: readonly number[]): PassageContext {
    let text = '';
    const spans = new Map<number, ContextSpan>();
    const lines: number[] = [];
    let previous: number | undefined;
    for (let position = start; position < end; position += 1) {
      if (selected[position - start] !== 1) continue;
      const chunk = this.#chunks[position] as PassageChunk;
      if (previous === undefined) {
        lines.push(chunk.line);
        if (position > start) text += CONTEXT_ELLIPSIS;
      } else {
        const before = this.#chunks[previous] as PassageChunk;
        const gap = previous + 1 < position;
        if (before.line !== chunk.line) {
          text += gap ? `${CONTEXT_ELLIPSIS}\n` : '\n';
          lines.push(chunk.line);
        } else {
          text += gap ? CONTEXT_ELLIPSIS : joiner(before, chunk);
        }
      }
      spans.set(position, { start: text.length, end: text.length + chunk.text.length });
      text += chunk.text;
      // A clause with line breaks of its own (an FAQ answer) keeps `lines` one per line of `text`.
      for (let at = chunk.text.indexOf('\n'); at !== -1; at = chunk.text.indexOf('\n', at + 1))
        lines.push(chunk.line);
      previous = position;
    }
    if (previous !== undefined && previous + 1 < end) text += CONTEXT_ELLIPSIS;
    const highlights: ContextSpan[] = [];
    for (const position of matched) {
      const span = spans.get(position);
      if (span !== undefined && !highlights.includes(span)) highlights.push(span);
    }
    return { text, highlights, lines };
  }
}

function samePassage(left: PassageChunk | undefined, right: PassageChunk | undefined): boolean {
  return (
    left !== undefined &&
    right !== undefined &&
    left.parent !== null &&
    left.parent === right.parent &&
    left.docId === right.docId
  );
}

/**
 * Clauses of one source line (a paragraph cut at 。；) join as they were written (rows of a table
 * or items of a list keep their line break). Latin words need the space Chinese does not.
 */
function joiner(left: PassageChunk, right: PassageChunk): string {
  return /[A-Za-z0-9]$/.test(left.text) && /^[A-Za-z0-9]/.test(right.text) ? ' ' : '';
}
