import { createRequire } from 'node:module';

type PinyinFunction = (text: string, options: { toneType: 'none'; type: 'array' }) => string[];

let convert: PinyinFunction | undefined;
/** Toneless pinyin of each Han character met so far: the vocabulary of a corpus is a few thousand. */
const READINGS = new Map<string, string>();
const HAN = /\p{Script=Han}/u;

/**
 * The toneless pinyin of one Han character, in its most common reading (行 is always xing): the same
 * for documents and queries, which is all that matching needs, and per character, so a clause costs
 * a map lookup per character instead of a word-segmenting conversion (100k clauses in well under a
 * second instead of about 7 s).
 */
export function readingOf(character: string): string {
  let reading = READINGS.get(character);
  if (reading === undefined) {
    convert ??= loadPinyin();
    reading = convert(character, { toneType: 'none', type: 'array' })[0] ?? character;
    READINGS.set(character, reading);
  }
  return reading;
}

/**
 * Pinyin bigrams of the Han runs of an (already canonical) text: 「退款多久到账」 → tui_kuan,
 * kuan_duo, duo_jiu, jiu_dao, dao_zhang. A homophone typo (退宽 for 退款, 发漂 for 发票) gives the
 * same bigrams as the word meant, which no character n-gram or word can match. Bigrams, not single
 * syllables: one syllable is shared by dozens of unrelated characters. Anything but Han characters
 * ends a run.
 */
export function pinyinBigrams(canonical: string): string[] {
  const terms: string[] = [];
  let previous: string | undefined;
  for (const character of canonical) {
    if (!HAN.test(character)) {
      previous = undefined;
      continue;
    }
    const reading = readingOf(character);
    if (previous !== undefined) terms.push(`${previous}_${reading}`);
    previous = reading;
  }
  return terms;
}

/** pinyin-pro is an optional peer, with the rest of the Chinese text analysis. */
function loadPinyin(): PinyinFunction {
  try {
    return (createRequire(import.meta.url)('pinyin-pro') as { pinyin: PinyinFunction }).pinyin;
  } catch (error) {
    if (
      (error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND' ||
      !String(error).includes("'pinyin-pro'")
    )
      throw error;
    throw new Error(
      'text analysis for knowledge bases needs the optional package pinyin-pro: install it with `npm install opencc-js @node-rs/jieba pinyin-pro`',
      { cause: error },
    );
  }
}
