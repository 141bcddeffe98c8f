/** What kind of source a document came from; FAQ entries are indexed under their questions too. */
export type DocumentKind = 'policy' | 'faq' | 'text';

/** One clause-level piece of a document, before it gets its stable id. */
export interface ChunkDraft {
  /** Headings from the document title down to the clause's section, e.g. [退货政策, 质量问题]. */
  headingPath: string[];
  /** The clause as a hit returns it. */
  text: string;
  /**
   * What the lexical lanes index. Usually the text; for an FAQ answer, its questions and the answer,
   * so a shopper's wording of the question finds the answer.
   */
  indexText: string;
  /** 1-based line of the source file where the clause starts, for citations. */
  line: number;
  /** 1-based position of the clause within its document. */
  clause: number;
  /**
   * 1-based number of the clause's parent passage within its document: the paragraph, list item,
   * table or FAQ entry it was cut from. Clauses are what search scores; the parent is what a hit
   * shows as its context, since the answer is often the clause next to the one that matched.
   */
  parent: number;
}

export interface DocumentDraft {
  title: string;
  kind: DocumentKind;
  chunks: ChunkDraft[];
}

export interface ChunkingOptions {
  /** Longest clause kept whole, in characters; longer ones are split at commas, then hard. */
  maxChunkChars?: number;
  /** Clauses shorter than this are joined to their neighbour (a bare 注意： says nothing alone). */
  minChunkChars?: number;
}

export const DEFAULT_MAX_CHUNK_CHARS = 160;
export const DEFAULT_MIN_CHUNK_CHARS = 6;
