import { mkdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { KnowledgeBase } from './knowledge-base.ts';
import { SqliteKnowledgeStore } from './sqlite-knowledge-store.ts';
import { temporaryKnowledgeDirectory } from './test-support/index.ts';
import { createTextAnalyzer } from './text/index.ts';

// The shop's own knowledge and questions: a real corpus, small enough to analyse in a test.
const KNOWLEDGE = new URL('../../examples/novashop/knowledge/', import.meta.url).pathname;
const QUESTIONS = [
  '这双鞋七天内能退吗？',
  'NS-X2-BLK-M 什么时候发货',
  '偏远地区运费谁承担',
  '发票怎么开',
  '价保多久',
  'can I return the jacket',
  '积分什么时候到账',
];

const temporary = temporaryKnowledgeDirectory('runstream-terms-');

const open = (onNotice?: (message: string) => void) =>
  KnowledgeBase.open({
    store: new SqliteKnowledgeStore(temporary.database),
    ...(onNotice ? { onNotice } : {}),
  });

async function answers(knowledgeBase: KnowledgeBase) {
  const results = [];
  for (const question of QUESTIONS) {
    const { hits, lowEvidence, evidence } = await knowledgeBase.search(question, { topK: 10 });
    results.push({
      lowEvidence,
      evidence,
      hits: hits.map((hit) => ({ chunkId: hit.chunkId, score: hit.score, lanes: hit.lanes })),
    });
  }
  return results;
}

const count = (sql: string) => (temporary.database.prepare(sql).get() as { count: number }).count;

describe('persisted lexical terms', () => {
  it('give the same hits, scores and evidence as analysing every chunk at open', async () => {
    await (await open()).ingest([KNOWLEDGE], { baseDirectory: KNOWLEDGE });
    const fromStoredTerms = await open();
    expect(fromStoredTerms.buildReport.analysedChunks).toEqual({ word: 0, ngram: 0, identifier: 0 });
    const stored = await answers(fromStoredTerms);

    temporary.database.exec('DELETE FROM kb_chunk_terms; DELETE FROM kb_terms; DELETE FROM kb_term_fields');
    const notice = vi.fn();
    const reanalysed = await open(notice);
    expect(notice.mock.calls.map(([message]) => message)).toEqual([
      expect.stringMatching(/no stored word terms/),
      expect.stringMatching(/no stored ngram terms/),
      expect.stringMatching(/no stored identifier terms/),
    ]);
    expect(reanalysed.buildReport.analysedChunks).toEqual({
      word: reanalysed.chunkCount,
      ngram: reanalysed.chunkCount,
      identifier: reanalysed.chunkCount,
    });
    expect(await answers(reanalysed)).toEqual(stored);
    expect(stored.some((answer) => answer.hits.length > 0)).toBe(true);
    // The open that analysed stored what it found: the next one reads it.
    expect((await open()).buildReport.analysedChunks).toEqual({ word: 0, ngram: 0, identifier: 0 });
  });

  it('open from the postings stored whole, with the same answers as from each chunk’s terms', async () => {
    const ingesting = await open();
    await ingesting.ingest([KNOWLEDGE], { baseDirectory: KNOWLEDGE });
    // The ingest's own reload stored each field's postings: an open reads no chunk's terms.
    expect(count('SELECT count(*) AS count FROM kb_postings')).toBe(3);
    expect(ingesting.buildReport.storedPostings).toEqual([]);
    // An ingest that changes nothing keeps them: its reload reads them.
    await ingesting.ingest([KNOWLEDGE], { baseDirectory: KNOWLEDGE });
    expect(ingesting.buildReport.storedPostings).toEqual(['word', 'ngram', 'identifier']);
    const fromPostings = await open();
    expect(fromPostings.buildReport.storedPostings).toEqual(['word', 'ngram', 'identifier']);
    const stored = await answers(fromPostings);

    temporary.database.exec('DELETE FROM kb_postings');
    const fromTerms = await open();
    expect(fromTerms.buildReport).toEqual({
      analysedChunks: { word: 0, ngram: 0, identifier: 0 },
      staleFields: [],
      storedPostings: [],
    });
    expect(await answers(fromTerms)).toEqual(stored);
    expect(count('SELECT count(*) AS count FROM kb_postings')).toBe(3);

    // Damaged postings are not trusted: that field is built from its terms again (nothing is lost)
    // and stored sound for the next open.
    temporary.database.exec("UPDATE kb_postings SET postings = x'00' WHERE field = 'ngram'");
    const repaired = await open();
    expect(repaired.buildReport.storedPostings).toEqual(['word', 'identifier']);
    expect(await answers(repaired)).toEqual(stored);
    expect((await open()).buildReport.storedPostings).toEqual(['word', 'ngram', 'identifier']);
  });

  it('are re-analysed, once and said so, when the text analysis changed', async () => {
    await (await open()).ingest([KNOWLEDGE], { baseDirectory: KNOWLEDGE });
    const expected = await answers(await open());
    temporary.database
      .prepare("UPDATE kb_term_fields SET fingerprint = 'text-0:older' WHERE field = 'word'")
      .run();
    const notice = vi.fn();
    const knowledgeBase = await open(notice);
    expect(knowledgeBase.buildReport).toEqual({
      analysedChunks: { word: knowledgeBase.chunkCount, ngram: 0, identifier: 0 },
      staleFields: ['word'],
      // The word postings were built from the old terms: rebuilt; the other fields' still hold.
      storedPostings: ['ngram', 'identifier'],
    });
    expect(notice).toHaveBeenCalledTimes(1);
    expect(notice.mock.calls[0]?.[0]).toMatch(/word terms .* text-0:older/);
    expect(await answers(knowledgeBase)).toEqual(expected);
    const again = vi.fn();
    expect((await open(again)).buildReport.staleFields).toEqual([]);
    expect(again).not.toHaveBeenCalled();
  });

  it('leave nothing behind when a document is removed, changed or ingested again', async () => {
    const root = join(temporary.directory, 'knowledge');
    mkdirSync(root);
    const write = (name: string, content: string) => writeFileSync(join(root, name), content);
    write('returns.md', '# 退货政策\n\n签收后 7 个自然日内可申请退货。\n\n商品需保持完好且配件齐全。\n');
    write('shipping.md', '# 配送政策\n\n付款后 1 至 3 个工作日发货。\n');
    const knowledgeBase = await open();
    await knowledgeBase.ingest([root], { baseDirectory: temporary.directory });
    const rowsPerChunk = () =>
      count('SELECT count(*) AS count FROM kb_chunk_terms') /
      count('SELECT count(*) AS count FROM kb_chunks');
    expect(rowsPerChunk()).toBe(3);

    unlinkSync(join(root, 'shipping.md'));
    write('returns.md', '# 退货政策\n\n签收后 15 个自然日内可申请退货。\n\n商品需保持完好且配件齐全。\n');
    // Stored postings were built over the old rows: the ingest replaces them, and a fresh open
    // searches the new text through them.
    const postingsBefore = temporary.database
      .prepare("SELECT postings FROM kb_postings WHERE field = 'word'")
      .get();
    await knowledgeBase.ingest([root], { baseDirectory: temporary.directory });
    expect(
      temporary.database.prepare("SELECT postings FROM kb_postings WHERE field = 'word'").get(),
    ).not.toEqual(postingsBefore);
    const reopened = await open();
    expect(reopened.buildReport.storedPostings).toEqual(['word', 'ngram', 'identifier']);
    expect((await reopened.search('15 天退货')).hits[0]?.text).toContain('15');
    expect((await reopened.search('发货')).hits.some((hit) => hit.docId.includes('shipping'))).toBe(false);
    expect(rowsPerChunk()).toBe(3);
    expect(
      count(
        'SELECT count(*) AS count FROM kb_chunk_terms WHERE chunk_id NOT IN (SELECT chunk_id FROM kb_chunks)',
      ),
    ).toBe(0);
    expect((await knowledgeBase.search('发货')).hits.some((hit) => hit.docId.includes('shipping'))).toBe(
      false,
    );
    expect((await knowledgeBase.search('15 天退货')).hits[0]?.text).toContain('15');
    expect((await knowledgeBase.search('7 天退货')).hits.some((hit) => hit.text.includes('7 个'))).toBe(
      false,
    );

    write('shipping.md', '# 配送政策\n\n付款后 1 至 3 个工作日发货。\n');
    await knowledgeBase.ingest([root], { baseDirectory: temporary.directory });
    expect(rowsPerChunk()).toBe(3);
    expect(knowledgeBase.buildReport.analysedChunks).toEqual({ word: 0, ngram: 0, identifier: 0 });
    expect((await knowledgeBase.search('发货')).hits[0]?.docId).toContain('shipping');
  });

  it('are stored by the analysis the knowledge base searches with, a domain table included', async () => {
    const analyzer = createTextAnalyzer({ synonyms: '退货 = 寄回去 | 不想要了\n' });
    const withTable = () =>
      KnowledgeBase.open({
        store: new SqliteKnowledgeStore(temporary.database),
        analyzer,
        onNotice: () => {},
      });
    await (await withTable()).ingest([KNOWLEDGE], { baseDirectory: KNOWLEDGE });
    // Ingested with the domain's analyser: opening with it analyses nothing again.
    const reopened = await withTable();
    expect(reopened.buildReport.analysedChunks).toEqual({ word: 0, ngram: 0, identifier: 0 });
    const stored = await answers(reopened);
    // Opened with the general analyser, the analysed fields are stale (not the identifiers) …
    const notices: string[] = [];
    const general = await open((message) => notices.push(message));
    expect(general.buildReport.staleFields.sort()).toEqual(['ngram', 'word']);
    expect(notices).toHaveLength(2);
    // … and opening with the domain's analyser again re-analyses and gives the same answers.
    const again = await withTable();
    expect(again.buildReport.staleFields.sort()).toEqual(['ngram', 'word']);
    expect(await answers(again)).toEqual(stored);
  });
});
