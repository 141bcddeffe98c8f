import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { extractIdentifiers, normalizeIdentifierText } from './lanes/index.ts';

/**
 * English function words and the words every question has ("how much", "can I", "please"): they name
 * nothing a policy is about, and their CC-CEDICT glosses match hundreds of unrelated Chinese words.
 */
const ENGLISH_STOP_WORDS = new Set(
  `a about above after again against all am an and any are as at be because been before being below
  between both but by can could did do does doing down during each few for from further had has have
  having he her here hers herself him himself his how i if in into is it its itself just me more most
  my myself no nor not of off on once only or other our ours ourselves out over own same she should so
  some such than that the their theirs them themselves then there these they this those through to
  too under until up very was we were what when where which while who whom why will with would you
  your yours yourself yourselves sth sb someone something one oneself etc abbr used variant see also
  e g cl lit fig get got much many long take make let want need please ok yes`.split(/\s+/),
);

/**
 * The longest gloss, in content words, that still translates a word rather than describes a use of
 * it: "time slot" makes 时段 a translation of slot; "to sign to acknowledge receipt" is a description.
 */
const MAX_GLOSS_WORDS = 2;
/** The longest whole gloss two words may share to paraphrase each other ("to substitute for"). */
const MAX_WHOLE_GLOSS_WORDS = 3;
/** Chinese words per English word: a translation or two, not every word a gloss mentions. */
const TRANSLATIONS_PER_WORD = 2;

/**
 * One English word form for its inflections (orders/ordered → order, shipping → ship, change/changed
 * → chang): crude next to a real stemmer, but applied alike to questions and glosses, which is what
 * matching needs. A suffix stays when fewer than three letters would be left (red, bed, used, ring).
 */
export function stemEnglish(word: string): string {
  const strip = (text: string, suffix: RegExp, replacement = '') => {
    const stripped = text.replace(suffix, replacement);
    return stripped.length >= 3 ? stripped : text;
  };
  let stem = word.toLowerCase();
  stem = strip(stem, /ies$/, 'y');
  stem = strip(stem, /([^s])s$/, '$1');
  stem = strip(stem, /(?:ing|ed)$/);
  stem = strip(stem, /([bcdfgklmnprt])\1$/, '$1');
  return strip(stem, /e$/);
}

/** The content words of English text, stemmed; identifiers (NS-X2-BLK-M) and stop words left out. */
export function englishWords(text: string): string[] {
  let rest = normalizeIdentifierText(text);
  for (const identifier of extractIdentifiers(rest)) rest = rest.replaceAll(identifier, ' ');
  return rest
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter((word) => word.length > 1 && !ENGLISH_STOP_WORDS.has(word))
    .map(stemEnglish);
}

/**
 * English to the knowledge base's own Chinese words, so that an English question meets a Chinese help
 * centre without a translation model: CC-CEDICT's glosses (124,000 entries, CC BY-SA 4.0, read from
 * the `cc-cedict` package) reversed, and kept only for words the knowledge base holds. A Chinese word
 * answers for an English one when one of its short glosses holds it ("time slot" makes 时段 a
 * translation of slot); the shortest glosses win, then the word more clauses use.
 */
export class EnglishLexicon {
  readonly #translations: Map<string, string[]>;
  /** A word the knowledge base lacks → the knowledge base's words with one of its glosses, whole. */
  readonly #paraphrases: Map<string, string[]>;

  private constructor(translations: Map<string, string[]>, paraphrases: Map<string, string[]>) {
    this.#translations = translations;
    this.#paraphrases = paraphrases;
  }

  static empty(): EnglishLexicon {
    return new EnglishLexicon(new Map(), new Map());
  }

  /**
   * @param entries CC-CEDICT entries as [simplified word, its glosses]
   * @param documentFrequency how many clauses hold a word; 0 leaves the word out
   */
  static fromGlosses(
    entries: Iterable<readonly [word: string, glosses: readonly string[]]>,
    documentFrequency: (word: string) => number,
  ): EnglishLexicon {
    const candidates = new Map<string, Map<string, number>>();
    // For paraphrases: each whole gloss → the knowledge base's words with it (and how many clauses
    // hold each), and the whole glosses of the words it lacks.
    const wordsByGloss = new Map<string, Map<string, number>>();
    const glossesOfUnknown = new Map<string, Set<string>>();
    for (const [word, glosses] of entries) {
      // A single character has too many senses to stand for an English word (脚 is foot, but also a
      // verse's foot and the foot of a hill): measured, one-word glosses of single characters gained
      // nothing on the dev sets.
      if ([...word].length < 2 || !/\p{Script=Han}/u.test(word)) continue;
      const frequency = documentFrequency(word);
      for (const gloss of wholeGlosses(glosses)) {
        if (frequency === 0) {
          const known = glossesOfUnknown.get(word) ?? new Set<string>();
          known.add(gloss);
          glossesOfUnknown.set(word, known);
        } else {
          const forGloss = wordsByGloss.get(gloss) ?? new Map<string, number>();
          forGloss.set(word, frequency);
          wordsByGloss.set(gloss, forGloss);
        }
      }
      if (frequency === 0) continue;
      for (const words of shortGlosses(glosses)) {
        // A one-word gloss translates the word more surely than a two-word one.
        const weight = 1 / words.length;
        for (const english of words) {
          const forWord = candidates.get(english) ?? new Map<string, number>();
          forWord.set(word, Math.max(forWord.get(word) ?? 0, weight + frequency * 1e-9));
          candidates.set(english, forWord);
        }
      }
    }
    const translations = new Map<string, string[]>();
    for (const [english, forWord] of candidates) {
      const best = [...forWord]
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
        .slice(0, TRANSLATIONS_PER_WORD);
      translations.set(
        english,
        best.map(([word]) => word),
      );
    }
    const paraphrases = new Map<string, string[]>();
    for (const [word, glossesOfWord] of glossesOfUnknown) {
      const found = new Set<string>();
      for (const gloss of glossesOfWord)
        for (const chinese of mostUsed(wordsByGloss.get(gloss), TRANSLATIONS_PER_WORD)) found.add(chinese);
      if (found.size > 0) paraphrases.set(word, [...found]);
    }
    return new EnglishLexicon(translations, paraphrases);
  }

  /**
   * The knowledge base's own words for Chinese words it does not have, where CC-CEDICT glosses both
   * alike (代替 and 替换 "to substitute for", 顾客 and 用户 "customer"): a shopper's word for what the policy
   * names in another. A whole gloss must match, not one word of it ("to come back" is not "back").
   */
  paraphrase(unknownWords: readonly string[]): string[] {
    const found = new Set<string>();
    for (const word of unknownWords)
      for (const chinese of this.#paraphrases.get(word) ?? []) found.add(chinese);
    return [...found];
  }

  /** How many English words have a translation. */
  get size(): number {
    return this.#translations.size;
  }

  /** The knowledge base's Chinese words for the English content words of `text`, each once. */
  translate(text: string): string[] {
    const found = new Set<string>();
    for (const word of englishWords(text))
      for (const chinese of this.#translations.get(word) ?? []) found.add(chinese);
    return [...found];
  }
}

/**
 * The glosses of an entry short enough to translate the word rather than describe a use of it, each
 * as its stemmed content words; cross references and surnames left out.
 */
function shortGlosses(glosses: readonly string[]): string[][] {
  const short: string[][] = [];
  for (const gloss of glosses.flatMap((entry) => entry.split(/;\s*/))) {
    if (/variant of|surname|abbr\. for|used in/i.test(gloss)) continue;
    const words = englishWords(gloss.replace(/\([^)]*\)/g, ' '));
    if (words.length > 0 && words.length <= MAX_GLOSS_WORDS) short.push(words);
  }
  return short;
}

/**
 * The glosses of an entry as paraphrases compare them: whole, every word kept but a leading "to" or
 * article ("many times" must not become "time"), stemmed; at most {@link MAX_WHOLE_GLOSS_WORDS}
 * words, so that a gloss names the word's sense rather than describes it.
 */
function wholeGlosses(glosses: readonly string[]): string[] {
  const whole: string[] = [];
  for (const gloss of glosses.flatMap((entry) => entry.split(/;\s*/))) {
    if (/variant of|surname|abbr\. for|used in|\bsee\b|\[/i.test(gloss)) continue;
    const words = gloss
      .replace(/\([^)]*\)/g, ' ')
      .toLowerCase()
      .replace(/^\s*(?:to|a|an|the)\s+/, '')
      .split(/[^a-z]+/)
      .filter((word) => word.length > 0);
    if (words.length === 0 || words.length > MAX_WHOLE_GLOSS_WORDS) continue;
    whole.push(words.map(stemEnglish).join(' '));
  }
  return whole;
}

/** The `limit` words clauses use most, of a word → document frequency map. */
function mostUsed(frequencies: ReadonlyMap<string, number> | undefined, limit: number): string[] {
  if (frequencies === undefined) return [];
  return [...frequencies]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, limit)
    .map(([word]) => word);
}

/** Whether text has an English content word to translate. */
export function hasEnglishWords(text: string): boolean {
  return /[A-Za-z]{2}/.test(text) && englishWords(text).length > 0;
}

/**
 * CC-CEDICT's entries from the `cc-cedict` package's data file, as [simplified word, glosses]. Read
 * directly: the package's own entry point loads every index it has (about 600 MB); this file alone
 * is parsed in 0.3 to 1 s, with about 100 MB of garbage. Undefined when the package is not installed.
 */
export function readCedictEntries(): Array<readonly [string, readonly string[]]> | undefined {
  const require = createRequire(import.meta.url);
  const file = (require.resolve.paths('cc-cedict') ?? [])
    .map((directory) => join(directory, 'cc-cedict', 'data', 'all.js'))
    .find((path) => existsSync(path));
  if (file === undefined) return undefined;
  const source = readFileSync(file, 'utf8');
  // `export default {"all":[[traditional, simplified, pinyin, english, classifiers, variants], …]}`
  const { all } = JSON.parse(source.slice(source.indexOf('{'))) as { all: unknown[][] };
  return all.flatMap((entry) => {
    const [, simplified, , english] = entry;
    if (typeof simplified !== 'string') return [];
    const glosses = Array.isArray(english) ? english.filter((gloss) => typeof gloss === 'string') : [english];
    return [[simplified, glosses.filter((gloss): gloss is string => typeof gloss === 'string')] as const];
  });
}
