import type { StoredChunk } from './knowledge-store.ts';
import { extractIdentifiers } from './lanes/index.ts';
import { type TextAnalyzer, textAnalysisFingerprint } from './text/index.ts';

/**
 * A field of the lexical lanes: what one inverted index holds for a chunk. The store keeps each
 * field's analysed terms under its name, so a new lane (a pinyin field, say) is one more entry here
 * and one more `field` value in `kb_chunk_terms`, with no schema change.
 */
export interface LexicalField {
  name: string;
  /**
   * Bump when this field's terms change for a reason the text analysis fingerprint does not see
   * (n-gram sizes, what `contextualText` joins): stored terms of another version are re-analysed.
   */
  version: number;
  /** The field's terms of a text, by the analysis in force (a field may not use it). */
  termsOf(text: string, analyzer: TextAnalyzer): string[];
  /**
   * Whether the terms depend on the text analysis (its tables, a domain's synonyms): then stored
   * terms are reused only under the same analysis fingerprint.
   */
  analysed: boolean;
  /** The chunk's text this field analyses. Default `contextualText`: headings and the clause. */
  textOf?(chunk: Pick<StoredChunk, 'headingPath' | 'indexText'>): string;
}

/** BM25 over Chinese-aware words. */
export const WORD_FIELD: LexicalField = {
  name: 'word',
  version: 1,
  analysed: true,
  termsOf: (text, analyzer) => analyzer.analyze(text),
};
/** tf-idf cosine over character 1- to 3-grams. */
export const NGRAM_FIELD: LexicalField = {
  name: 'ngram',
  version: 1,
  analysed: true,
  termsOf: (text, analyzer) => analyzer.characterNgrams(text),
};
/**
 * The exact lane's identifiers, of the clause alone (a heading's code is not the clause's). Not
 * covered by the text analysis fingerprint: bump the version when `extractIdentifiers` changes.
 */
export const IDENTIFIER_FIELD: LexicalField = {
  name: 'identifier',
  version: 1,
  analysed: false,
  termsOf: (text) => extractIdentifiers(text),
  textOf: (chunk) => chunk.indexText,
};
export const LEXICAL_FIELDS: readonly LexicalField[] = [WORD_FIELD, NGRAM_FIELD, IDENTIFIER_FIELD];

/** The terms a field stores for a chunk. */
export function fieldTerms(
  field: LexicalField,
  chunk: Pick<StoredChunk, 'headingPath' | 'indexText'>,
  analyzer: TextAnalyzer,
): string[] {
  return field.termsOf(field.textOf ? field.textOf(chunk) : contextualText(chunk), analyzer);
}

/** Names the analysis that produced a field's stored terms: they are reused only while it matches. */
export function lexicalFieldFingerprint(field: LexicalField, analyzer: TextAnalyzer): string {
  const analysis = field.analysed ? textAnalysisFingerprint(analyzer) : 'unanalysed';
  return `${analysis}/${field.name}-${field.version}`;
}

/**
 * What the lexical lanes index for a chunk: its section headings and its text. A clause often leaves
 * its subject to its heading (「整机享受 1 年保修」 under 「Apple Watch Series 12 › 售后」), and a
 * question names the subject.
 */
export function contextualText(chunk: Pick<StoredChunk, 'headingPath' | 'indexText'>): string {
  return `${chunk.headingPath.join('\n')}\n${chunk.indexText}`;
}
