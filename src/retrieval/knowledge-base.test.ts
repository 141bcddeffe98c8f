import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../store/index.ts';
import type { Embedder } from './embedder.ts';
import { HashedNgramEmbedder } from './hashed-ngram-embedder.ts';
import { KnowledgeBase } from './knowledge-base.ts';
import { RetrievalError } from './retrieval-error.ts';
import { SqliteKnowledgeStore } from './sqlite-knowledge-store.ts';
import { createTextAnalyzer } from './text/index.ts';

let directory: string;
let database: Database;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'runstream-kb-'));
  database = openDatabase(join(directory, 'runstream.db'));
});

afterEach(() => {
  database.close();
  rmSync(directory, { recursive: true, force: true });
});

function write(relativePath: string, content: string | Uint8Array): string {
  const path = join(directory, 'knowledge', relativePath);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, content);
  return path;
}

/** Counts what reaches the embedder, to prove unchanged chunks are never embedded again. */
class CountingEmbedder implements Embedder {
  readonly inner = new HashedNgramEmbedder({ dimensions: 64 });
  readonly model = this.inner.model;
  readonly dimensions = this.inner.dimensions;
  embedded: string[] = [];
  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    this.embedded.push(...texts);
    return this.inner.embed(texts);
  }
}

async function open(embedder?: Embedder): Promise<KnowledgeBase> {
  return KnowledgeBase.open({ store: new SqliteKnowledgeStore(database), ...(embedder ? { embedder } : {}) });
}

const seedCandidates = () => {
  write(
    'return-policy.md',
    '# 退货政策\n\nNovaTrail X2 签收后 7 个自然日内可申请退货；商品需保持完好且配件齐全。\n',
  );
  write(
    'shipping-policy.md',
    '# 配送政策\n\nNovaTrail X2 标准配送通常在付款后 1 至 3 个工作日发货，偏远地区时效可能延长。\n',
  );
  write('size-guide.md', '# 尺码指南\n\nNovaTrail X2 提供黑色 M 码与 L 码；下单前请参考尺码表确认脚长。\n');
};

describe('the seed example', () => {
  it('finds the return policy for 这双鞋七天内能退吗？ though they share almost no words', async () => {
    seedCandidates();
    const knowledge = await open();
    await knowledge.ingest([join(directory, 'knowledge')], { baseDirectory: directory });
    const result = await knowledge.search('这双鞋七天内能退吗？', { topK: 3 });
    expect(result.hits[0]?.docId).toBe('knowledge/return-policy.md');
    expect(result.hits[0]?.text).toBe('NovaTrail X2 签收后 7 个自然日内可申请退货；');
    expect(result.hits[0]?.source).toEqual({
      path: 'knowledge/return-policy.md',
      line: 3,
      clause: 1,
      citation: 'knowledge/return-policy.md#L3',
    });
    expect(result.lowEvidence).toBe(false);
  });
});

describe('exact identifiers', () => {
  beforeEach(() => {
    write(
      'products.md',
      '# NovaTrail X2\n\n- NS-X2-BLK-L：黑色 L 码，现货，付款后 24 小时内发货。\n- NS-X2-BLK-M：黑色 M 码，预售，付款后 15 天内发货。\n- NS-X2-GRY-M：灰色 M 码，现货。\n',
    );
    write(
      'shipping.md',
      '# 配送政策\n\n标准配送通常在付款后 1 至 3 个工作日发货，什么时候发货以订单页为准。\n',
    );
  });

  for (const query of [
    'NS-X2-BLK-M 什么时候发货？',
    'ns-x2-blk-m 什么时候发货',
    'ＮＳ－Ｘ２－ＢＬＫ－Ｍ 什么时候发货',
  ]) {
    it(`ranks the exact SKU first and never the one-size-off SKU above it: ${query}`, async () => {
      const knowledge = await open();
      await knowledge.ingest([join(directory, 'knowledge')], { baseDirectory: directory });
      const { hits } = await knowledge.search(query, { topK: 5 });
      expect(hits[0]?.text).toContain('NS-X2-BLK-M');
      expect(hits[0]?.lanes.exact).toEqual({ rank: 1, score: 1 });
      const nearMiss = hits.findIndex((hit) => hit.text.includes('NS-X2-BLK-L'));
      expect(nearMiss === -1 || nearMiss > 0).toBe(true);
      expect(hits.filter((hit) => hit.lanes.exact !== undefined)).toHaveLength(1);
    });
  }
});

describe('incremental ingestion', () => {
  it('re-ingests nothing unchanged, replaces only a changed file’s chunks, and drops a removed file', async () => {
    seedCandidates();
    const embedder = new CountingEmbedder();
    const knowledge = await open(embedder);
    const root = join(directory, 'knowledge');
    const first = await knowledge.ingest([root], { baseDirectory: directory });
    expect(first.documents).toEqual({ added: 3, changed: 0, unchanged: 0, removed: 0 });
    expect(first.chunks).toEqual({ added: 5, unchanged: 0, removed: 0 });
    expect(embedder.embedded).toHaveLength(5);
    const idsBefore = (await new SqliteKnowledgeStore(database).loadChunks()).map((chunk) => chunk.chunkId);

    embedder.embedded = [];
    const again = await knowledge.ingest([root], { baseDirectory: directory });
    expect(again.documents).toEqual({ added: 0, changed: 0, unchanged: 3, removed: 0 });
    expect(again.chunks).toEqual({ added: 0, unchanged: 5, removed: 0 });
    expect(again.embedded).toBe(0);
    expect(embedder.embedded).toEqual([]);

    write(
      'return-policy.md',
      '# 退货政策\n\nNovaTrail X2 签收后 7 个自然日内可申请退货；商品需保持未使用状态。\n',
    );
    const changed = await knowledge.ingest([root], { baseDirectory: directory });
    expect(changed.documents).toEqual({ added: 0, changed: 1, unchanged: 2, removed: 0 });
    expect(changed.chunks).toEqual({ added: 1, unchanged: 4, removed: 1 });
    expect(embedder.embedded).toEqual(['商品需保持未使用状态。']);
    const idsAfter = (await new SqliteKnowledgeStore(database).loadChunks()).map((chunk) => chunk.chunkId);
    expect(idsAfter.filter((id) => idsBefore.includes(id))).toHaveLength(4);

    unlinkSync(join(root, 'size-guide.md'));
    const removed = await knowledge.ingest([root], { baseDirectory: directory });
    expect(removed.documents).toEqual({ added: 0, changed: 0, unchanged: 2, removed: 1 });
    expect(removed.chunks.removed).toBe(2);
    const { hits } = await knowledge.search('黑色 M 码 尺码表', { topK: 10 });
    expect(hits.some((hit) => hit.docId.endsWith('size-guide.md'))).toBe(false);
    expect(knowledge.documentCount).toBe(2);
  });

  it('leaves the index as it was when any input is bad', async () => {
    seedCandidates();
    const knowledge = await open();
    const root = join(directory, 'knowledge');
    await knowledge.ingest([root], { baseDirectory: directory });
    const before = await new SqliteKnowledgeStore(database).loadChunks();

    write('zz-legacy.txt', new Uint8Array([0xcd, 0xcb, 0xbb, 0xf5, 0xd5, 0xfe, 0xb2, 0xdf]));
    write('return-policy.md', '# 退货政策\n\n全新的条款内容，不应写入。\n');
    await expect(knowledge.ingest([root], { baseDirectory: directory })).rejects.toMatchObject({
      code: 'not_utf8',
    });
    await expect(
      knowledge.ingest([join(directory, 'missing')], { baseDirectory: directory }),
    ).rejects.toThrow(/no such file or folder/);
    await expect(knowledge.ingest([])).rejects.toBeInstanceOf(RetrievalError);
    expect(await new SqliteKnowledgeStore(database).loadChunks()).toEqual(before);
  });
});

describe('search', () => {
  it('keeps equal scores in insertion order, the same on every run', async () => {
    write('a.md', '# 甲\n\n退货运费由买家承担。\n');
    write('b.md', '# 乙\n\n退货运费由买家承担。\n');
    write('c.md', '# 丙\n\n退货运费由买家承担。\n');
    const knowledge = await open();
    await knowledge.ingest([join(directory, 'knowledge')], { baseDirectory: directory });
    const first = await knowledge.search('退货运费谁出', { topK: 3 });
    expect(first.hits.map((hit) => hit.docId)).toEqual([
      'knowledge/a.md',
      'knowledge/b.md',
      'knowledge/c.md',
    ]);
    // Equal lane scores; fusion works on ranks, so insertion order decides, the same way every time.
    expect(new Set(first.hits.map((hit) => hit.lanes.ngram?.score)).size).toBe(1);
    expect(new Set(first.hits.map((hit) => hit.lanes.bm25?.score)).size).toBe(1);
    for (let run = 0; run < 5; run += 1) {
      expect((await knowledge.search('退货运费谁出', { topK: 3 })).hits).toEqual(first.hits);
    }
  });

  it('flags low evidence for a question the knowledge does not answer', async () => {
    seedCandidates();
    const knowledge = await open();
    await knowledge.ingest([join(directory, 'knowledge')], { baseDirectory: directory });
    expect((await knowledge.search('明天北京会下雨吗')).lowEvidence).toBe(true);
    expect((await knowledge.search('付款后多久发货？')).lowEvidence).toBe(false);
  });

  it('analyses with a domain table when given one, and corrects a homophone typo', async () => {
    seedCandidates();
    const knowledge = await KnowledgeBase.open({
      store: new SqliteKnowledgeStore(database),
      analyzer: createTextAnalyzer({ synonyms: '尺码 = 大小不合适 | fit' }),
    });
    await knowledge.ingest([join(directory, 'knowledge')], { baseDirectory: directory });
    expect((await knowledge.search('the fit')).hits[0]?.docId).toBe('knowledge/size-guide.md');
    // 退火 is in no clause; 退货 (tui huo) is, and 火 is a character the corpus never uses.
    write('more-returns.md', '# 退货须知\n\n退货请保留包装。\n\n退货需在7天内申请。\n');
    await knowledge.ingest([join(directory, 'knowledge')], { baseDirectory: directory });
    expect((await knowledge.search('能退火吗')).hits[0]?.text).toMatch(/退货/);
  });

  it('applies a filter, refuses an empty query, and uses the vector lane with an embedder', async () => {
    seedCandidates();
    write('faq/faq.json', JSON.stringify([{ questions: ['鞋子能退吗'], answer: '签收后 7 天内可以退。' }]));
    const knowledge = await open(new HashedNgramEmbedder({ dimensions: 128 }));
    await knowledge.ingest([join(directory, 'knowledge')], { baseDirectory: directory });
    expect(knowledge.activeLanes).toEqual(['exact', 'ngram', 'bm25', 'vector']);
    const filtered = await knowledge.search('鞋子能退吗', { filter: { kinds: ['faq'] } });
    expect(filtered.hits.map((hit) => hit.docId)).toEqual(['knowledge/faq/faq.json']);
    expect(filtered.hits[0]?.lanes.vector?.rank).toBe(1);
    const prefixed = await knowledge.search('发货', { filter: { pathPrefix: 'knowledge/shipping' } });
    expect(prefixed.hits.every((hit) => hit.docId === 'knowledge/shipping-policy.md')).toBe(true);
    await expect(knowledge.search('   ')).rejects.toMatchObject({ code: 'empty_query' });
  });
});

describe('small to big: clauses are scored, passages are returned', () => {
  const invoicePolicy = [
    '# 发票政策',
    '',
    '## 类型',
    '',
    '类型代码 INV-E-02 为电子普通发票。开具后发送到下单时填写的邮箱。纸质发票随包裹寄出。',
    '',
    '## 换开',
    '',
    '- 抬头填错的，开票后 30 天内可申请换开 1 次。',
    '- 换开时原发票红冲后重新开具。',
    '',
    '## 其他',
    '',
    '电子普通发票与纸质发票具有同等法律效力。',
    '',
  ].join('\n');

  it('gives each hit its parent passage, so the clause after the match reaches the reader', async () => {
    write('invoices.md', invoicePolicy);
    const knowledge = await open();
    await knowledge.ingest([join(directory, 'knowledge')], { baseDirectory: directory });
    const { hits } = await knowledge.search('INV-E-02 是什么', { topK: 3 });
    const [first] = hits;
    expect(first?.text).toBe('类型代码 INV-E-02 为电子普通发票。');
    // The answer to "where does it go" is the next clause of the same paragraph.
    expect(first?.context).toBe(
      '类型代码 INV-E-02 为电子普通发票。开具后发送到下单时填写的邮箱。纸质发票随包裹寄出。',
    );
    expect(first?.highlights[0]).toEqual({ start: 0, end: first?.text.length });
    // A list's items are one passage, line by line.
    const list = await knowledge.search('抬头填错了能换开吗', { topK: 3 });
    const item = list.hits.find((hit) => hit.headingPath.at(-1) === '换开');
    expect(item?.context).toBe('抬头填错的，开票后 30 天内可申请换开 1 次。\n换开时原发票红冲后重新开具。');
  });

  it('returns K distinct passages: a second clause of a passage is merged, the next passage takes the slot', async () => {
    write('invoices.md', invoicePolicy);
    const knowledge = await open();
    await knowledge.ingest([join(directory, 'knowledge')], { baseDirectory: directory });
    // 电子普通发票 and 纸质发票 are in two clauses of the first paragraph and in the last one.
    const { hits } = await knowledge.search('电子普通发票 纸质发票', { topK: 2 });
    expect(hits).toHaveLength(2);
    const passages = hits.map((hit) => hit.context);
    expect(new Set(passages).size).toBe(2);
    expect(passages).toContain('电子普通发票与纸质发票具有同等法律效力。');
    const paragraph = hits.find((hit) => hit.context.startsWith('类型代码'));
    // Both matching clauses of the paragraph are highlighted in its one hit.
    expect(paragraph?.highlights.map(({ start, end }) => paragraph.context.slice(start, end)).sort()).toEqual(
      ['类型代码 INV-E-02 为电子普通发票。', '纸质发票随包裹寄出。'].sort(),
    );
  });

  it('caps the context, keeping the match and the clause after it', async () => {
    write('invoices.md', invoicePolicy);
    const knowledge = await open();
    await knowledge.ingest([join(directory, 'knowledge')], { baseDirectory: directory });
    const { hits } = await knowledge.search('INV-E-02', { topK: 1, contextChars: 45 });
    expect(hits[0]?.context).toBe('类型代码 INV-E-02 为电子普通发票。开具后发送到下单时填写的邮箱。…');
    await expect(knowledge.search('INV-E-02', { contextChars: 0 })).rejects.toThrow(RangeError);
  });

  it('cuts a knowledge base ingested by an older chunker again on the next ingest', async () => {
    write('invoices.md', invoicePolicy);
    const knowledge = await open();
    await knowledge.ingest([join(directory, 'knowledge')], { baseDirectory: directory });
    // As an older runstream left it: no passages, and a hash of the bytes alone.
    database.prepare('UPDATE kb_chunks SET parent = NULL').run();
    database.prepare("UPDATE kb_documents SET content_hash = 'bytes-only'").run();
    const stale = await open();
    const before = await stale.search('INV-E-02', { topK: 1 });
    expect(before.hits[0]?.context).toBe(before.hits[0]?.text);
    const summary = await stale.ingest([join(directory, 'knowledge')], { baseDirectory: directory });
    expect(summary.documents.changed).toBe(1);
    expect(summary.chunks.added).toBe(0);
    const after = await stale.search('INV-E-02', { topK: 1 });
    expect(after.hits[0]?.context).toContain('开具后发送到下单时填写的邮箱。');
  });
});

describe('an English question', () => {
  it("meets Chinese clauses through CC-CEDICT's glosses of the knowledge base's own words", async () => {
    write(
      'policies/delivery.md',
      '# 配送规则\n\n## 早餐时段\n\n7:00–8:00 早餐时段需在前一日 22:00 前下单。\n\n## 夜间时段\n\n21:00–22:00 夜间时段不配送冷冻商品。\n',
    );
    write('policies/invoices.md', '# 发票\n\n一张发票最多合并 50 个订单。\n');
    const knowledge = await open();
    await knowledge.ingest([join(directory, 'knowledge')], { baseDirectory: directory });
    const question = 'What is the cutoff for the breakfast slot?';
    const { hits, evidence } = await knowledge.search(question, { topK: 2 });
    expect(hits[0]?.text).toBe('7:00–8:00 早餐时段需在前一日 22:00 前下单。');
    // Without the lexicon nothing in the question is a word of the knowledge base.
    const glossaryOnly = await KnowledgeBase.open({
      store: new SqliteKnowledgeStore(database),
      englishLexicon: false,
    });
    const without = await glossaryOnly.search(question, { topK: 2 });
    expect(without.hits[0]?.text).not.toBe('7:00–8:00 早餐时段需在前一日 22:00 前下单。');
    // and its evidence is weaker: the translated words are what the keyword score counts.
    expect(without.evidence.topKeywordScore).toBeLessThan(evidence.topKeywordScore);
  });
});

describe("a shopper's word the knowledge base never uses", () => {
  it('meets the clause that says it in other words (CC-CEDICT), for ranking but not as evidence', async () => {
    write('policies/returns.md', '# 退货\n\n商品签收后 7 天内可退货。\n\n包装签收后请保留。\n');
    const knowledge = await open();
    await knowledge.ingest([join(directory, 'knowledge')], { baseDirectory: directory });
    // 货物 is in no clause; CC-CEDICT glosses it and 商品 alike ("commodity", "merchandise").
    const question = '货物签收后还能退吗';
    const answer = '商品签收后 7 天内可退货。';
    const found = await knowledge.search(question, { topK: 2 });
    expect(found.hits[0]?.text).toBe(answer);
    expect(found.hits[0]?.lanes.bm25?.rank).toBe(1);
    const literal = await KnowledgeBase.open({
      store: new SqliteKnowledgeStore(database),
      paraphrases: false,
    });
    const without = await literal.search(question, { topK: 2 });
    const withoutAnswer = without.hits.find((hit) => hit.text === answer);
    expect(withoutAnswer?.lanes.bm25?.score ?? 0).toBeLessThan(found.hits[0]?.lanes.bm25?.score ?? 0);
    // The evidence reads the question's own words: a paraphrase never makes a question look answered.
    expect(found.evidence.topKeywordScore).toBe(without.evidence.topKeywordScore);
  });
});
