import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../store/index.ts';
import { KnowledgeBase } from './knowledge-base.ts';
import { openKnowledgeBase } from './open-knowledge-base.ts';
import { SqliteKnowledgeStore } from './sqlite-knowledge-store.ts';
import { temporaryKnowledgeDirectory } from './test-support/index.ts';
import { createTextAnalyzer } from './text/index.ts';

const temporary = temporaryKnowledgeDirectory('runstream-namespaces-');

/** Writes `<folder>/<relativePath>` under the test's directory, making its folders; returns the path. */
function write(folder: string, relativePath: string, content: string): string {
  const path = join(temporary.directory, folder, relativePath);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
  return path;
}

const at = (folder: string) => join(temporary.directory, folder);

const open = (namespace: string, analyzer?: ReturnType<typeof createTextAnalyzer>) =>
  KnowledgeBase.open({
    store: new SqliteKnowledgeStore(temporary.database, { namespace }),
    ...(analyzer ? { analyzer } : {}),
    // CC-CEDICT is beside the point here, and reading it is most of a small test's time.
    paraphrases: false,
    englishLexicon: false,
    onNotice: () => {},
  });

const citations = async (knowledge: KnowledgeBase, query: string) =>
  (await knowledge.search(query, { topK: 5 })).hits.map((hit) => `${hit.source.citation} ${hit.text}`);

describe('knowledge namespaces', () => {
  it('keep two agents apart in one file, with the same document paths in both', async () => {
    write('shop/knowledge', 'policy.md', '# 售后政策\n\n签收后 7 天内可以无理由退货。\n');
    write('shop/knowledge', 'shop-only.md', '# 发票\n\n电子发票在签收后开具。\n');
    write('repair/knowledge', 'policy.md', '# 维修政策\n\n洗衣机显示 E4 时请先检查进水阀。\n');
    // Each agent with its own analysis: storing one's terms must not drop the other's.
    const shopAnalyzer = createTextAnalyzer({ synonyms: '退货 = 退换\n' });
    const shop = await open('shop', shopAnalyzer);
    const repair = await open('repair');
    await shop.ingest([at('shop/knowledge')], { baseDirectory: at('shop') });
    await repair.ingest([at('repair/knowledge')], { baseDirectory: at('repair') });

    expect([shop.documentCount, repair.documentCount]).toEqual([2, 1]);
    expect(await citations(shop, '七天能退货吗')).toEqual(
      expect.arrayContaining([expect.stringMatching(/^knowledge\/policy\.md#L3 签收后 7 天内/)]),
    );
    expect((await citations(shop, 'E4 进水阀')).join('\n')).not.toMatch(/E4/);
    expect((await citations(repair, 'E4 进水阀'))[0]).toMatch(/^knowledge\/policy\.md#L3 洗衣机显示 E4/);
    expect((await citations(repair, '七天无理由退货')).join('\n')).not.toMatch(/退货/);

    // The same citation path reads each agent's own document; another's is not there.
    expect(await shop.sources.read('knowledge/policy.md')).toEqual({
      path: 'knowledge/policy.md',
      title: '售后政策',
      text: '# 售后政策\n\n签收后 7 天内可以无理由退货。\n',
    });
    expect((await repair.sources.read('knowledge/policy.md'))?.title).toBe('维修政策');
    expect(await repair.sources.read('knowledge/shop-only.md')).toBeUndefined();
    expect(await shop.sources.read('../repair/knowledge/policy.md')).toBeUndefined();

    // Opened again, each finds its own stored terms and postings: nothing is analysed again.
    const reopened = [await open('shop', shopAnalyzer), await open('repair')];
    for (const knowledge of reopened) {
      expect(knowledge.buildReport.analysedChunks).toEqual({ word: 0, ngram: 0, identifier: 0 });
      expect(knowledge.buildReport.storedPostings).toEqual(['word', 'ngram', 'identifier']);
    }
    expect(SqliteKnowledgeStore.namespaces(temporary.database)).toEqual([
      { namespace: 'repair', documents: 1, chunks: 1 },
      { namespace: 'shop', documents: 2, chunks: 2 },
    ]);
    // A namespace nobody ingested is empty, not the default one.
    expect((await open('nobody')).chunkCount).toBe(0);
  });

  it('remove only what left an ingested folder: never other folders or namespaces', async () => {
    // Two shops ingested into one namespace, each relative to its own folder: their document paths
    // both start with knowledge/, so either one's folder, read relative to the other's base, would
    // "contain" the other's documents.
    write('shop-a/knowledge', 'returns.md', '# 退货\n\n七天无理由退货。\n');
    const leaving = write('shop-a/knowledge', 'leaving.md', '# 旧政策\n\n这条政策即将删除。\n');
    write('shop-b/knowledge', 'repair.md', '# 维修\n\n保修期一年。\n');
    write('other/knowledge', 'returns.md', '# 别的退货\n\n另一个命名空间的同名文件。\n');
    const knowledge = await open('default');
    const other = await open('other');
    await knowledge.ingest([at('shop-a/knowledge')], { baseDirectory: at('shop-a') });
    await other.ingest([at('other/knowledge')], { baseDirectory: at('other') });
    const b = await knowledge.ingest([at('shop-b/knowledge')], { baseDirectory: at('shop-b') });
    expect(b.documents).toEqual({ added: 1, changed: 0, unchanged: 0, removed: 0 });
    const again = await knowledge.ingest([at('shop-a/knowledge')], { baseDirectory: at('shop-a') });
    expect(again.documents).toEqual({ added: 0, changed: 0, unchanged: 2, removed: 0 });
    expect(knowledge.documentCount).toBe(3);

    unlinkSync(leaving);
    const afterDelete = await knowledge.ingest([at('shop-a/knowledge')], { baseDirectory: at('shop-a') });
    expect(afterDelete.documents).toEqual({ added: 0, changed: 0, unchanged: 1, removed: 1 });
    expect(afterDelete.chunks.removed).toBe(1);
    // Ingested from the working directory (another base), folder b does not own folder a's documents.
    await knowledge.ingest([at('shop-b/knowledge')]);
    // Its own document is now there under its new path, the old path removed; a's stays.
    const ids = (await new SqliteKnowledgeStore(temporary.database).listDocuments()).map((d) => d.docId);
    expect(ids).toEqual([
      expect.stringMatching(/^\.\.\/.*\/shop-b\/knowledge\/repair\.md$/),
      'knowledge/returns.md',
    ]);
    expect((await open('other')).documentCount).toBe(1);
    expect((await other.sources.read('knowledge/returns.md'))?.title).toBe('别的退货');
  });

  it('migrate a file from before namespaces: its documents become the default namespace’s', async () => {
    write('shop/knowledge', 'returns.md', '# 退货\n\n签收后七天内可以退货。\n\n退货运费由买家承担。\n');
    const gone = write('shop/knowledge', 'old.md', '# 旧\n\n会被删除的旧条款。\n');
    const current = await open('default');
    await current.ingest([at('shop/knowledge')], { baseDirectory: at('shop') });
    const before = await citations(current, '退货运费谁出');

    // The same knowledge in a file of schema 4, as the release before namespaces wrote it.
    const oldPath = join(temporary.directory, 'old.db');
    const old = openDatabase(oldPath);
    old.exec(SCHEMA_4);
    old.prepare('ATTACH DATABASE ? AS source').run(join(temporary.directory, 'runstream.db'));
    old.exec(`
      INSERT INTO kb_documents SELECT doc_id, source_path, title, kind, content_hash, chunk_count, updated_at FROM source.kb_documents;
      INSERT INTO kb_chunks SELECT chunk_id, doc_id, heading_path, text, index_text, line, clause, embedding_model, embedding, parent FROM source.kb_chunks;
      INSERT INTO kb_term_fields SELECT field, fingerprint FROM source.kb_term_fields;
      INSERT INTO kb_terms SELECT field, term_id, term FROM source.kb_terms;
      INSERT INTO kb_chunk_terms SELECT chunk_id, field, terms FROM source.kb_chunk_terms;
      INSERT INTO kb_postings SELECT field, fingerprint, rows_hash, postings FROM source.kb_postings;
    `);
    old.exec('DETACH DATABASE source');
    const reader = readOnly(oldPath);
    expect(() => new SqliteKnowledgeStore(reader)).toThrow(/schema 4, older .* to upgrade them/);
    reader.close();

    const migrated = await KnowledgeBase.open({ store: new SqliteKnowledgeStore(old), onNotice: () => {} });
    expect(old.prepare('SELECT version FROM kb_schema').get()).toEqual({ version: 5 });
    // Terms and postings came along: the open reads them instead of analysing.
    expect(migrated.buildReport.storedPostings).toEqual(['word', 'ngram', 'identifier']);
    expect(await citations(migrated, '退货运费谁出')).toEqual(before);
    const documents = await new SqliteKnowledgeStore(old).listDocuments();
    expect(documents.map((document) => [document.docId, document.filePath])).toEqual([
      ['knowledge/old.md', null],
      ['knowledge/returns.md', null],
    ]);
    expect((await new SqliteKnowledgeStore(old, { namespace: 'shop' }).listDocuments()).length).toBe(0);
    expect(await migrated.sources.read('knowledge/returns.md')).toBeUndefined();

    // A migrated document has no recorded file: placed by its path, it is removed when gone, and the
    // next ingest records the files of the others.
    unlinkSync(gone);
    const summary = await migrated.ingest([at('shop/knowledge')], { baseDirectory: at('shop') });
    expect(summary.documents).toEqual({ added: 0, changed: 0, unchanged: 1, removed: 1 });
    expect((await new SqliteKnowledgeStore(old).listDocuments()).map((d) => d.filePath)).toEqual([
      join(at('shop/knowledge'), 'returns.md'),
    ]);
    expect((await migrated.sources.read('knowledge/returns.md'))?.title).toBe('退货');
    old.close();
  });

  it('open a read-only file without writing to it, even when its terms are of another analysis', async () => {
    write('shop/knowledge', 'returns.md', '# 退货\n\n签收后七天内可以退货。\n\n退货运费由买家承担。\n');
    await (await open('shop')).ingest([at('shop/knowledge')], { baseDirectory: at('shop') });
    const path = join(temporary.directory, 'runstream.db');
    temporary.database.close();
    const fingerprint = () => [
      statSync(path).mtimeMs,
      createHash('sha256').update(readFileSync(path)).digest('hex'),
    ];
    const before = fingerprint();

    const database = readOnly(path);
    const analyzer = createTextAnalyzer({ synonyms: '运费 = 邮费\n' });
    const notices: string[] = [];
    const knowledge = await openKnowledgeBase(
      database,
      {},
      { namespace: 'shop', analyzer, onNotice: (m) => notices.push(m) },
    );
    expect(knowledge.namespace).toBe('shop');
    expect(notices[0]).toMatch(/re-analysing 2 chunks for this open \(the store is read-only\)/);
    expect((await citations(knowledge, '邮费谁出'))[0]).toMatch(/运费由买家承担/);
    await expect(knowledge.ingest([at('shop/knowledge')])).rejects.toThrow(/read-only/);
    database.close();
    expect(fingerprint()).toEqual(before);

    // The same answers as a writable open, which stores what it analyses.
    const writable = openDatabase(path);
    const stored = await openKnowledgeBase(writable, {}, { namespace: 'shop', analyzer, onNotice: () => {} });
    expect(await citations(stored, '邮费谁出')).toEqual(await citations(knowledge, '邮费谁出'));
    writable.close();

    // A file without knowledge tables reads as empty.
    const empty = join(temporary.directory, 'empty.db');
    openDatabase(empty).close();
    const emptyDatabase = readOnly(empty);
    expect((await openKnowledgeBase(emptyDatabase, {}, { onNotice: () => {} })).chunkCount).toBe(0);
    emptyDatabase.close();
  });
});

function readOnly(path: string): Database.Database {
  return new Database(path, { readonly: true, fileMustExist: true });
}

/** The knowledge tables as the four migrations before namespaces left them. */
const SCHEMA_4 = `
  CREATE TABLE kb_schema (version INTEGER NOT NULL);
  INSERT INTO kb_schema (version) VALUES (4);
  CREATE TABLE kb_documents (
    doc_id TEXT PRIMARY KEY, source_path TEXT NOT NULL, title TEXT NOT NULL, kind TEXT NOT NULL,
    content_hash TEXT NOT NULL, chunk_count INTEGER NOT NULL, updated_at INTEGER NOT NULL
  );
  CREATE TABLE kb_chunks (
    chunk_id TEXT PRIMARY KEY,
    doc_id TEXT NOT NULL REFERENCES kb_documents(doc_id) ON DELETE CASCADE,
    heading_path TEXT NOT NULL, text TEXT NOT NULL, index_text TEXT NOT NULL, line INTEGER NOT NULL,
    clause INTEGER NOT NULL, embedding_model TEXT, embedding BLOB
  );
  CREATE INDEX kb_chunks_by_document ON kb_chunks(doc_id, clause);
  ALTER TABLE kb_chunks ADD COLUMN parent INTEGER;
  CREATE TABLE kb_term_fields (field TEXT PRIMARY KEY, fingerprint TEXT NOT NULL);
  CREATE TABLE kb_terms (
    field TEXT NOT NULL, term_id INTEGER NOT NULL, term TEXT NOT NULL, PRIMARY KEY (field, term_id)
  ) WITHOUT ROWID;
  CREATE TABLE kb_chunk_terms (
    chunk_id TEXT NOT NULL REFERENCES kb_chunks(chunk_id) ON DELETE CASCADE,
    field TEXT NOT NULL, terms BLOB NOT NULL, PRIMARY KEY (chunk_id, field)
  ) WITHOUT ROWID;
  CREATE TABLE kb_vector_graphs (embedding_model TEXT PRIMARY KEY, rows_hash TEXT NOT NULL, graph BLOB NOT NULL);
  CREATE TABLE kb_postings (
    field TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, rows_hash TEXT NOT NULL, postings BLOB NOT NULL
  );
`;
