import type { Jieba } from '@node-rs/jieba';
import { GENERAL_GLOSSARY } from './general-glossary.ts';
import { createJieba } from './jieba-dictionary.ts';
import { normalizeText } from './normalize-text.ts';
import { pinyinBigrams } from './pinyin-terms.ts';
import { isStopWord } from './stop-words.ts';
import {
  buildSynonymIndex,
  canonicalTerm,
  mergeSynonymGroups,
  parseDictionaryWords,
  parseSynonymTable,
  type SynonymIndex,
  synonymIndex,
} from './synonyms.ts';

const PUNCTUATION_OR_SPACE = /^[\p{P}\p{S}\p{Z}\s]+$/u;
const ASCII_WORD = /^[a-z0-9]+$/;
const ASCII_WORD_CHARACTER = /[a-z0-9]/;
/** Runs of ASCII words separated by single spaces, where English phrases and identifiers are sought. */
const ASCII_CHUNK = /[a-z0-9][a-z0-9'&_.-]*(?: [a-z0-9'&_.-]+)*/g;
/** Identifiers kept as one token: SKU-like codes (ns-x2-blk-m, pol_ret_001) and decimals (1.5). */
const IDENTIFIER = /^(?:[a-z0-9]+(?:[-_][a-z0-9]+)+|\d+(?:\.\d+)+)$/;
const EDGE_PUNCTUATION = /^[^a-z0-9]+|[^a-z0-9]+$/g;
const EXPANSION_CACHE_LIMIT = 100_000;

/** Options of {@link createTextAnalyzer}. */
export interface TextAnalyzerOptions {
  /**
   * A domain's synonym table (the format of an agent folder's synonyms.txt), merged into the
   * general glossary: its groups add forms, its one-word lines are dictionary words.
   */
  readonly synonyms?: string;
}

/**
 * One configuration of the text analysis. Documents and queries must go through the same one: terms
 * analysed with different tables do not match. The methods are bound (they can be passed around).
 */
export interface TextAnalyzer {
  readonly analyze: (text: string) => string[];
  readonly canonicalText: (text: string) => string;
  readonly characterNgrams: (text: string, minN?: number, maxN?: number) => string[];
  /** Toneless pinyin bigrams of the canonical text, for homophone typos (see pinyin-terms.ts). */
  readonly pinyinTerms: (text: string) => string[];
  readonly synonyms: SynonymIndex;
  /** The domain table, as given ('' for none), for the analysis fingerprint. */
  readonly domainTable: string;
}

interface Analyzer {
  readonly jieba: Jieba;
  readonly synonyms: SynonymIndex;
  /** The most words any English phrase of the synonym table has. */
  readonly longestPhrase: number;
  readonly expansions: Map<string, readonly string[]>;
  readonly phraseTrie: PhraseNode;
}

let defaultAnalyzer: TextAnalyzer | undefined;

/** The default analyser: general resources only (no shop's own table). */
export function defaultTextAnalyzer(): TextAnalyzer {
  defaultAnalyzer ??= createTextAnalyzer();
  return defaultAnalyzer;
}

/** Builds the default tables (synonym index, jieba with the user dictionary) now instead of on first use. */
export function warmUpTextAnalysis(): void {
  defaultTextAnalyzer().canonicalText('');
}

/** An analyser with the general resources plus, optionally, a domain's synonym table. */
export function createTextAnalyzer(options: TextAnalyzerOptions = {}): TextAnalyzer {
  const domainTable = options.synonyms ?? '';
  const general = parseSynonymTable(GENERAL_GLOSSARY);
  const synonyms =
    domainTable === ''
      ? synonymIndex()
      : buildSynonymIndex(mergeSynonymGroups(general, parseSynonymTable(domainTable)));
  let state: Analyzer | undefined;
  const get = (): Analyzer => {
    if (state === undefined) {
      let longestPhrase = 1;
      for (const phrase of synonyms.englishPhrases.keys()) {
        longestPhrase = Math.max(longestPhrase, phrase.split(' ').length);
      }
      state = {
        jieba: createJieba([...synonyms.dictionaryWords, ...parseDictionaryWords(domainTable)]),
        synonyms,
        longestPhrase,
        expansions: new Map(),
        phraseTrie: buildPhraseTrie(synonyms.phrases),
      };
    }
    return state;
  };
  const canonical = (text: string) => canonicalTextWith(get(), text);
  return {
    analyze: (text) => analyzeWith(get(), text),
    canonicalText: canonical,
    characterNgrams: (text, minN, maxN) => ngramsOf(canonical(text), minN, maxN),
    pinyinTerms: (text) => pinyinBigrams(canonical(text)),
    synonyms,
    domainTable,
  };
}

/** The terms of the keyword lane with the default analyser; see {@link analyzeWith}. */
export function analyze(text: string): string[] {
  return defaultTextAnalyzer().analyze(text);
}

/** {@link canonicalTextWith} with the default analyser. */
export function canonicalText(text: string): string {
  return defaultTextAnalyzer().canonicalText(text);
}

/** Character n-grams of the default analyser's canonical text; see {@link ngramsOf}. */
export function characterNgrams(text: string, minN = 1, maxN = 3): string[] {
  return defaultTextAnalyzer().characterNgrams(text, minN, maxN);
}

/**
 * The terms of a text for the keyword lane, the same for documents and queries:
 *
 * 1. {@link normalizeText} (width, case, Traditional → Simplified, numerals → digits, spaces);
 * 2. English phrases of the shop glossary (price protection, send back …) and identifiers
 *    (ns-x2-blk-m, kept as one token plus its parts ns, x2, blk, m) are taken out first;
 * 3. the rest is cut by jieba (no HMM, so unknown words fall apart the same way everywhere) with the
 *    domain user dictionary, and, search-mode style, a long word also yields the 2- and 3-character
 *    dictionary words inside it (价格保护 → 价格, 保护, 价格保护);
 * 4. punctuation, whitespace and stop words are dropped;
 * 5. every surface form becomes its canonical term (退 → 退货, 自然日 → 天, 降价了 → 价格保护,
 *    shoes → 鞋) and is then analysed exactly like that term (保价 gives what 价格保护 gives), and a
 *    term also yields the terms its group implies (破损 → 破损, 质量问题).
 *    Single-character forms (退, 日, 修) only ever match a whole token, so 日期 stays 日期.
 *
 * Deterministic: the same text always gives the same terms in the same order (text order; inside
 * one word, the inner words first). Duplicates are kept: they are term frequencies.
 */
function analyzeWith(state: Analyzer, text: string): string[] {
  const normalized = normalizeText(text);
  if (normalized === '') return [];
  const terms: string[] = [];
  let last = 0;
  for (const span of specialSpans(state, normalized)) {
    cutInto(state, normalized.slice(last, span.start), terms);
    if (span.canonical !== undefined) terms.push(...expansion(state, span.canonical));
    else pushIdentifier(state, span.text, terms);
    last = span.end;
  }
  cutInto(state, normalized.slice(last), terms);
  return terms;
}

interface SpecialSpan {
  readonly start: number;
  readonly end: number;
  readonly text: string;
  /** Set for an English phrase of the synonym table; unset for an identifier. */
  readonly canonical?: string;
}

/**
 * English phrases of the glossary (price protection, can't, t-shirt) and identifiers, which jieba
 * would cut apart, in text order. Found word by word inside runs of ASCII words, longest phrase first.
 */
function specialSpans(state: Analyzer, text: string): SpecialSpan[] {
  const spans: SpecialSpan[] = [];
  const { englishPhrases } = state.synonyms;
  for (const chunk of text.matchAll(ASCII_CHUNK)) {
    const words: { start: number; end: number }[] = [];
    let offset = chunk.index;
    for (const raw of chunk[0].split(' ')) {
      const leading = raw.length - raw.replace(/^[^a-z0-9]+/, '').length;
      const trimmed = raw.replace(EDGE_PUNCTUATION, '');
      if (trimmed !== '') words.push({ start: offset + leading, end: offset + leading + trimmed.length });
      offset += raw.length + 1;
    }
    let index = 0;
    while (index < words.length) {
      let matched = 0;
      for (
        let size = Math.min(state.longestPhrase, words.length - index);
        size >= 1 && matched === 0;
        size -= 1
      ) {
        const first = words[index];
        const lastWord = words[index + size - 1];
        if (first === undefined || lastWord === undefined) continue;
        const candidate = text.slice(first.start, lastWord.end);
        const canonical = englishPhrases.get(candidate);
        if (canonical !== undefined) {
          spans.push({ start: first.start, end: lastWord.end, text: candidate, canonical });
          matched = size;
        } else if (size === 1 && IDENTIFIER.test(candidate)) {
          spans.push({ start: first.start, end: first.end, text: candidate });
          matched = 1;
        }
      }
      index += Math.max(matched, 1);
    }
  }
  return spans;
}

function cutInto(state: Analyzer, segment: string, terms: string[]): void {
  if (segment.trim() === '') return;
  for (const word of state.jieba.cut(segment, false)) {
    if (PUNCTUATION_OR_SPACE.test(word)) continue;
    for (const term of expansion(state, word)) terms.push(term);
  }
}

function pushIdentifier(state: Analyzer, identifier: string, terms: string[]): void {
  if (canonicalTerm(identifier, state.synonyms) !== undefined) {
    terms.push(...expansion(state, identifier));
    return;
  }
  const parts = identifier.split(/[-_]/).filter((part) => part.length > 0);
  if (parts.length > 1 && !/^\d+(?:\.\d+)+$/.test(identifier)) terms.push(...parts);
  terms.push(identifier);
}

/** The terms one jieba word stands for (cached: the vocabulary of a corpus is small). */
function expansion(state: Analyzer, word: string): readonly string[] {
  const cached = state.expansions.get(word);
  if (cached !== undefined) return cached;
  const canonical = canonicalTerm(word, state.synonyms);
  let result: readonly string[];
  if (canonical !== undefined && canonical !== word) result = expansion(state, canonical);
  else if (canonical === undefined && isStopWord(word)) result = [];
  else result = expandTerm(state, word);
  if (state.expansions.size >= EXPANSION_CACHE_LIMIT) state.expansions.clear();
  state.expansions.set(word, result);
  return result;
}

function expandTerm(state: Analyzer, term: string): string[] {
  const result: string[] = [];
  const add = (value: string) => {
    if (!result.includes(value)) result.push(value);
  };
  for (const inner of innerWords(state, term)) {
    const canonical = canonicalTerm(inner, state.synonyms);
    if (canonical === undefined && isStopWord(inner)) continue;
    add(canonical ?? inner);
  }
  add(term);
  for (const implied of state.synonyms.alsoOf.get(term) ?? []) add(implied);
  return result;
}

/** Search-mode inner words: the 2-character (and, in words of 4+, 3-character) dictionary words. */
function innerWords(state: Analyzer, word: string): string[] {
  const length = [...word].length;
  if (length <= 2 || ASCII_WORD.test(word)) return [];
  return state.jieba.cutAll(word).filter((inner) => {
    const innerLength = [...inner].length;
    return innerLength === 2 || (innerLength === 3 && length > 3);
  });
}

interface PhraseNode {
  /** Keyed by UTF-16 code unit (numbers hash faster than one-character strings). */
  readonly children: Map<number, PhraseNode>;
  canonical?: string;
}

function buildPhraseTrie(phrases: ReadonlyMap<string, string>): PhraseNode {
  const root: PhraseNode = { children: new Map() };
  for (const [phrase, canonical] of phrases) {
    let node = root;
    for (let position = 0; position < phrase.length; position += 1) {
      const unit = phrase.charCodeAt(position);
      let child = node.children.get(unit);
      if (child === undefined) {
        child = { children: new Map() };
        node.children.set(unit, child);
      }
      node = child;
    }
    node.canonical = canonical;
  }
  return root;
}

/**
 * {@link normalizeText}, then every multi-character surface form of the synonym table replaced by
 * its canonical term inside running text, leftmost and then longest match first (自然日 → 天, 寄回去 →
 * 退货, 降价了 → 价格保护, return → 退货). For the character n-gram lane, which never sees jieba
 * tokens. Single-character forms (退, 日) and forms marked whole-token-only (天内) are left alone,
 * and English forms match whole words only (return, not returnable).
 */
function canonicalTextWith(state: Analyzer, text: string): string {
  const normalized = normalizeText(text);
  const { phraseTrie } = state;
  let output = '';
  let copiedUpTo = 0;
  let index = 0;
  while (index < normalized.length) {
    let node = phraseTrie.children.get(normalized.charCodeAt(index));
    let matchEnd = -1;
    let matchCanonical = '';
    let end = index + 1;
    while (node !== undefined) {
      if (node.canonical !== undefined && atWordBoundaries(normalized, index, end)) {
        matchEnd = end;
        matchCanonical = node.canonical;
      }
      node = end < normalized.length ? node.children.get(normalized.charCodeAt(end)) : undefined;
      end += 1;
    }
    if (matchEnd === -1) {
      index += 1;
      continue;
    }
    output += normalized.slice(copiedUpTo, index) + matchCanonical;
    copiedUpTo = matchEnd;
    index = matchEnd;
  }
  return copiedUpTo === 0 ? normalized : output + normalized.slice(copiedUpTo);
}

/** ASCII-edged phrases must not start or end inside an ASCII word (return ≠ returnable). */
function atWordBoundaries(text: string, start: number, end: number): boolean {
  if (isAsciiWordUnit(text.charCodeAt(start)) && isAsciiWordUnit(text.charCodeAt(start - 1))) return false;
  return !(isAsciiWordUnit(text.charCodeAt(end - 1)) && isAsciiWordUnit(text.charCodeAt(end)));
}

/** a–z or 0–9 (NaN, outside the text, is neither). */
function isAsciiWordUnit(unit: number): boolean {
  return (unit >= 97 && unit <= 122) || (unit >= 48 && unit <= 57);
}

const PUNCTUATION_OR_SYMBOL = /[\p{P}\p{S}]/u;
const WHITESPACE = /\s/u;

/**
 * Character n-grams (code points, lengths `minN`…`maxN`) of {@link canonicalText}. Punctuation ends a
 * run (no n-gram spans 。 or ,); whitespace is dropped and the characters on both sides join, except
 * between two ASCII letters or digits (English words stay apart). A hyphen or underscore inside a code
 * (ns-x2-blk-m) is kept inside the run, so s-x and 2-b tell codes apart, but no n-gram starts or ends
 * with one. N-grams come in text order, shorter first at each position; duplicates are kept.
 */
function ngramsOf(canonical: string, minN = 1, maxN = 3): string[] {
  if (!Number.isInteger(minN) || !Number.isInteger(maxN) || minN < 1 || maxN < minN) {
    throw new RangeError(`characterNgrams needs integers 1 <= minN <= maxN, got ${minN} and ${maxN}`);
  }
  const grams: string[] = [];
  for (const run of characterRuns(canonical)) {
    for (let start = 0; start < run.length; start += 1) {
      if (isJoiner(run[start])) continue;
      let gram = '';
      for (let size = 1; size <= maxN && start + size <= run.length; size += 1) {
        const last = run[start + size - 1] ?? '';
        gram += last;
        if (size >= minN && !isJoiner(last)) grams.push(gram);
      }
    }
  }
  return grams;
}

/** The hyphen or underscore inside a code: part of a run, but no n-gram starts or ends with one. */
function isJoiner(character: string | undefined): boolean {
  return character === '-' || character === '_';
}

function characterRuns(text: string): string[][] {
  const characters = [...text];
  const runs: string[][] = [];
  let current: string[] = [];
  const flush = () => {
    if (current.length > 0) runs.push(current);
    current = [];
  };
  for (let index = 0; index < characters.length; index += 1) {
    const character = characters[index] ?? '';
    const previous = current.at(-1) ?? '';
    const next = characters[index + 1] ?? '';
    if (WHITESPACE.test(character)) {
      if (ASCII_WORD_CHARACTER.test(previous) && ASCII_WORD_CHARACTER.test(next)) flush();
      continue;
    }
    const joinsCode =
      (character === '-' || character === '_') &&
      ASCII_WORD_CHARACTER.test(previous) &&
      ASCII_WORD_CHARACTER.test(next);
    if (PUNCTUATION_OR_SYMBOL.test(character) && !joinsCode) {
      flush();
      continue;
    }
    current.push(character);
  }
  flush();
  return runs;
}
