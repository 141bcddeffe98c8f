import { z } from 'zod';
import { fitThreshold, rocAuc, type ThresholdFit } from './evidence-calibration.ts';
import { RetrievalError } from './retrieval-error.ts';
import { evidenceStrength, type SearchEvidence } from './search-result.ts';

const EvalQuerySchema = z.object({
  id: z.string().min(1),
  query: z.string().min(1),
  /** Substrings of the clause(s) that answer; empty for a question the knowledge does not answer. */
  gold: z.array(z.string().min(1)),
  type: z.string().min(1).optional(),
});
export type EvalQuery = z.infer<typeof EvalQuerySchema>;

/** Parse a JSONL evaluation file, naming the line of the first bad record. */
export function parseEvalQueries(text: string, path = 'queries'): EvalQuery[] {
  const queries: EvalQuery[] = [];
  const ids = new Set<string>();
  text.split(/\r?\n/).forEach((line, index) => {
    if (line.trim().length === 0) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new RetrievalError('invalid_eval_file', `${path}:${index + 1}: not a JSON object`);
    }
    const parsed = EvalQuerySchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new RetrievalError(
        'invalid_eval_file',
        `${path}:${index + 1}: expected {"id","query","gold":[…],"type"?}; ${issue?.path.join('.') || 'record'}: ${issue?.message ?? ''}`,
      );
    }
    if (ids.has(parsed.data.id))
      throw new RetrievalError('invalid_eval_file', `${path}:${index + 1}: duplicate id ${parsed.data.id}`);
    ids.add(parsed.data.id);
    queries.push(parsed.data);
  });
  if (queries.length === 0) throw new RetrievalError('invalid_eval_file', `${path}: no queries`);
  return queries;
}

export interface EvalSearchResult {
  /** `context`, when a hit has one, is the evidence the reader gets; `text` is the scored clause. */
  hits: readonly { text: string; context?: string }[];
  lowEvidence: boolean;
  /** The signals behind the flag, when the search reports them: they make the ROC curve. */
  evidence?: SearchEvidence;
}

export interface QueryOutcome {
  id: string;
  query: string;
  type: string;
  answerable: boolean;
  /**
   * 1-based rank of the first hit whose evidence (its `context`, else its clause) contains a gold
   * substring, or null when none of the top 10 does.
   */
  rank: number | null;
  /** The same, counting only the scored clause (`text`): what a hit gave before it had a context. */
  clauseRank: number | null;
  lowEvidence: boolean;
  /** See `evidenceStrength`; null when the search reported no evidence. */
  strength: number | null;
}

export interface Metrics {
  /** Answerable queries scored for recall and MRR. */
  answerable: number;
  recallAt1: number;
  recallAt3: number;
  mrrAt10: number;
  /** Recall when only the scored clause counts, not its context. */
  clauseRecallAt1: number;
  clauseRecallAt3: number;
  /** Answerable queries wrongly flagged as low evidence. */
  falseLowEvidence: number;
  /** Unanswerable queries (empty gold) and how many were flagged as low evidence. */
  unanswerable: number;
  flaggedUnanswerable: number;
}

/** How well evidence strength separates answerable questions from unanswerable ones. */
export interface LowEvidenceReport {
  /** ROC AUC over all questions with a strength; null without both kinds. */
  auc: number | null;
  /**
   * The threshold this set would choose (`fitThreshold`: most no-answer questions flagged, at most
   * 5% of answerable ones), for calibration; not what the search used.
   */
  bestThreshold: ThresholdFit | null;
  /**
   * Which score the strengths are: the reranker's best relevance when every search was reranked
   * (its line is `rerankLowEvidenceScore`), the keyword score when none was (`lowEvidenceScore`),
   * `mixed` when the reranker failed on some: two scales in one curve, nothing to calibrate on.
   */
  signal: 'reranker' | 'keyword' | 'mixed';
  /** Searches whose evidence was the reranker's. */
  reranked: number;
}

export interface EvalReport {
  overall: Metrics;
  byType: Record<string, Metrics>;
  lowEvidence: LowEvidenceReport;
  outcomes: QueryOutcome[];
}

export const EVAL_DEPTH = 10;

/**
 * Score a search function on labelled queries: a hit is right when its evidence (the passage it
 * returns as `context`, else its clause) contains one of the query's gold substrings; the clause
 * alone is scored too, as `clauseRank`. Recall@1 and @3 and MRR@10 are over answerable queries; a question
 * with empty gold is unanswerable, and the right behaviour there is the low-evidence flag.
 */
export async function evaluate(
  queries: readonly EvalQuery[],
  search: (query: string, topK: number) => Promise<EvalSearchResult>,
): Promise<EvalReport> {
  const outcomes: QueryOutcome[] = [];
  let reranked = 0;
  for (const query of queries) {
    const result = await search(query.query, EVAL_DEPTH);
    if (result.evidence?.topRerankScore !== undefined) reranked += 1;
    const hits = result.hits.slice(0, EVAL_DEPTH);
    const rankOf = (evidence: (hit: EvalSearchResult['hits'][number]) => string) => {
      const position = hits.findIndex((hit) => query.gold.some((gold) => evidence(hit).includes(gold)));
      return position === -1 || query.gold.length === 0 ? null : position + 1;
    };
    outcomes.push({
      id: query.id,
      query: query.query,
      type: query.type ?? 'untyped',
      answerable: query.gold.length > 0,
      rank: rankOf((hit) => hit.context ?? hit.text),
      clauseRank: rankOf((hit) => hit.text),
      lowEvidence: result.lowEvidence,
      strength: result.evidence ? evidenceStrength(result.evidence) : null,
    });
  }
  const byType: Record<string, Metrics> = {};
  for (const type of [...new Set(outcomes.map((outcome) => outcome.type))].sort()) {
    byType[type] = summarize(outcomes.filter((outcome) => outcome.type === type));
  }
  const signal = reranked === 0 ? 'keyword' : reranked === outcomes.length ? 'reranker' : 'mixed';
  // Two scales in one curve would rank a keyword score of 3 above every reranker score of 0.9.
  const scored =
    signal === 'mixed'
      ? []
      : outcomes.flatMap((outcome) =>
          outcome.strength === null ? [] : [{ strength: outcome.strength, answerable: outcome.answerable }],
        );
  return {
    overall: summarize(outcomes),
    byType,
    lowEvidence: { auc: rocAuc(scored), bestThreshold: fitThreshold(scored), signal, reranked },
    outcomes,
  };
}

export function summarize(outcomes: readonly QueryOutcome[]): Metrics {
  const answerable = outcomes.filter((outcome) => outcome.answerable);
  const unanswerable = outcomes.filter((outcome) => !outcome.answerable);
  const share = (count: number) => (answerable.length === 0 ? 0 : count / answerable.length);
  return {
    answerable: answerable.length,
    recallAt1: share(answerable.filter((outcome) => outcome.rank === 1).length),
    recallAt3: share(answerable.filter((outcome) => outcome.rank !== null && outcome.rank <= 3).length),
    mrrAt10: share(
      answerable.reduce((sum, outcome) => sum + (outcome.rank === null ? 0 : 1 / outcome.rank), 0),
    ),
    clauseRecallAt1: share(answerable.filter((outcome) => outcome.clauseRank === 1).length),
    clauseRecallAt3: share(
      answerable.filter((outcome) => outcome.clauseRank !== null && outcome.clauseRank <= 3).length,
    ),
    falseLowEvidence: answerable.filter((outcome) => outcome.lowEvidence).length,
    unanswerable: unanswerable.length,
    flaggedUnanswerable: unanswerable.filter((outcome) => outcome.lowEvidence).length,
  };
}

/** A fixed-width table of the report, for people. */
export function formatEvalReport(report: EvalReport): string {
  const header = [
    'type',
    'queries',
    'R@1',
    'R@3',
    'MRR@10',
    'clause R@1',
    'clause R@3',
    'no-answer flagged',
    'answerable flagged',
  ];
  const row = (name: string, metrics: Metrics) => [
    name,
    String(metrics.answerable + metrics.unanswerable),
    metrics.answerable ? metrics.recallAt1.toFixed(3) : '-',
    metrics.answerable ? metrics.recallAt3.toFixed(3) : '-',
    metrics.answerable ? metrics.mrrAt10.toFixed(3) : '-',
    metrics.answerable ? metrics.clauseRecallAt1.toFixed(3) : '-',
    metrics.answerable ? metrics.clauseRecallAt3.toFixed(3) : '-',
    metrics.unanswerable ? `${metrics.flaggedUnanswerable}/${metrics.unanswerable}` : '-',
    metrics.answerable ? `${metrics.falseLowEvidence}/${metrics.answerable}` : '-',
  ];
  const rows = [
    header,
    ...Object.entries(report.byType).map(([type, metrics]) => row(type, metrics)),
    row('overall', report.overall),
  ];
  const widths = header.map((_, column) => Math.max(...rows.map((cells) => (cells[column] ?? '').length)));
  const table = rows
    .map((cells, index) => {
      const line = cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ');
      return index === rows.length - 1 ? `${'-'.repeat(line.length)}\n${line}` : line;
    })
    .join('\n');
  const { auc, bestThreshold, signal, reranked } = report.lowEvidence;
  if (signal === 'mixed') {
    return `${table}\nlow evidence: the reranker answered ${reranked} of ${report.outcomes.length} searches and the rest fell back to the keyword score; no AUC or threshold over two scales`;
  }
  if (auc === null) return table;
  const { overall } = report;
  const best =
    bestThreshold === null
      ? ''
      : `; this set's best threshold ${bestThreshold.threshold.toFixed(2)} would flag ${bestThreshold.flaggedUnanswerable}/${overall.unanswerable} no-answer and ${bestThreshold.flaggedAnswerable}/${overall.answerable} answerable`;
  return `${table}\nlow evidence${signal === 'reranker' ? ' (reranker score)' : ''}: AUC ${auc.toFixed(3)}; flagged ${overall.flaggedUnanswerable}/${overall.unanswerable} no-answer and ${overall.falseLowEvidence}/${overall.answerable} answerable${best}`;
}
