import type { Embedder } from './embedder.ts';
import type { KnowledgeStore } from './knowledge-store.ts';
import type { LaneName } from './reciprocal-rank-fusion.ts';
import type { Reranker } from './reranker.ts';
import type { TextAnalyzer } from './text/index.ts';

// How a knowledge base is set up, and the defaults measured for it (docs/retrieval.md).

export interface KnowledgeBaseOptions {
  store: KnowledgeStore;
  /** Enables the vector lane (chunks must have been embedded by the same model). */
  embedder?: Embedder;
  /** Fusion weights per lane; 0 turns a lane off. */
  weights?: Partial<Record<LaneName, number>>;
  /** Reciprocal rank fusion constant. Default 60. */
  rrfK?: number;
  /**
   * How much of each lane's relative score joins its rank in the fusion, 0 to 1
   * (`FusionOptions.scoreShare`); 0 is pure rank fusion. Default {@link DEFAULT_FUSION_SCORE_SHARE}.
   */
  fusionScoreShare?: number;
  /**
   * Below this top keyword score (and without an exact match) evidence is low. Default
   * {@link DEFAULT_LOW_EVIDENCE_SCORE}; `kb eval` prints the best threshold for a labelled set.
   */
  lowEvidenceScore?: number;
  /**
   * Reorders the first `rerankCandidates` passages by a cross-encoder's relevance (`HttpReranker`),
   * whose best score then decides `lowEvidence`. A reranker that fails leaves the fused order (told
   * through `onNotice`), and rests for {@link RERANK_PAUSE_MS} before one search at a time tries it
   * again (`RerankerBreaker`).
   */
  reranker?: Reranker;
  /** Passages the reranker reads per search. Default {@link DEFAULT_RERANK_CANDIDATES}. */
  rerankCandidates?: number;
  /**
   * With a reranker: below this best relevance score evidence is low. Default
   * {@link DEFAULT_RERANK_LOW_EVIDENCE_SCORE}; calibrate it for the model with `kb eval`.
   */
  rerankLowEvidenceScore?: number;
  /** Longest `context` of a hit, in characters. Default {@link DEFAULT_CONTEXT_CHARS}. */
  contextChars?: number;
  /**
   * The text analysis of documents and queries. Default: general resources only. A domain passes
   * `createTextAnalyzer({ synonyms })` with its own table (an agent folder's synonyms.txt).
   */
  analyzer?: TextAnalyzer;
  /**
   * Translate the English words of a question into the knowledge base's Chinese words through
   * CC-CEDICT's glosses (english-lexicon.ts). Default true.
   */
  englishLexicon?: boolean;
  /**
   * Add, for the question's words the knowledge base never uses, its own words that CC-CEDICT glosses
   * alike (english-lexicon.ts, `paraphrase`). Default true.
   */
  paraphrases?: boolean;
  /**
   * Told once per open when stored terms were made by another text analysis and every chunk is
   * re-analysed (slow at scale, and worth knowing), and when a reranker fails. Default:
   * {@link writeNoticeToStderr}.
   */
  onNotice?: (message: string) => void;
}

/** The offline default: the character n-gram lane leads, as measured (docs/retrieval.md). */
export const DEFAULT_LANE_WEIGHTS: Readonly<Record<LaneName, number>> = {
  exact: 2,
  ngram: 1,
  bm25: 0.3,
  // Off by default: homophone correction of the query fixes the typos it was for (dev typo R@3 1.00
  // without the lane, 0.86 with it), and as a bigram lane it helps only with a shop's table
  // (docs/retrieval.md). Weight > 0 builds it.
  pinyin: 0,
  vector: 1,
};
/**
 * The share of each lane's relative score added to its rank in the fusion (`FusionOptions.scoreShare`).
 * Chosen on the four development sets: 0.15 to 0.25 raise or keep every set's R@1, R@3 and MRR; from
 * 0.35 on, FreshMart's R@1 falls (docs/retrieval.md, change 16).
 */
export const DEFAULT_FUSION_SCORE_SHARE = 0.2;
/**
 * How much a word the question gains by paraphrase counts in the lexical lanes, against 1 for the
 * question's own words (docs/retrieval.md, change 17).
 */
export const PARAPHRASE_WEIGHT = 0.5;
/** Fitted on the shop example's dev set (Youden's J); see docs/retrieval.md for both sets' counts. */
export const DEFAULT_LOW_EVIDENCE_SCORE = 0.9;
/**
 * About three policy sentences: enough for the clause next to the match, while four hits stay
 * near 1,200 characters of evidence for the model.
 */
export const DEFAULT_CONTEXT_CHARS = 300;
/**
 * The passages a reranker reads: the answer is among the first 20 for 0.969 to 1.000 of the
 * answerable questions of every evaluation set (docs/retrieval.md, "Reranking").
 */
export const DEFAULT_RERANK_CANDIDATES = 20;
/**
 * Not measured here (no reranker can run offline): cross-encoders' scores for a passage that does
 * not answer usually fall well under 0.1 on their 0-to-1 scale. `kb eval` prints the best threshold
 * for a model and a labelled set.
 */
export const DEFAULT_RERANK_LOW_EVIDENCE_SCORE = 0.1;
/**
 * How long searches go without a reranker after it failed, before it is asked again: long enough
 * that an outage costs a few searches their wait, short enough that a blip is soon forgotten.
 */
export const RERANK_PAUSE_MS = 30_000;

/** The default `onNotice`: one line on stderr, named as the product's own. */
export function writeNoticeToStderr(message: string): void {
  process.stderr.write(`runstream: ${message}\n`);
}
