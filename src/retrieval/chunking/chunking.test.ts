import { describe, expect, it } from 'vitest';
import { RetrievalError } from '../retrieval-error.ts';
import { isMarkdownFaq, parseJsonFaq, parseMarkdownFaq } from './faq-parser.ts';
import { decodeUtf8, hashContent, identifyChunks, parseDocument } from './load-document.ts';
import { chunkMarkdown } from './markdown-chunker.ts';
import { chunkPlainText } from './plain-text-chunker.ts';
import { splitClauses } from './split-clauses.ts';

const SEED_POLICY =
  'NovaTrail X2 退货政策：签收后 7 个自然日内可申请退货；商品需保持未使用状态、包装完整，并保留全部配件与购买凭证；因商品质量问题退货时，运费由 NovaShop 承担，退款将在收货后 3 个工作日内原路退回；因个人原因（尺码、喜好等）退货时，运费由买家承担；特价清仓商品与定制商品不支持无理由退货；运输途中损坏的商品可以申请换货。';

describe('splitClauses', () => {
  it('splits the seed six-clause policy at its semicolons and full stop', () => {
    expect(splitClauses(SEED_POLICY)).toEqual([
      'NovaTrail X2 退货政策：签收后 7 个自然日内可申请退货；',
      '商品需保持未使用状态、包装完整，并保留全部配件与购买凭证；',
      '因商品质量问题退货时，运费由 NovaShop 承担，退款将在收货后 3 个工作日内原路退回；',
      '因个人原因（尺码、喜好等）退货时，运费由买家承担；',
      '特价清仓商品与定制商品不支持无理由退货；',
      '运输途中损坏的商品可以申请换货。',
    ]);
  });

  it('keeps closing quotes with their clause and splits at ！ and ？', () => {
    expect(splitClauses('他说「这件可以退。」那么运费由谁承担？买家承担！')).toEqual([
      '他说「这件可以退。」',
      '那么运费由谁承担？买家承担！',
    ]);
  });

  it('joins a clause shorter than the minimum to its neighbour', () => {
    expect(splitClauses('注意：。退货需要保留凭证。')).toEqual(['注意：。退货需要保留凭证。']);
  });

  it('cuts an over-long clause at a comma, else hard, and loses nothing', () => {
    const long = `${'很长的条款内容'.repeat(10)}，${'后半部分说明'.repeat(10)}。`;
    const parts = splitClauses(long, 80);
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.every((part) => Array.from(part).length <= 80)).toBe(true);
    expect(parts.join('')).toBe(long);
  });

  it('does not split decimals or codes at dots', () => {
    expect(splitClauses('实付 3378.00 元，订单 NS-X2-BLK-M 已发货。')).toEqual([
      '实付 3378.00 元，订单 NS-X2-BLK-M 已发货。',
    ]);
  });
});

describe('chunkMarkdown', () => {
  const source = [
    '---',
    'code: POL-RET-001',
    '---',
    '# 退货政策',
    '',
    '本政策编号为 POL-RET-001。',
    '',
    '## 一、适用范围',
    '',
    '签收后 7 个自然日内可申请退货；商品需保持完好',
    '且配件齐全。',
    '',
    '### 质量问题',
    '',
    '- 运费由 **NovaShop** 承担',
    '- 退款 3 个工作日内原路退回',
    '',
    '## 二、尺码表',
    '',
    '| 尺码 | 脚长 |',
    '| --- | --- |',
    '| M | 26.5 |',
    '',
    '```',
    '代码块不进索引。',
    '```',
  ].join('\n');
  const document = chunkMarkdown(source, 'fallback');

  it('takes the title from the first heading and skips front matter and code', () => {
    expect(document.title).toBe('退货政策');
    expect(document.chunks.map((chunk) => chunk.text)).not.toContain('代码块不进索引。');
    expect(document.chunks.map((chunk) => chunk.text).join('')).not.toContain('code:');
  });

  it('splits paragraphs into clauses, joining wrapped lines, and keeps each heading path', () => {
    expect(document.chunks.map((chunk) => [chunk.headingPath, chunk.text, chunk.line])).toEqual([
      [['退货政策'], '本政策编号为 POL-RET-001。', 6],
      [['退货政策', '一、适用范围'], '签收后 7 个自然日内可申请退货；', 10],
      [['退货政策', '一、适用范围'], '商品需保持完好且配件齐全。', 10],
      [['退货政策', '一、适用范围', '质量问题'], '运费由 NovaShop 承担', 15],
      [['退货政策', '一、适用范围', '质量问题'], '退款 3 个工作日内原路退回', 16],
      [['退货政策', '二、尺码表'], '尺码: M，脚长: 26.5', 22],
    ]);
    expect(document.chunks.map((chunk) => chunk.clause)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('uses the fallback title, as the root of every path, when there is no # heading', () => {
    const untitled = chunkMarkdown('## 章节\n\n内容在这里出现。', '文件名');
    expect(untitled.title).toBe('文件名');
    expect(untitled.chunks[0]?.headingPath).toEqual(['文件名', '章节']);
  });
});

describe('FAQ parsing', () => {
  it('indexes a JSON FAQ answer under its questions as well as its text', () => {
    const document = parseJsonFaq(
      JSON.stringify([
        { id: 'faq-1', questions: ['鞋子能退吗？', '七天无理由吗'], answer: '签收后 7 天内可退。' },
      ]),
      'faq',
      'faq.json',
    );
    expect(document.kind).toBe('faq');
    expect(document.chunks[0]).toMatchObject({
      text: '签收后 7 天内可退。',
      indexText: '鞋子能退吗？\n七天无理由吗\n签收后 7 天内可退。',
      headingPath: ['faq', '鞋子能退吗？'],
    });
  });

  it('refuses a JSON FAQ of the wrong shape, naming where', () => {
    expect(() => parseJsonFaq('[{"question": "x"}]', 'faq', 'faq.json')).toThrow(/faq\.json.*0\.questions/);
    expect(() => parseJsonFaq('{not json', 'faq', 'faq.json')).toThrow(RetrievalError);
  });

  it('parses Markdown Q/A blocks, several questions sharing one answer', () => {
    const source =
      '# 配送常见问题\n\n## Q: 多久发货？\n## Q: 什么时候寄出？\nA: 付款后 1 至 3 个工作日发货；\n偏远地区会延长。\n\n## Q: 能指定快递吗？\nA: 暂不支持指定快递。\n';
    expect(isMarkdownFaq(source)).toBe(true);
    const document = parseMarkdownFaq(source, 'x');
    expect(document.title).toBe('配送常见问题');
    expect(
      document.chunks.map((chunk) => [chunk.text, chunk.indexText.split('\n').length, chunk.line]),
    ).toEqual([
      ['付款后 1 至 3 个工作日发货；偏远地区会延长。', 3, 5],
      ['暂不支持指定快递。', 2, 9],
    ]);
  });
});

describe('loading documents', () => {
  it('refuses bytes that are not UTF-8, naming the file', () => {
    const gbk = new Uint8Array([0xcd, 0xcb, 0xbb, 0xf5]);
    expect(() => decodeUtf8(gbk, 'policies/old.md')).toThrow(/policies\/old\.md: not UTF-8/);
  });

  it('drops a UTF-8 BOM', () => {
    expect(decodeUtf8(new Uint8Array([0xef, 0xbb, 0xbf, 0x41]), 'a.txt')).toBe('A');
  });

  it('chooses a parser by extension and refuses unknown types', () => {
    expect(parseDocument('第一段。\n\n第二段内容。', 'notes.txt').kind).toBe('text');
    expect(parseDocument('## Q: 问题？\nA: 回答。', 'faq.md').kind).toBe('faq');
    expect(() => parseDocument('x', 'data.csv')).toThrow(/unsupported file type/);
  });

  it('gives stable ids that change with the text, and a suffix to an exact repeat', () => {
    const chunks = chunkPlainText('同一句话。\n\n同一句话。\n\n另一句话。', 'notes').chunks;
    const first = identifyChunks('notes.txt', chunks);
    const again = identifyChunks('notes.txt', chunks);
    expect(again.map((chunk) => chunk.chunkId)).toEqual(first.map((chunk) => chunk.chunkId));
    expect(new Set(first.map((chunk) => chunk.chunkId)).size).toBe(3);
    expect(first[1]?.chunkId).toBe(`${first[0]?.chunkId}-2`);
    expect(identifyChunks('other.txt', chunks)[0]?.chunkId).not.toBe(first[0]?.chunkId);
  });
});

describe('parent passages', () => {
  it('numbers a paragraph, a list and a table as one passage each, and FAQ entries and text paragraphs alike', () => {
    const markdown = chunkMarkdown(
      [
        '# 政策',
        '第一句说的是退货。第二句说的是换货。',
        '',
        '## 列表',
        '- 条目一。',
        '- 条目二。',
        '',
        '| 尺码 | 脚长 |',
        '| --- | --- |',
        '| M | 26.5 |',
        '| L | 27.5 |',
        '',
        '## 另一节',
        '- 新的列表。',
        '另一段。',
      ].join('\n'),
      'policy',
    );
    expect(markdown.chunks.map((chunk) => [chunk.text, chunk.parent])).toEqual([
      ['第一句说的是退货。', 1],
      ['第二句说的是换货。', 1],
      ['条目一。', 2],
      ['条目二。', 2],
      ['尺码: M，脚长: 26.5', 3],
      ['尺码: L，脚长: 27.5', 3],
      ['新的列表。', 4],
      ['另一段。', 5],
    ]);
    const faq = parseJsonFaq(
      JSON.stringify([
        { questions: ['a'], answer: '答一。' },
        { questions: ['b'], answer: '答二。' },
      ]),
      'faq',
      'faq.json',
    );
    expect(faq.chunks.map((chunk) => chunk.parent)).toEqual([1, 2]);
    const text = chunkPlainText('第一句说的是退货。第二句说的是换货。\n\n另一段说的是发票。', 'notes');
    expect(text.chunks.map((chunk) => chunk.parent)).toEqual([1, 1, 2]);
  });
});

describe('a paragraph that introduces a list or a table', () => {
  it('shares its passage with the list or table after it, in the same section only', () => {
    const markdown = chunkMarkdown(
      [
        '# 退货',
        '先说一件事。',
        '',
        '以下商品一经签收，不支持七天无理由退货。',
        '',
        '- 生鲜商品；',
        '- 定制商品。',
        '',
        '- 另一个列表。',
        '到账时间如下：',
        '| 方式 | 时间 |',
        '| --- | --- |',
        '| 余额 | 即时 |',
        '## 下一节',
        '- 不属于上一节的段落。',
      ].join('\n'),
      'returns',
    );
    expect(markdown.chunks.map((chunk) => [chunk.text, chunk.parent])).toEqual([
      ['先说一件事。', 1],
      ['以下商品一经签收，不支持七天无理由退货。', 2],
      ['生鲜商品；', 2],
      ['定制商品。', 2],
      ['另一个列表。', 3],
      ['到账时间如下：', 4],
      ['方式: 余额，时间: 即时', 4],
      ['不属于上一节的段落。', 5],
    ]);
  });
});

describe('JSON FAQ citations and ids', () => {
  it('cites each entry at the line its answer is written on', () => {
    const source =
      '[\n  {"questions": ["a"], "answer": "答一。"},\n  {\n    "questions": ["b"],\n    "answer": "答二。"\n  }\n]';
    expect(parseJsonFaq(source, 'faq', 'faq.json').chunks.map((chunk) => chunk.line)).toEqual([2, 5]);
  });

  it('gives an FAQ answer a new id when it gains a question, and a policy clause the id it had', () => {
    const one = parseJsonFaq(
      JSON.stringify([{ questions: ['能退吗'], answer: '7 天内可退。' }]),
      'faq',
      'f.json',
    );
    const two = parseJsonFaq(
      JSON.stringify([{ questions: ['能退吗', '七天无理由吗'], answer: '7 天内可退。' }]),
      'faq',
      'f.json',
    );
    const [first] = identifyChunks('f.json', one.chunks);
    const [second] = identifyChunks('f.json', two.chunks);
    expect(first?.chunkId).not.toBe(second?.chunkId);
    const policy = chunkMarkdown('# 政策\n\n签收后 7 天内可退。', 'p').chunks;
    // The hash of a clause indexed as written is the one earlier versions gave it.
    expect(identifyChunks('p.md', policy)[0]?.chunkId).toBe(
      hashContent('p.md\u0000政策\u0000签收后 7 天内可退。').slice(0, 20),
    );
  });
});
