import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { KnowledgeBase, type KnowledgeBaseOptions } from './knowledge-base.ts';
import { openKnowledgeBase } from './open-knowledge-base.ts';
import type { Reranker } from './reranker.ts';
import type { SearchHit } from './search-result.ts';
import { SqliteKnowledgeStore } from './sqlite-knowledge-store.ts';
import {
  type FakeRerankServer,
  startFakeRerankServer,
  temporaryKnowledgeDirectory,
} from './test-support/index.ts';

/** A scripted cross-encoder: each passage's score is the first of `scores` whose key it holds. */
class ScriptedReranker implements Reranker {
  readonly model = 'scripted-reranker';
  readonly calls: { query: string; documents: string[] }[] = [];
  constructor(
    readonly scores: [phrase: string, score: number][],
    readonly otherwise = 0.01,
  ) {}
  async rerank(query: string, documents: readonly string[]): Promise<number[]> {
    this.calls.push({ query, documents: [...documents] });
    return documents.map(
      (document) => this.scores.find(([phrase]) => document.includes(phrase))?.[1] ?? this.otherwise,
    );
  }
}

class FailingReranker implements Reranker {
  readonly model = 'down-reranker';
  async rerank(): Promise<number[]> {
    throw new Error('rerank request POST http://127.0.0.1:1/v1/rerank failed: network error');
  }
}

/** Waits until the search's signal aborts, then rejects with its reason, as `HttpReranker` does. */
class HangingReranker implements Reranker {
  readonly model = 'hanging-reranker';
  rerank(
    _query: string,
    _documents: readonly string[],
    options: { signal?: AbortSignal } = {},
  ): Promise<number[]> {
    return new Promise((_, reject) => {
      options.signal?.addEventListener('abort', () => reject(options.signal?.reason), { once: true });
    });
  }
}

const POLICY = [
  '# 退货政策',
  '',
  '## 七天无理由退货',
  '',
  '签收后 7 天内，商品完好可申请无理由退货。',
  '',
  '## 退货运费',
  '',
  '无理由退货的寄回运费由买家承担，质量问题由我们承担。',
  '',
  '## 退款到账',
  '',
  '退款原路退回，一般 1 到 3 个工作日到账。',
  '',
].join('\n');

const JACKET = [
  '# 冲锋衣 NS-X2',
  '',
  '## 库存',
  '',
  'NS-X2-BLK-M 黑色 M 码现货，下单后 24 小时内发货。',
  '',
  'NS-X2-BLK-L 黑色 L 码缺货，预计下月到货。',
  '',
].join('\n');

describe('a search with a reranker', () => {
  const temporary = temporaryKnowledgeDirectory('runstream-rerank-');

  async function knowledgeWith(options: Partial<KnowledgeBaseOptions>): Promise<KnowledgeBase> {
    temporary.write('returns.md', POLICY);
    temporary.write('jacket-NS-X2.md', JACKET);
    const knowledge = await KnowledgeBase.open({
      store: new SqliteKnowledgeStore(temporary.database),
      ...options,
    });
    await knowledge.ingest([join(temporary.directory, 'knowledge')], { baseDirectory: temporary.directory });
    return knowledge;
  }

  it('orders the passages by the reranker, which reads the heading path and the passage', async () => {
    const reranker = new ScriptedReranker([['原路退回', 0.93]]);
    const knowledge = await knowledgeWith({ reranker, rerankCandidates: 4 });
    const result = await knowledge.search('退货运费谁出', { topK: 2 });
    expect(result.hits).toHaveLength(2);
    expect(result.hits[0]?.text).toContain('原路退回');
    expect(result.hits[0]?.rerankScore).toBe(0.93);
    expect(result.hits[1]?.rerankScore).toBe(0.01);
    expect(result.evidence.topRerankScore).toBe(0.93);
    expect(result.lowEvidence).toBe(false);
    const [call] = reranker.calls;
    expect(call?.query).toBe('退货运费谁出');
    expect(call?.documents.length).toBeLessThanOrEqual(4);
    expect(call?.documents.length).toBeGreaterThan(2);
    expect(call?.documents).toContain(
      '退货政策 > 退货运费\n无理由退货的寄回运费由买家承担，质量问题由我们承担。',
    );
  });

  it('returns topK hits when topK is more than the candidates it reranks', async () => {
    const knowledge = await knowledgeWith({ reranker: new ScriptedReranker([], 0.5), rerankCandidates: 1 });
    const result = await knowledge.search('退货运费谁出', { topK: 3 });
    expect(result.hits).toHaveLength(3);
    expect(result.hits.every((hit) => hit.rerankScore === 0.5)).toBe(true);
  });

  it('says evidence is low when the reranker finds no passage relevant, keyword overlap or not', async () => {
    const unconvinced = await knowledgeWith({ reranker: new ScriptedReranker([], 0.02) });
    const weak = await unconvinced.search('退货运费谁出');
    expect(weak.evidence.topKeywordScore).toBeGreaterThan(1);
    expect(weak.evidence.topRerankScore).toBe(0.02);
    expect(weak.lowEvidence).toBe(true);
    // Its line is the caller's to calibrate (kb eval prints the best one).
    const lenient = await KnowledgeBase.open({
      store: new SqliteKnowledgeStore(temporary.database),
      reranker: new ScriptedReranker([], 0.02),
      rerankLowEvidenceScore: 0.01,
    });
    expect((await lenient.search('退货运费谁出')).lowEvidence).toBe(false);
  });

  it('keeps the fused order, contexts and highlights included, and says so, when the reranker fails', async () => {
    const notices: string[] = [];
    const plain = await knowledgeWith({});
    const failing = await KnowledgeBase.open({
      store: new SqliteKnowledgeStore(temporary.database),
      reranker: new FailingReranker(),
      onNotice: (message) => notices.push(message),
    });
    const expected = await plain.search('退款多久到账', { topK: 3 });
    const result = await failing.search('退款多久到账', { topK: 3 });
    const shown = (hits: SearchHit[]) =>
      hits.map(({ chunkId, context, highlights }) => ({ chunkId, context, highlights }));
    expect(shown(result.hits)).toEqual(shown(expected.hits));
    expect(result.hits.every((hit) => hit.rerankScore === undefined)).toBe(true);
    expect(result.evidence.topRerankScore).toBeUndefined();
    expect(result.lowEvidence).toBe(expected.lowEvidence);
    expect(notices).toEqual([
      expect.stringMatching(
        /^reranker down-reranker failed \(.*network error\); searches keep the fused order for the next 30 s$/,
      ),
    ]);
  });

  it('shows the same passages as without a reranker when it keeps their order', async () => {
    // Reading 20 candidates instead of 1 must not change which clauses a passage shows as matched:
    // here six clauses of one paragraph match, and one slot highlights only the best two.
    temporary.write(
      'refunds.md',
      '# 退款\n\n## 退款说明\n\n退款审核通过后发起。退款原路退回。退款到账看银行。退款金额以实付为准。退款进度在订单里看。退款有问题请联系客服。\n',
    );
    const plain = await knowledgeWith({});
    const keeping = await KnowledgeBase.open({
      store: new SqliteKnowledgeStore(temporary.database),
      reranker: new ScriptedReranker([], 0.5),
    });
    for (const [question, topK] of [
      ['退款', 1],
      ['退款多久到账', 3],
      ['NS-X2-BLK-M 现在有货吗', 2],
    ] as const) {
      const expected = await plain.search(question, { topK });
      const result = await keeping.search(question, { topK });
      expect(result.hits.map(({ context, highlights }) => ({ context, highlights }))).toEqual(
        expected.hits.map(({ context, highlights }) => ({ context, highlights })),
      );
    }
  });

  it('leaves a failed reranker alone for 30 s, then lets one search try it, with one notice', async () => {
    const reranker = new ScriptedReranker([['原路退回', 0.9]]);
    let failing = true;
    let release: () => void = () => {};
    let held = false;
    const flaky: Reranker = {
      model: 'flaky-reranker',
      rerank: async (query, documents) => {
        if (failing) throw new Error('HTTP 503');
        // The trial after the pause waits until the test lets it answer.
        if (held) await new Promise<void>((resolve) => (release = resolve));
        return reranker.rerank(query, documents);
      },
    };
    const notices: string[] = [];
    const knowledge = await knowledgeWith({ reranker: flaky, onNotice: (message) => notices.push(message) });
    const reranked = async (count: number) =>
      (await Promise.all(Array.from({ length: count }, () => knowledge.search('退款多久到账')))).map(
        (result) => result.evidence.topRerankScore,
      );
    vi.useFakeTimers({ toFake: ['performance'] });
    try {
      // Five searches in flight when it fails: five failures, one pause, one notice.
      expect(await reranked(5)).toEqual([undefined, undefined, undefined, undefined, undefined]);
      expect(notices).toHaveLength(1);
      failing = false;
      vi.advanceTimersByTime(29_000);
      expect(await reranked(1)).toEqual([undefined]);
      expect(reranker.calls).toHaveLength(0);
      vi.advanceTimersByTime(2_000);
      // One trial at a time: the other two searches take the fused order meanwhile.
      held = true;
      // Each search runs to its rerank step before \`reranked\` returns: the trial holds \`release\`.
      const trial = reranked(3);
      held = false;
      release();
      expect((await trial).sort()).toEqual([0.9, undefined, undefined]);
      expect(reranker.calls).toHaveLength(1);
      expect(await reranked(2)).toEqual([0.9, 0.9]);
      expect(notices).toHaveLength(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it.each([
    ['a score that is not a number', (documents: readonly string[]) => documents.map(() => Number.NaN)],
    ['too few scores', () => []],
  ])('treats %s as a failure, not as evidence', async (_, scores) => {
    const notices: string[] = [];
    const broken: Reranker = {
      model: 'broken-reranker',
      rerank: async (_query, documents) => scores(documents),
    };
    const knowledge = await knowledgeWith({ reranker: broken, onNotice: (message) => notices.push(message) });
    const result = await knowledge.search('退款多久到账', { topK: 2 });
    expect(result.evidence.topRerankScore).toBeUndefined();
    expect(result.hits.every((hit) => hit.rerankScore === undefined)).toBe(true);
    expect(notices).toEqual([
      expect.stringMatching(/^reranker broken-reranker failed \(\d+ scores for \d+ passages/),
    ]);
  });

  it('refuses a reranker setting that cannot work, before reading the store', async () => {
    const store = new SqliteKnowledgeStore(temporary.database);
    await expect(KnowledgeBase.open({ store, rerankCandidates: 0 })).rejects.toThrow(
      /rerankCandidates must be a positive integer, got 0/,
    );
    await expect(KnowledgeBase.open({ store, rerankLowEvidenceScore: Number.NaN })).rejects.toThrow(
      /rerankLowEvidenceScore must be a finite number/,
    );
  });

  it('stops with the search’s signal instead of falling back', async () => {
    const knowledge = await knowledgeWith({ reranker: new HangingReranker() });
    const controller = new AbortController();
    const search = knowledge.search('退款多久到账', { signal: controller.signal });
    controller.abort(new Error('stopped by the shopper'));
    await expect(search).rejects.toThrow('stopped by the shopper');
  });

  it('keeps a clause of the identifier asked about ahead of a rival the reranker prefers', async () => {
    // The reranker rates the L size's clause above the M size's: the exact lane has decided.
    const reranker = new ScriptedReranker([
      ['NS-X2-BLK-L', 0.97],
      ['NS-X2-BLK-M', 0.6],
    ]);
    const knowledge = await knowledgeWith({ reranker });
    const result = await knowledge.search('NS-X2-BLK-M 现在有货吗', { topK: 3 });
    expect(result.hits[0]?.text).toContain('NS-X2-BLK-M');
    expect(result.hits[0]?.rerankScore).toBe(0.6);
    // The evidence is what the caller is shown: with one slot, the rival's 0.97 is not among it.
    const one = await knowledge.search('NS-X2-BLK-M 现在有货吗', { topK: 1 });
    expect(one.hits.map((hit) => hit.rerankScore)).toEqual([0.6]);
    expect(one.evidence.topRerankScore).toBe(0.6);
  });
});

describe('a reranker configured by the environment', () => {
  const temporary = temporaryKnowledgeDirectory('runstream-rerank-env-');
  let fake: FakeRerankServer | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });

  it('reorders the search through a rerank server over real HTTP', async () => {
    // A server that prefers the refund clause, which the fused order does not put first.
    fake = await startFakeRerankServer({
      score: (_, document) => (document.includes('原路退回') ? 0.88 : 0.03),
    });
    temporary.write('returns.md', POLICY);
    const env = {
      RUNSTREAM_RERANK_MODEL: 'bge-reranker-v2-m3',
      RUNSTREAM_RERANK_URL: fake.url('/v1/rerank'),
    };
    const knowledge = await openKnowledgeBase(temporary.database, env);
    await knowledge.ingest([join(temporary.directory, 'knowledge')], { baseDirectory: temporary.directory });
    const question = '退货运费谁出';
    const fused = await openKnowledgeBase(temporary.database, {});
    expect((await fused.search(question, { topK: 2 })).hits[0]?.text).not.toContain('原路退回');
    const result = await knowledge.search(question, { topK: 2 });
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]?.body).toMatchObject({ model: 'bge-reranker-v2-m3', query: question });
    expect(result.hits[0]?.text).toContain('原路退回');
    expect(result.hits.map((hit) => hit.rerankScore)).toEqual([0.88, 0.03]);
    expect(result.evidence.topRerankScore).toBe(0.88);
    expect(result.lowEvidence).toBe(false);
  });
});
