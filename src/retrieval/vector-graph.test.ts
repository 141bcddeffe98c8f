import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HashedNgramEmbedder } from './hashed-ngram-embedder.ts';
import { KnowledgeBase } from './knowledge-base.ts';
import { ANN_MIN_VECTORS } from './lanes/index.ts';
import { SqliteKnowledgeStore } from './sqlite-knowledge-store.ts';
import { temporaryKnowledgeDirectory } from './test-support/index.ts';

const temporary = temporaryKnowledgeDirectory('runstream-graph-');

const SUBJECTS = ['运动鞋', '冲锋衣', '智能手表', '双肩包', '羽绒服', '蓝牙耳机', '保温杯', '登山杖'];
const RULES = [
  '签收后 7 天内可退货',
  '付款后 24 小时内可改地址',
  '运费由买家承担',
  '支持电子发票',
  '一年保修',
];

/** Enough distinct clauses for the vector lane to use its graph. */
function writeCorpus(root: string): void {
  mkdirSync(root, { recursive: true });
  for (let file = 0; file < 11; file += 1) {
    const clauses = Array.from({ length: 500 }, (_, index) => {
      const number = file * 500 + index;
      return `${SUBJECTS[number % SUBJECTS.length]}第 ${number} 条：${RULES[number % RULES.length]}，编号 ${number}。`;
    });
    writeFileSync(join(root, `policy-${file}.md`), `# 政策 ${file}\n\n${clauses.join('\n\n')}\n`);
  }
}

describe('the vector lane graph of a knowledge base', () => {
  it('is built after an ingest, stored, and read back at the next open instead of rebuilt', async () => {
    const root = join(temporary.directory, 'knowledge');
    writeCorpus(root);
    const embedder = new HashedNgramEmbedder({ dimensions: 32 });
    const store = new SqliteKnowledgeStore(temporary.database);
    const ingesting = await KnowledgeBase.open({ store, embedder });
    await ingesting.ingest([root], { baseDirectory: temporary.directory });
    expect(ingesting.chunkCount).toBeGreaterThanOrEqual(ANN_MIN_VECTORS);
    await ingesting.vectorLaneReady();
    expect(ingesting.vectorSearch).toBe('approximate');
    expect(await store.loadVectorGraph(embedder.model)).toBeDefined();

    const reopened = await KnowledgeBase.open({ store, embedder });
    // No waiting: the stored graph fits the same rows, so it is there at once.
    expect(reopened.vectorSearch).toBe('approximate');
    const result = await reopened.search('智能手表第 42 条', {
      topK: 3,
      filter: { docIds: ['knowledge/policy-0.md'] },
    });
    expect(result.hits[0]?.text).toContain('第 42 条');
    expect(result.hits.every((hit) => hit.docId === 'knowledge/policy-0.md')).toBe(true);
    expect((await KnowledgeBase.open({ store })).vectorSearch).toBe('off');
  });
});
