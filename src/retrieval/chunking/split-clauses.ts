import { DEFAULT_MAX_CHUNK_CHARS, DEFAULT_MIN_CHUNK_CHARS } from './chunk-types.ts';

/** Sentence and clause ends that close a policy clause; the mark stays with its clause. */
const CLAUSE_END = /[^。；！？;!?]*(?:[。；！？;!?]+[”’」』）)]*|$)/gu;
const SOFT_BREAK = /[，、,：:]/u;

/**
 * Split a paragraph into clauses at 。；！？ (and their ASCII forms). Very short pieces join the
 * clause before them, and a clause over the maximum is cut at the last comma that fits, or hard.
 */
export function splitClauses(
  paragraph: string,
  maxChars = DEFAULT_MAX_CHUNK_CHARS,
  minChars = DEFAULT_MIN_CHUNK_CHARS,
): string[] {
  const pieces: string[] = [];
  for (const match of paragraph.matchAll(CLAUSE_END)) {
    const piece = match[0].trim();
    if (piece.length === 0) continue;
    const previous = pieces[pieces.length - 1];
    if (previous !== undefined && (countChars(piece) < minChars || countChars(previous) < minChars)) {
      pieces[pieces.length - 1] = `${previous}${piece}`;
    } else {
      pieces.push(piece);
    }
  }
  return pieces.flatMap((piece) => splitLongClause(piece, maxChars));
}

/** Cut a clause over the maximum at the last comma that fits, or hard. */
export function splitLongClause(clause: string, maxChars = DEFAULT_MAX_CHUNK_CHARS): string[] {
  const characters = Array.from(clause);
  if (characters.length <= maxChars) return [clause];
  const parts: string[] = [];
  let rest = characters;
  while (rest.length > maxChars) {
    let cut = -1;
    for (let index = maxChars - 1; index >= Math.floor(maxChars / 2); index -= 1) {
      if (SOFT_BREAK.test(rest[index] ?? '')) {
        cut = index + 1;
        break;
      }
    }
    if (cut === -1) cut = maxChars;
    parts.push(rest.slice(0, cut).join('').trim());
    rest = rest.slice(cut);
  }
  const tail = rest.join('').trim();
  if (tail.length > 0) parts.push(tail);
  return parts;
}

/** Length in code points, so an emoji or a rare character counts once. */
export function countChars(text: string): number {
  let count = 0;
  for (const _character of text) count += 1;
  return count;
}
