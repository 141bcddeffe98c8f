import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileKnowledgeSources } from './knowledge-sources.ts';

let base: string;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'runstream-sources-'));
  mkdirSync(join(base, 'kb', 'policies'), { recursive: true });
  mkdirSync(join(base, 'kb', '.drafts'));
  writeFileSync(join(base, 'kb', 'policies', 'returns.md'), '# 退货政策\n\n- 7 天无理由退货。\n');
  writeFileSync(join(base, 'kb', 'notes.txt'), '没有标题的笔记。\n');
  writeFileSync(join(base, 'kb', 'faq.json'), '[{"id":"a","questions":["能退吗？"],"answer":"能。"}]');
  writeFileSync(join(base, 'kb', 'eval.jsonl'), '{}\n');
  writeFileSync(join(base, 'kb', '.hidden.md'), '# 隐藏\n');
  writeFileSync(join(base, 'kb', '.drafts', 'draft.md'), '# 草稿\n');
  writeFileSync(join(base, 'kb', 'gbk.md'), Buffer.from([0xc4, 0xe3, 0xba, 0xc3]));
  writeFileSync(join(base, 'secret.md'), '# 不在知识库里\n');
  symlinkSync(join(base, 'secret.md'), join(base, 'kb', 'link.md'));
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

describe('createFileKnowledgeSources', () => {
  it('reads the documents an ingest of the same paths holds, by their document path', async () => {
    const sources = createFileKnowledgeSources([join(base, 'kb')], { baseDirectory: base });
    expect(await sources.read('kb/policies/returns.md')).toEqual({
      path: 'kb/policies/returns.md',
      title: '退货政策',
      text: '# 退货政策\n\n- 7 天无理由退货。\n',
    });
    expect(await sources.read('kb/notes.txt')).toMatchObject({ title: 'notes', text: '没有标题的笔记。\n' });
    expect(await sources.read('kb/faq.json')).toMatchObject({ title: 'faq' });
  });

  it('reads nothing else: other files, dot files, links, traversal, files that are not UTF-8', async () => {
    const sources = createFileKnowledgeSources([join(base, 'kb')], { baseDirectory: base });
    for (const path of [
      'secret.md',
      'kb/../secret.md',
      '../secret.md',
      join(base, 'secret.md'),
      'kb/link.md',
      'kb/.hidden.md',
      'kb/.drafts/draft.md',
      'kb/eval.jsonl',
      'kb/gbk.md',
      'kb/policies',
      'kb/policies/',
      './kb/policies/returns.md',
      'kb\\policies\\returns.md',
      '',
      'x'.repeat(5000),
    ])
      expect([path, await sources.read(path)]).toEqual([path, undefined]);
  });

  it('accepts single files, and forgets a file removed since', async () => {
    const sources = createFileKnowledgeSources(
      [join(base, 'kb', 'notes.txt'), join(base, 'kb', 'eval.jsonl')],
      {
        baseDirectory: join(base, 'kb'),
      },
    );
    expect(await sources.read('notes.txt')).toMatchObject({ path: 'notes.txt' });
    expect(await sources.read('eval.jsonl')).toBeUndefined();
    expect(await sources.read('policies/returns.md')).toBeUndefined();
    rmSync(join(base, 'kb', 'notes.txt'));
    expect(await sources.read('notes.txt')).toBeUndefined();
  });
});
