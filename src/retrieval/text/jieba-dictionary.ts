import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Jieba } from '@node-rs/jieba';
import { normalizeText } from './normalize-text.ts';

// The segmenter's dictionary: jieba's general one, raised by the repo's user dictionary and the
// glossary's words. Apart from the analysis itself because it is built once and read nowhere else.

/**
 * The frequency given to user-dictionary words (the domain list and every multi-character term of the
 * synonym table). The base dictionary totals about 60 million; 2,000 is enough for jieba to keep a
 * listed word whole against its own characters (退货 has 34, 寄回 3) without making it swallow the
 * neighbours of words it overlaps (今天内容 stays 今天/内容 although 天内 is listed).
 */
export const USER_WORD_FREQUENCY = 2000;

const USER_DICTIONARY_URL = new URL('./user-dict.txt', import.meta.url);

/** jieba with its general dictionary and, at least as frequent, the user dictionary and `synonymWords`. */
export function createJieba(synonymWords: readonly string[]): Jieba {
  const { Jieba: JiebaClass, dict } = loadJieba();
  const jieba = JiebaClass.withDict(dict);

  const words = new Map<string, number>();
  for (const [word, frequency] of readUserDictionary()) {
    words.set(word, Math.max(words.get(word) ?? 0, frequency));
  }
  for (const word of synonymWords) if (!words.has(word)) words.set(word, USER_WORD_FREQUENCY);
  // Raise, never lower: a word the base dictionary already knows more often keeps its frequency.
  const base = baseFrequencies(dict, words);
  const lines = [...words]
    .filter(([word, frequency]) => (base.get(word) ?? 0) < frequency)
    .map(([word, frequency]) => `${word} ${frequency}`);
  if (lines.length > 0) jieba.loadDict(new TextEncoder().encode(lines.join('\n')));
  return jieba;
}

/** The repo's user dictionary, normalised like any text: [word, frequency] pairs. */
export function readUserDictionary(): [string, number][] {
  const entries: [string, number][] = [];
  for (const rawLine of readFileSync(USER_DICTIONARY_URL, 'utf8').split('\n')) {
    const line = rawLine.trim();
    if (line === '' || line.startsWith('#')) continue;
    const [word = '', frequencyText] = line.split(/\s+/);
    const normalized = normalizeText(word);
    if (normalized === '' || normalized.includes(' ')) continue;
    const frequency = frequencyText === undefined ? USER_WORD_FREQUENCY : Number.parseInt(frequencyText, 10);
    entries.push([normalized, Number.isFinite(frequency) && frequency > 0 ? frequency : USER_WORD_FREQUENCY]);
  }
  return entries;
}

function baseFrequencies(dict: Uint8Array, wanted: ReadonlyMap<string, number>): Map<string, number> {
  const found = new Map<string, number>();
  const text = new TextDecoder().decode(dict);
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    const space = text.indexOf(' ', start);
    if (space !== -1 && space < end) {
      const word = text.slice(start, space);
      if (wanted.has(word)) found.set(word, Number.parseInt(text.slice(space + 1, end), 10) || 0);
    }
    start = end + 1;
  }
  return found;
}

/**
 * @node-rs/jieba (a native addon) is an optional peer, with the rest of the Chinese text analysis:
 * loaded when a knowledge base first segments text.
 */
function loadJieba(): { Jieba: typeof Jieba; dict: Uint8Array } {
  const require = createRequire(import.meta.url);
  try {
    const { Jieba: JiebaClass } = require('@node-rs/jieba') as typeof import('@node-rs/jieba');
    const { dict } = require('@node-rs/jieba/dict.js') as { dict: Uint8Array };
    return { Jieba: JiebaClass, dict };
  } catch (error) {
    if (
      (error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND' ||
      !String(error).includes("'@node-rs/jieba")
    )
      throw error;
    throw new Error(
      'text analysis for knowledge bases needs the optional package @node-rs/jieba: install it with `npm install opencc-js @node-rs/jieba pinyin-pro`',
      { cause: error },
    );
  }
}
