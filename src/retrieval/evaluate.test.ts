import { describe, expect, it } from 'vitest';
import { evaluate, formatEvalReport, parseEvalQueries } from './evaluate.ts';

describe('evaluate', () => {
  it('computes Recall@1, Recall@3 and MRR@10 over answerable queries, and low evidence on the rest', async () => {
    const queries = parseEvalQueries(
      [
        '{"id":"a","query":"q-a","gold":["退货"],"type":"colloquial"}',
        '{"id":"b","query":"q-b","gold":["发货","配送"],"type":"colloquial"}',
        '{"id":"c","query":"q-c","gold":["尺码"],"type":"exact_id"}',
        '{"id":"d","query":"q-d","gold":["保修"]}',
        '{"id":"e","query":"q-e","gold":[],"type":"no_answer"}',
        '{"id":"f","query":"q-f","gold":[],"type":"no_answer"}',
        '',
      ].join('\n'),
    );
    const results: Record<string, { hits: { text: string; context?: string }[]; lowEvidence: boolean }> = {
      // rank 1 through the hit's context; its clause alone is a miss
      'q-a': { hits: [{ text: '七天', context: '七天。退货' }, { text: 'x' }], lowEvidence: false },
      // rank 3 through the second gold substring
      'q-b': { hits: [{ text: 'x' }, { text: 'y' }, { text: '配送时效' }], lowEvidence: false },
      // rank 10: counts for MRR only
      'q-c': {
        hits: [...Array.from({ length: 9 }, () => ({ text: 'x' })), { text: '尺码表' }, { text: '尺码' }],
        lowEvidence: true,
      },
      // beyond the top 10: a miss
      'q-d': {
        hits: [...Array.from({ length: 10 }, () => ({ text: 'x' })), { text: '保修' }],
        lowEvidence: false,
      },
      'q-e': { hits: [{ text: '退货' }], lowEvidence: true },
      'q-f': { hits: [], lowEvidence: false },
    };
    const report = await evaluate(
      queries,
      async (query) => results[query] ?? { hits: [], lowEvidence: true },
    );
    expect(report.overall).toEqual({
      answerable: 4,
      recallAt1: 1 / 4,
      recallAt3: 2 / 4,
      mrrAt10: (1 + 1 / 3 + 1 / 10 + 0) / 4,
      clauseRecallAt1: 0,
      clauseRecallAt3: 1 / 4,
      falseLowEvidence: 1,
      unanswerable: 2,
      flaggedUnanswerable: 1,
    });
    expect(report.byType.colloquial).toMatchObject({
      answerable: 2,
      recallAt1: 0.5,
      recallAt3: 1,
      mrrAt10: (1 + 1 / 3) / 2,
    });
    expect(report.byType.untyped).toMatchObject({ answerable: 1, recallAt1: 0, mrrAt10: 0 });
    expect(report.byType.no_answer).toMatchObject({ answerable: 0, unanswerable: 2, flaggedUnanswerable: 1 });
    expect(report.outcomes.map((outcome) => outcome.rank)).toEqual([1, 3, 10, null, null, null]);
    expect(report.outcomes.map((outcome) => outcome.clauseRank)).toEqual([null, 3, 10, null, null, null]);
    const table = formatEvalReport(report);
    expect(table).toContain('overall');
    expect(table).toMatch(/no_answer\s+2\s+-\s+-\s+-\s+-\s+-\s+1\/2/);
  });

  it('calibrates on the reranker’s score when every search was reranked, and says so', async () => {
    const queries = parseEvalQueries(
      ['{"id":"a","query":"yes","gold":["退货"]}', '{"id":"b","query":"no","gold":[]}'].join('\n'),
    );
    const evidence = (topRerankScore?: number) => ({
      // An exact match would be infinitely strong on the keyword signal; the reranker knows better.
      exactMatches: 1,
      topNgramCosine: 0.5,
      topKeywordScore: 3,
      ...(topRerankScore === undefined ? {} : { topRerankScore }),
    });
    const reranked = await evaluate(queries, async (query) => ({
      hits: [{ text: '退货' }],
      lowEvidence: false,
      evidence: evidence(query === 'yes' ? 0.9 : 0.05),
    }));
    expect(reranked.lowEvidence).toMatchObject({ signal: 'reranker', auc: 1 });
    expect(reranked.outcomes.map((outcome) => outcome.strength)).toEqual([0.9, 0.05]);
    expect(formatEvalReport(reranked)).toMatch(/low evidence \(reranker score\): AUC 1\.000/);
    const keyword = await evaluate(queries, async () => ({
      hits: [],
      lowEvidence: false,
      evidence: evidence(),
    }));
    expect(keyword.lowEvidence).toMatchObject({ signal: 'keyword', auc: 0.5 });
    expect(formatEvalReport(keyword)).toMatch(/low evidence: AUC 0\.500/);
    // A reranker that failed on some searches leaves two scales: nothing to calibrate on.
    const mixed = await evaluate(queries, async (query) => ({
      hits: [],
      lowEvidence: false,
      evidence: evidence(query === 'yes' ? 0.9 : undefined),
    }));
    expect(mixed.lowEvidence).toEqual({ auc: null, bestThreshold: null, signal: 'mixed', reranked: 1 });
    expect(formatEvalReport(mixed)).toMatch(/the reranker answered 1 of 2 searches .* no AUC or threshold/);
  });

  it('names the line of a bad record', () => {
    expect(() => parseEvalQueries('{"id":"a","query":"q","gold":[]}\n{"id":"b","query":"q"}')).toThrow(
      /queries:2:.*gold/,
    );
    expect(() => parseEvalQueries('not json')).toThrow(/queries:1: not a JSON object/);
    expect(() =>
      parseEvalQueries('{"id":"a","query":"q","gold":[]}\n{"id":"a","query":"r","gold":[]}'),
    ).toThrow(/duplicate id a/);
    expect(() => parseEvalQueries('\n\n')).toThrow(/no queries/);
  });
});
