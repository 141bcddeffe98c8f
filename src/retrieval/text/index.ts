/**
 * Text analysis for retrieval, applied identically to documents and queries:
 *
 * - `normalizeText`: width, case, Traditional → Simplified, Chinese numerals → digits, whitespace.
 * - `analyze`: the terms of the keyword lane (jieba with the domain user dictionary, stop words
 *   dropped, synonyms of the general glossary (and of a domain's table, with
 *   `createTextAnalyzer({ synonyms })`) canonicalised, identifiers kept whole).
 * - `canonicalText` / `characterNgrams`: the input of the character n-gram lane (multi-character
 *   synonyms replaced by their canonical term; no word segmentation).
 * - `textAnalysisFingerprint`: names the analysis in force, for anything stored that depends on it.
 */
export { TEXT_ANALYSIS_CODE_VERSION, textAnalysisFingerprint } from './fingerprint.ts';
export { GENERAL_GLOSSARY } from './general-glossary.ts';
export { readUserDictionary, USER_WORD_FREQUENCY } from './jieba-dictionary.ts';
export {
  chineseNumeralsToDigits,
  NUMERAL_WORDS,
  normalizeText,
  parseChineseNumber,
  toSimplified,
} from './normalize-text.ts';
export { stripQuestionForm } from './question-form.ts';
export { isStopWord, STOP_WORDS } from './stop-words.ts';
export {
  buildSynonymIndex,
  canonicalTerm,
  mergeSynonymGroups,
  parseDictionaryWords,
  parseSynonymTable,
  type SynonymForm,
  type SynonymGroup,
  type SynonymIndex,
  synonymGroups,
  synonymIndex,
} from './synonyms.ts';
export {
  analyze,
  canonicalText,
  characterNgrams,
  createTextAnalyzer,
  defaultTextAnalyzer,
  type TextAnalyzer,
  type TextAnalyzerOptions,
  warmUpTextAnalysis,
} from './tokenize.ts';
