import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { GENERAL_GLOSSARY } from './general-glossary.ts';
import { USER_WORD_FREQUENCY } from './jieba-dictionary.ts';
import { NUMERAL_WORDS } from './normalize-text.ts';
import { REGIONAL_WORDS } from './regional-words.ts';
import { STOP_WORDS } from './stop-words.ts';
import { defaultTextAnalyzer, type TextAnalyzer } from './tokenize.ts';

/** Bump when a code change alters what `normalizeText`, `analyze` or `canonicalText` return. */
export const TEXT_ANALYSIS_CODE_VERSION = 3;

const fingerprints = new WeakMap<TextAnalyzer, string>();

/**
 * Names the text analysis in force, e.g. `text-3:3f9c0a1b2c4d`: the code version plus a hash of the
 * general glossary, the analyser's domain table, the stop words, the numeral exceptions and the user
 * dictionary. Anything stored that was produced by the analysis (keyword postings, n-gram vectors,
 * the `prepareVersion` of an embedder) should carry it, and be rebuilt when it changes: terms
 * analysed differently do not match.
 */
export function textAnalysisFingerprint(analyzer: TextAnalyzer = defaultTextAnalyzer()): string {
  let fingerprint = fingerprints.get(analyzer);
  if (fingerprint === undefined) {
    const hash = createHash('sha256');
    hash.update(GENERAL_GLOSSARY);
    hash.update('\0');
    hash.update(analyzer.domainTable);
    hash.update('\0');
    hash.update([...STOP_WORDS].join(' '));
    hash.update('\0');
    hash.update(NUMERAL_WORDS.join(' '));
    hash.update('\0');
    hash.update(JSON.stringify(REGIONAL_WORDS));
    hash.update('\0');
    hash.update(readFileSync(new URL('./user-dict.txt', import.meta.url)));
    hash.update(`\0${USER_WORD_FREQUENCY}`);
    fingerprint = `text-${TEXT_ANALYSIS_CODE_VERSION}:${hash.digest('hex').slice(0, 12)}`;
    fingerprints.set(analyzer, fingerprint);
  }
  return fingerprint;
}
