import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KnowledgeBase } from './knowledge-base.ts';
import { SqliteKnowledgeStore } from './sqlite-knowledge-store.ts';
import { temporaryKnowledgeDirectory } from './test-support/index.ts';

describe('a paraphrase weighs less than the question’s own words', () => {
  const temporary = temporaryKnowledgeDirectory('runstream-paraphrase-');

  it('an error code the shopper quotes outranks the clause holding the paraphrase of another word', async () => {
    temporary.write(
      'washer.md',
      [
        '# 滚筒洗衣机',
        '',
        '## 故障代码',
        '',
        '| 代码 | 含义 | 处理方法 |',
        '| --- | --- | --- |',
        '| E1 | 进水超时 | 检查水龙头是否打开、进水管是否弯折 |',
        '| E2 | 排水超时 | 清理排水泵过滤器 |',
        '| E4 | 水位传感器故障 | 请联系售后上门检修 |',
        '',
        '## 保修',
        '',
        '整机保修 3 年，电机保修 10 年。',
        '',
      ].join('\n'),
    );
    const knowledge = await KnowledgeBase.open({ store: new SqliteKnowledgeStore(temporary.database) });
    await knowledge.ingest([join(temporary.directory, 'knowledge')], { baseDirectory: temporary.directory });
    // No clause says 显示; CC-CEDICT glosses it and 打开 alike ("to show"), and only the E1 row holds 打开.
    // At full weight that paraphrase outweighed E4 itself and the E1 row came first.
    const { hits } = await knowledge.search('洗衣机显示 E4', { topK: 1 });
    expect(hits[0]?.text).toContain('E4');
    const without = await KnowledgeBase.open({
      store: new SqliteKnowledgeStore(temporary.database),
      paraphrases: false,
    });
    expect((await without.search('洗衣机显示 E4', { topK: 1 })).hits[0]?.text).toContain('E4');
  });
});
