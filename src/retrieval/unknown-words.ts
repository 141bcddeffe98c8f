import type { LoadedIndex } from './load-knowledge-index.ts';

/**
 * The question's Chinese words no clause has, longest only: 一会儿 rather than its pieces 一会 and 会儿
 * (the keyword analysis yields both), whose own glosses would stray from what was asked.
 */
export function unknownWords(index: LoadedIndex, words: readonly string[]): string[] {
  const unknown = [
    ...new Set(
      words.filter((word) => /^\p{Script=Han}{2,}$/u.test(word) && index.words.documentFrequency(word) === 0),
    ),
  ];
  return unknown.filter((word) => !unknown.some((other) => other !== word && other.includes(word)));
}
