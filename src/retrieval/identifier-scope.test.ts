import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isRival } from './identifier-scope.ts';
import { KnowledgeBase } from './knowledge-base.ts';
import { SqliteKnowledgeStore } from './sqlite-knowledge-store.ts';
import { temporaryKnowledgeDirectory } from './test-support/index.ts';

// Each test of the searches below gets its own folder and SQLite file.
const temporary = temporaryKnowledgeDirectory('runstream-scope-');
const { write } = temporary;
const open = () => KnowledgeBase.open({ store: new SqliteKnowledgeStore(temporary.database) });

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
    const knowledge = await open();
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
    const knowledge = await open();
    await knowledge.ingest([join(temporary.directory, 'knowledge')], { baseDirectory: temporary.directory });
    const { hits } = await knowledge.search('FM-DRY-0107 和 FM-DRY-0108 要冷藏吗', { topK: 2 });
    expect(hits[0]?.text).toBe('FM-DRY-0107 与 FM-DRY-0108 均需 2–6℃ 冷藏保存。');
    expect(hits.every((hit) => hit.docId !== 'knowledge/products/yogurt.md')).toBe(true);
  });
});

describe('an identifier scopes the question', () => {
  it('ranks the answer on the page of the SKU asked about above a near miss, though it does not repeat the SKU', async () => {
    write(
      'products/shrimp.md',
      '# 冷冻虾仁\n\n## 规格\n\nSKU：FM-SEA-0508（1kg 盒装），FM-SEA-0509（2kg 箱装）。\n\n## 储存\n\n解冻后请勿再次冷冻，建议放冷藏室缓慢解冻。\n',
    );
    write('products/fish.md', '# 冷冻鱼柳\n\n## 储存\n\nFM-SEA-0600 解冻后可以再次冷冻一次。\n');
    const knowledge = await open();
    await knowledge.ingest([join(temporary.directory, 'knowledge')], { baseDirectory: temporary.directory });
    const { hits } = await knowledge.search('FM-SEA-0508 解冻后还能再冷冻吗', { topK: 3 });
    // The clause that holds the SKU and the page's answer come first (which of the two leads is the
    // fusion's call); the other product's clause, with its own SKU and the same words, after both.
    expect(hits.slice(0, 2).map((hit) => hit.text)).toContain('解冻后请勿再次冷冻，建议放冷藏室缓慢解冻。');
    expect(hits.map((hit) => hit.docId).slice(0, 2)).toEqual([
      'knowledge/products/shrimp.md',
      'knowledge/products/shrimp.md',
    ]);
    expect(hits[2]?.text).toContain('FM-SEA-0600');
  });

  it('an identifier that names a document (its title) is a scope there: the rest of the question ranks its clauses', async () => {
    write(
      'policies/after-sales.md',
      '# 售后规则（FM-POL-AFS-01）\n\n本规则适用于商品的质量问题售后，编号 FM-POL-AFS-01。\n\n## 时限\n\n非生鲜商品出现质量问题的，可在签收后 7 天内申请售后。\n',
    );
    write(
      'policies/returns.md',
      '# 退货规则\n\n生鲜商品不支持无理由退货；如存在质量问题，仍可按 FM-POL-AFS-01 申请售后。\n',
    );
    const knowledge = await open();
    await knowledge.ingest([join(temporary.directory, 'knowledge')], { baseDirectory: temporary.directory });
    const { hits } = await knowledge.search('按 FM-POL-AFS-01，非生鲜商品多少天内可以申请质量售后', {
      topK: 3,
    });
    expect(hits[0]?.text).toBe('非生鲜商品出现质量问题的，可在签收后 7 天内申请售后。');
    // The document that only refers to the rule comes after the document the rule number names.
    expect(hits.map((hit) => hit.docId)).toEqual([
      'knowledge/policies/after-sales.md',
      'knowledge/policies/after-sales.md',
      'knowledge/policies/returns.md',
    ]);
    // Asked for alone, the identifier's own clause answers.
    const alone = await knowledge.search('FM-POL-AFS-01', { topK: 1 });
    expect(alone.hits[0]?.text).toContain('编号 FM-POL-AFS-01');
  });

  it('a SKU in the file name names the page, as one in the title does', async () => {
    write(
      'products/milk-FM-DRY-0107.md',
      '# 鲜牛奶订购\n\nSKU：FM-DRY-0107（950ml） / FM-DRY-0108（250ml×4）\n\n## 保存\n\n2–6℃ 冷藏保存，开封后请在 48 小时内饮用。\n',
    );
    write('products/yogurt.md', '# 酸奶\n\n开封后请在 24 小时内饮用，FM-DRY-0107 鲜牛奶另计。\n');
    const knowledge = await open();
    await knowledge.ingest([join(temporary.directory, 'knowledge')], { baseDirectory: temporary.directory });
    const { hits } = await knowledge.search('FM-DRY-0107 开封后多久要喝完', { topK: 2 });
    expect(hits[0]?.text).toBe('2–6℃ 冷藏保存，开封后请在 48 小时内饮用。');
    expect(hits.every((hit) => hit.docId === 'knowledge/products/milk-FM-DRY-0107.md')).toBe(true);
  });
});

describe('an identifier that names a document, at the edges', () => {
  it('reads a dotted file name and a question quoting two identifiers, each scoping to its own page', async () => {
    write(
      'products/milk.FM-DRY-0107.md',
      '# 鲜牛奶订购\n\nSKU：FM-DRY-0107（950ml）\n\n## 保存\n\n开封后请在 48 小时内饮用。\n',
    );
    write('products/yogurt.md', '# 酸奶\n\n开封后请在 24 小时内饮用，FM-DRY-0107 鲜牛奶另计。\n');
    write(
      'products/FM-BAK-0201 吐司.md',
      '# 吐司\n\nSKU：FM-BAK-0201\n\n## 保存\n\n开封后请在 3 天内食用完毕。\n',
    );
    const knowledge = await open();
    await knowledge.ingest([join(temporary.directory, 'knowledge')], { baseDirectory: temporary.directory });
    const one = await knowledge.search('FM-DRY-0107 开封后多久要喝完', { topK: 1 });
    expect(one.hits[0]?.text).toBe('开封后请在 48 小时内饮用。');
    const two = await knowledge.search('FM-DRY-0107 和 FM-BAK-0201 开封后各能放多久', { topK: 4 });
    const firstTwo = two.hits.slice(0, 2).map((hit) => hit.text);
    expect(firstTwo).toContain('开封后请在 48 小时内饮用。');
    expect(firstTwo).toContain('开封后请在 3 天内食用完毕。');
  });
});
