import type { DocumentKind } from './chunking/index.ts';
import type { ContextSpan } from './passage-index.ts';
import type { LaneName, LaneRank } from './reciprocal-rank-fusion.ts';

// What a search is asked and what it answers: the knowledge base's public shapes, apart from the
// search itself so that readers of results (the eval, the tools, the page) need not import it.

export interface SearchFilter {
  docIds?: readonly string[];
  kinds?: readonly DocumentKind[];
  /** Only documents whose path starts with this, e.g. `policies/`. */
  pathPrefix?: string;
}

export interface SearchOptions {
  /** How many distinct passages to return. */
  topK?: number;
  filter?: SearchFilter;
  signal?: AbortSignal;
  /** Longest `context`, in characters; overrides `KnowledgeBaseOptions.contextChars`. */
  contextChars?: number;
}

/** Where a hit comes from, precise enough to cite: the file, the line and the clause number. */
export interface SearchSource {
  path: string;
  line: number;
  clause: number;
  /** `path#L12`, for links and citations. */
  citation: string;
}

export interface SearchHit {
  chunkId: string;
  docId: string;
  /** The document's title. */
  title: string;
  /** From the title down to the clause's section: the parent section is the last entry. */
  headingPath: string[];
  /** The clause that matched best: the unit that was scored. */
  text: string;
  /**
   * The clause's parent passage (paragraph, list item, table or FAQ entry; its heading path is
   * `headingPath`), whole when it fits the cap, else the matched clauses and their neighbours with
   * `…` where clauses are left out. Other clauses of the passage that matched are merged in here
   * rather than returned as hits of their own.
   */
  context: string;
  /** Where the matched clauses are in `context`, `text` first. */
  highlights: ContextSpan[];
  /** The source line of each line of `context` (split at `\n`), to cite a quote from it precisely. */
  contextLines: number[];
  /** The fused score: it ranks hits of one query and says nothing about whether one is right. */
  score: number;
  lanes: Partial<Record<LaneName, LaneRank>>;
  /** The reranker's relevance score of the passage, when a reranker ordered the hits. */
  rerankScore?: number;
  source: SearchSource;
}

export interface SearchResult {
  query: string;
  /** At most one hit per passage: top-K means K distinct passages. */
  hits: SearchHit[];
  /**
   * True when no lane found convincing evidence: no exact identifier match, and the best keyword
   * score is under `lowEvidenceScore`; with a reranker, its best score is under
   * `rerankLowEvidenceScore`. The agent should then say it does not know.
   */
  lowEvidence: boolean;
  evidence: SearchEvidence;
  tookMs: number;
}

/** The signals behind `lowEvidence`, for people and for calibration (`kb eval`). */
export interface SearchEvidence {
  /** Clauses holding an identifier the question quotes, e.g. a SKU. */
  exactMatches: number;
  /** The best clause's tf-idf cosine with the question over character n-grams. */
  topNgramCosine: number;
  /**
   * The best clause's BM25 score over the question's words, in units of the idf of a word the
   * knowledge base does not have: about how many rare question words one clause matches. Raw BM25
   * grows with the log of the corpus size; in these units a threshold carries from a 500-clause
   * shop to a 100,000-clause one. Measured as the signal that best tells answerable questions from
   * unanswerable ones on the dev set (docs/retrieval.md).
   */
  topKeywordScore: number;
  /**
   * The reranker's best relevance score among the returned hits, when a reranker is configured
   * and answered: it reads question and passage together, so it is the evidence then.
   */
  topRerankScore?: number;
}

/**
 * How strong a search's evidence is, as one number for ranking and calibration: the reranker's best
 * score when one answered (it reads the identifier too, and knows when a clause that holds it does
 * not answer); otherwise an exact identifier match is as strong as it gets, then the top keyword score.
 */
export function evidenceStrength(evidence: SearchEvidence): number {
  if (evidence.topRerankScore !== undefined) return evidence.topRerankScore;
  return evidence.exactMatches > 0 ? Number.POSITIVE_INFINITY : evidence.topKeywordScore;
}
