import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isRival } from './identifier-scope.ts';
import { KnowledgeBase } from './knowledge-base.ts';
import { SqliteKnowledgeStore } from './sqlite-knowledge-store.ts';
import { temporaryKnowledgeDirectory } from './test-support/index.ts';

describe('isRival', () => {
  it('is another item of the same line', () => {
    expect(isRival('NS-X2-BLK-L', 'NS-X2-BLK-M')).toBe(true);
    expect(isRival('NS-X2-WHT-M', 'NS-X2-BLK-M')).toBe(true);
    expect(isRival('FM-CPN-NEW20', 'FM-CPN-SEA15')).toBe(true);
    expect(isRival('PP-LT-0309-O', 'PP-LT-0207')).toBe(true);
  });

  it('is not the code itself, its variant, the item of a variant, or a code of another kind', () => {
    expect(isRival('PP-LT-0207', 'PP-LT-0207')).toBe(false);
    expect(isRival('PP-LT-0207-O', 'PP-LT-0207')).toBe(false);
    expect(isRival('PP-LT-0207', 'PP-LT-0207-O')).toBe(false);
    expect(isRival('PP-POL-DLV-01', 'PP-LT-0207')).toBe(false);
    expect(isRival('PP-PK-HZ05', 'PP-LT-0207')).toBe(false);
  });

  it('keeps the strict rule where the shape says nothing: two groups, or no groups', () => {
    expect(isRival('HL-1002', 'HL-1001')).toBe(true);
    expect(isRival('HL-POL-01', 'HL-1001')).toBe(true);
    expect(isRival('88236', '88235')).toBe(true);
    expect(isRival('INV2026001', 'NS-X2-BLK-M')).toBe(true);
  });
});

describe('the scope of an identifier in a search', () => {
  const temporary = temporaryKnowledgeDirectory('runstream-scope-');
  const { write } = temporary;

  it("keeps a product page's clause that cites a policy code in the product's scope, and a near miss out", async () => {
    write(
      'products/litter-PP-LT-0207.md',
      [
        '# 豆腐猫砂 6L PP-LT-0207',
        '',
        '## 规格',
        '',
        'SKU：PP-LT-0207。单袋 6L，约 2.4kg，另有 4 袋的整箱装。',
        '',
        '## 售后',
        '',
        '整箱未拆封的支持七天无理由退货，拆开后的单袋不支持。',
        '',
        '## 运费',
        '',
        '整箱 4 袋毛重约 10.4kg，超过 10kg，会按 PP-POL-DLV-01 收取重货附加费。',
        '',
      ].join('\n'),
    );
    write(
      'products/litter-PP-LT-0309.md',
      '# 膨润土猫砂 10L PP-LT-0309\n\n## 运费\n\n整箱购买 PP-LT-0309 不另收运费。\n',
    );
    write(
      'policies/delivery.md',
      '# 发货与运费规则（PP-POL-DLV-01）\n\n## 重货附加费\n\n单个包裹超过 10kg 的，超出部分每公斤加收 2 元。\n',
    );
    const knowledge = await KnowledgeBase.open({ store: new SqliteKnowledgeStore(temporary.database) });
    await knowledge.ingest([join(temporary.directory, 'knowledge')], { baseDirectory: temporary.directory });
    const { hits } = await knowledge.search('PP-LT-0207 买整箱的话要另外加运费吗', { topK: 3 });
    // Without the citation rule the product's own answer falls behind every clause of its page that
    // holds no code at all (here both others), whatever the words say.
    const answer = hits.findIndex((hit) => hit.text.includes('会按 PP-POL-DLV-01 收取重货附加费'));
    expect(answer).toBeGreaterThanOrEqual(0);
    expect(answer).toBeLessThan(2);
    expect(hits.slice(0, 2).every((hit) => hit.docId === 'knowledge/products/litter-PP-LT-0207.md')).toBe(
      true,
    );
    // The other litter's clause names a rival SKU: it stays behind the page asked about.
    const nearMiss = hits.findIndex((hit) => hit.text.includes('PP-LT-0309'));
    expect(nearMiss === -1 || nearMiss >= 2).toBe(true);
  });

  it('a question quoting two codes of one line finds the clause that holds both, not a third code of the line', async () => {
    write(
      'products/milk FM-DRY-0107 FM-DRY-0108.md',
      [
        '# 鲜牛奶 FM-DRY-0107 / FM-DRY-0108',
        '',
        '## 保存',
        '',
        'FM-DRY-0107 与 FM-DRY-0108 均需 2–6℃ 冷藏保存。',
        '',
        '## 饮用',
        '',
        '开封后请在 48 小时内喝完。',
        '',
      ].join('\n'),
    );
    write('products/yogurt.md', '# 酸奶 FM-DRY-0201\n\n## 保存\n\nFM-DRY-0201 需冷藏保存。\n');
    const knowledge = await KnowledgeBase.open({ store: new SqliteKnowledgeStore(temporary.database) });
    await knowledge.ingest([join(temporary.directory, 'knowledge')], { baseDirectory: temporary.directory });
    const { hits } = await knowledge.search('FM-DRY-0107 和 FM-DRY-0108 要冷藏吗', { topK: 2 });
    expect(hits[0]?.text).toBe('FM-DRY-0107 与 FM-DRY-0108 均需 2–6℃ 冷藏保存。');
    expect(hits.every((hit) => hit.docId !== 'knowledge/products/yogurt.md')).toBe(true);
  });
});
