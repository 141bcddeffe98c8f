import { GENERAL_GLOSSARY } from './general-glossary.ts';
import { normalizeText } from './normalize-text.ts';

/** One line of the synonym table, as written (before normalisation). */
export interface SynonymGroup {
  readonly canonical: string;
  /** Further canonical terms that analysing this group's terms also yields. */
  readonly also: readonly string[];
  readonly forms: readonly SynonymForm[];
}

export interface SynonymForm {
  readonly text: string;
  /** Matched only as a whole token, never replaced inside running text by `canonicalText`. */
  readonly tokenOnly: boolean;
}

const LINE = /^(\S+)(?:\s+\(([^)]*)\))?\s*=\s*(.+)$/;
/** A line of one word and no `=`: a dictionary word of the domain (a brand, a product word). */
const WORD_LINE = /^[^\s=|()]+$/;

/**
 * Parses the table text; throws on a malformed line (a programming error in the table). Lines of one
 * word (dictionary words, see {@link parseDictionaryWords}) are skipped.
 */
export function parseSynonymTable(table: string): SynonymGroup[] {
  const groups: SynonymGroup[] = [];
  for (const [index, rawLine] of table.split('\n').entries()) {
    const line = rawLine.trim();
    if (line === '' || line.startsWith('#') || WORD_LINE.test(line)) continue;
    const match = LINE.exec(line);
    if (match === null) throw new Error(`synonym table line ${index + 1} is malformed: ${line}`);
    const [, canonical = '', alsoText = '', formsText = ''] = match;
    const also = alsoText
      .split(/\s+/)
      .filter((term) => term.startsWith('+'))
      .map((term) => term.slice(1));
    const forms = formsText
      .split('|')
      .map((form) => form.trim())
      .filter((form) => form.length > 0)
      .map((form) =>
        form.startsWith('!') ? { text: form.slice(1), tokenOnly: true } : { text: form, tokenOnly: false },
      );
    groups.push({ canonical, also, forms });
  }
  return groups;
}

/** The one-word lines of a table: words jieba should keep whole, normalised. */
export function parseDictionaryWords(table: string): string[] {
  const words: string[] = [];
  for (const rawLine of table.split('\n')) {
    const line = rawLine.trim();
    if (line === '' || line.startsWith('#') || !WORD_LINE.test(line)) continue;
    const word = normalizeText(line);
    if (word !== '') words.push(word);
  }
  return words;
}

/** The normalised lookup structures built from the table, once. */
export interface SynonymIndex {
  /** Every normalised surface form AND every canonical term → its canonical term. */
  readonly canonicalOf: ReadonlyMap<string, string>;
  /** Canonical term → further canonical terms it implies (`(+…)` in the table). */
  readonly alsoOf: ReadonlyMap<string, readonly string[]>;
  /**
   * Forms that `canonicalText` replaces inside running text: multi-character, not `!`-marked, plus
   * the multi-character canonical terms themselves (mapped to themselves, so that the longest match
   * keeps them whole). ASCII-edged forms match at word boundaries only.
   */
  readonly phrases: ReadonlyMap<string, string>;
  /**
   * English forms that are not one plain word (contain a space, hyphen, apostrophe, `&`), matched as
   * phrases before word segmentation.
   */
  readonly englishPhrases: ReadonlyMap<string, string>;
  /** Multi-character Chinese (or mixed) canonicals and forms, for the jieba user dictionary. */
  readonly dictionaryWords: readonly string[];
  /** Forms claimed by two groups, and canonical terms that are another group's form. Empty when sound. */
  readonly problems: readonly string[];
  readonly groupCount: number;
  readonly formCount: number;
}

let index: SynonymIndex | undefined;

/** The index of the default analyser's general glossary. */
export function synonymIndex(): SynonymIndex {
  index ??= buildSynonymIndex(parseSynonymTable(GENERAL_GLOSSARY));
  return index;
}

/** The groups of the general glossary, as written. */
export function synonymGroups(): SynonymGroup[] {
  return parseSynonymTable(GENERAL_GLOSSARY);
}

/**
 * Groups of several tables as one list (the general glossary, then a domain's table): groups with the
 * same canonical term merge, so a domain can add forms to 退款 without restating the glossary's, and a
 * later table wins a form or term an earlier one gave another group (the shop knows its own words).
 */
export function mergeSynonymGroups(...tables: readonly (readonly SynonymGroup[])[]): SynonymGroup[] {
  const merged = new Map<string, { also: string[]; forms: SynonymForm[] }>();
  for (const table of tables) {
    const claimed = new Map<string, string>();
    for (const group of table) {
      claimed.set(normalizeText(group.canonical), group.canonical);
      for (const form of group.forms) claimed.set(normalizeText(form.text), group.canonical);
    }
    for (const [canonical, entry] of merged) {
      entry.forms = entry.forms.filter((form) => {
        const owner = claimed.get(normalizeText(form.text));
        return owner === undefined || owner === canonical;
      });
    }
    // A later table that makes an earlier canonical term a form of its own (a shop's 差价 means 价格保护)
    // takes that group over: its forms now mean what the later table says.
    for (const [canonical, entry] of [...merged]) {
      const owner = claimed.get(normalizeText(canonical));
      if (owner === undefined || owner === canonical) continue;
      merged.delete(canonical);
      const target = merged.get(owner) ?? { also: [], forms: [] };
      for (const form of entry.forms)
        if (form.text !== owner && !target.forms.some((known) => known.text === form.text))
          target.forms.push(form);
      merged.set(owner, target);
    }
    for (const group of table) {
      const entry = merged.get(group.canonical) ?? { also: [], forms: [] };
      for (const term of group.also) if (!entry.also.includes(term)) entry.also.push(term);
      for (const form of group.forms)
        if (!entry.forms.some((known) => known.text === form.text)) entry.forms.push(form);
      merged.set(group.canonical, entry);
    }
  }
  return [...merged].map(([canonical, { also, forms }]) => ({ canonical, also, forms }));
}

const PLAIN_WORD = /^[a-z0-9]+$/;
const HAS_HAN = /\p{Script=Han}/u;

export function buildSynonymIndex(groups: readonly SynonymGroup[]): SynonymIndex {
  const canonicalOf = new Map<string, string>();
  const alsoOf = new Map<string, readonly string[]>();
  const phrases = new Map<string, string>();
  const englishPhrases = new Map<string, string>();
  const dictionaryWords = new Set<string>();
  const problems: string[] = [];
  const canonicals = new Set<string>();
  let formCount = 0;

  for (const group of groups) canonicals.add(normalizeText(group.canonical));
  for (const group of groups) {
    const canonical = normalizeText(group.canonical);
    if (canonicalOf.has(canonical) && canonicalOf.get(canonical) !== canonical) {
      problems.push(`canonical 「${canonical}」 is also a form of 「${canonicalOf.get(canonical)}」`);
    }
    canonicalOf.set(canonical, canonical);
    const also = group.also.map(normalizeText);
    for (const term of also) {
      if (!canonicals.has(term))
        problems.push(`「${canonical}」 (+${term}): ${term} is not a canonical term`);
    }
    if (also.length > 0) alsoOf.set(canonical, also);
    if (HAS_HAN.test(canonical) && [...canonical].length > 1) {
      dictionaryWords.add(canonical);
      // Listed so that longest-match replacement keeps 偏远地区 whole instead of rewriting its 偏远.
      phrases.set(canonical, canonical);
    }

    for (const form of group.forms) {
      formCount += 1;
      const text = normalizeText(form.text);
      if (text === '' || text === canonical) {
        problems.push(`「${canonical}」 lists 「${form.text}」, which normalises to nothing new`);
        continue;
      }
      const previous = canonicalOf.get(text);
      if (previous !== undefined && previous !== canonical) {
        problems.push(
          canonicals.has(text)
            ? `form 「${text}」 of 「${canonical}」 is itself a canonical term`
            : `form 「${text}」 belongs to both 「${previous}」 and 「${canonical}」`,
        );
        continue;
      }
      canonicalOf.set(text, canonical);
      const multiCharacter = [...text].length > 1;
      if (HAS_HAN.test(text)) {
        if (multiCharacter && !text.includes(' ')) dictionaryWords.add(text);
      } else if (!PLAIN_WORD.test(text)) {
        englishPhrases.set(text, canonical);
      }
      if (multiCharacter && !form.tokenOnly) phrases.set(text, canonical);
    }
  }
  return {
    canonicalOf,
    alsoOf,
    phrases,
    englishPhrases,
    dictionaryWords: [...dictionaryWords],
    problems,
    groupCount: groups.length,
    formCount,
  };
}

/**
 * The canonical term of one token (already normalised), or undefined when the token is in no
 * group. English words also match in the plural (shoes → shoe, policies → policy).
 */
export function canonicalTerm(token: string, index: SynonymIndex = synonymIndex()): string | undefined {
  const { canonicalOf } = index;
  const direct = canonicalOf.get(token);
  if (direct !== undefined || !/^[a-z]{3,}s$/.test(token)) return direct;
  if (token.endsWith('ies')) {
    const singular = canonicalOf.get(`${token.slice(0, -3)}y`);
    if (singular !== undefined) return singular;
  }
  if (token.endsWith('es')) {
    const singular = canonicalOf.get(token.slice(0, -2));
    if (singular !== undefined) return singular;
  }
  return canonicalOf.get(token.slice(0, -1));
}
