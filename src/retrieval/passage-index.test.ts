import { describe, expect, it } from 'vitest';
import { CONTEXT_ELLIPSIS, PassageIndex } from './passage-index.ts';

type Chunk = { docId: string; parent: number | null; line: number; text: string };

/** A document of one paragraph of five clauses (line 3), then a table of two rows (lines 5, 6). */
const chunks: Chunk[] = [
  { docId: 'a.md', parent: 1, line: 3, text: '类型代码 02 为电子普通发票。' },
  { docId: 'a.md', parent: 1, line: 3, text: '开具后发送到下单邮箱。' },
  { docId: 'a.md', parent: 1, line: 3, text: '也可在订单详情页下载。' },
  { docId: 'a.md', parent: 1, line: 3, text: '纸质发票随包裹寄出。' },
  { docId: 'a.md', parent: 1, line: 3, text: '专票需审核资质。' },
  { docId: 'a.md', parent: 2, line: 5, text: '尺码: M，脚长: 26.5' },
  { docId: 'a.md', parent: 2, line: 6, text: '尺码: L，脚长: 27.5' },
  // Same parent number in another document: another passage.
  { docId: 'b.md', parent: 2, line: 1, text: 'version 2 is out.' },
  // An FAQ answer with a line break of its own.
  { docId: 'f.json', parent: 1, line: 7, text: '第一步：登录。\n第二步：申请。' },
  // Stored before passages were recorded: each stands alone.
  { docId: 'c.md', parent: null, line: 1, text: '旧的一条。' },
  { docId: 'c.md', parent: null, line: 2, text: '旧的另一条。' },
];

describe('PassageIndex', () => {
  const passages = new PassageIndex(chunks);

  it('groups neighbours of one document and parent, and leaves chunks without a parent alone', () => {
    expect([0, 1, 2, 3, 4].map((position) => passages.passageOf(position))).toEqual([0, 0, 0, 0, 0]);
    expect(passages.passageOf(6)).toBe(5);
    expect(passages.passageOf(7)).toBe(7);
    expect(passages.passageOf(9)).toBe(9);
    expect(passages.passageOf(10)).toBe(10);
  });

  it('gives the whole passage when it fits, joined as written, the matched clause highlighted', () => {
    const context = passages.context([0], 1_000);
    expect(context.text).toBe(
      chunks
        .slice(0, 5)
        .map((chunk) => chunk.text)
        .join(''),
    );
    expect(context.highlights).toEqual([{ start: 0, end: chunks[0]?.text.length }]);
    expect(context.lines).toEqual([3]);
    // Table rows keep their line breaks, and each line of the context its source line.
    expect(passages.context([6], 1_000)).toMatchObject({
      text: '尺码: M，脚长: 26.5\n尺码: L，脚长: 27.5',
      lines: [5, 6],
    });
  });

  it('under the cap keeps the match and grows to the next clause before the previous one', () => {
    const context = passages.context([1], 25);
    // 开具后… (11) + 也可在… (11) fit in 25 with joiners; the clause before does not.
    expect(context.text).toBe(
      `${CONTEXT_ELLIPSIS}开具后发送到下单邮箱。也可在订单详情页下载。${CONTEXT_ELLIPSIS}`,
    );
    expect(context.text.slice(context.highlights[0]?.start, context.highlights[0]?.end)).toBe(
      '开具后发送到下单邮箱。',
    );
  });

  it('fills the clauses between two matches first, and marks a gap it cannot fill with …', () => {
    const between = passages.context([0, 2], 45);
    expect(
      between.text.startsWith('类型代码 02 为电子普通发票。开具后发送到下单邮箱。也可在订单详情页下载。'),
    ).toBe(true);
    expect(between.highlights).toHaveLength(2);
    const gap = passages.context([0, 4], 26);
    expect(gap.text).toBe(`类型代码 02 为电子普通发票。${CONTEXT_ELLIPSIS}专票需审核资质。`);
    for (const [index, position] of [0, 4].entries()) {
      const span = gap.highlights[index];
      expect(gap.text.slice(span?.start, span?.end)).toBe(chunks[position]?.text);
    }
  });

  it('keeps the best match’s next clause before a weaker match further away', () => {
    // The question names the type code; the answer (sent to the e-mail) is the next sentence. A
    // weaker match at the passage's end would take its place under the cap.
    const context = passages.context([0, 4], 29);
    expect(context.text).toBe(`类型代码 02 为电子普通发票。开具后发送到下单邮箱。${CONTEXT_ELLIPSIS}`);
    expect(context.highlights).toEqual([{ start: 0, end: chunks[0]?.text.length }]);
  });

  it('gives a clause with a line break of its own one source line per line of the context', () => {
    const context = passages.context([8], 1_000);
    expect(context.lines).toHaveLength(context.text.split('\n').length);
    expect(context.lines).toEqual([7, 7]);
  });

  it('always keeps the best match, even when it alone is over the cap', () => {
    const context = passages.context([3, 0], 5);
    expect(context.text).toBe(`${CONTEXT_ELLIPSIS}纸质发票随包裹寄出。${CONTEXT_ELLIPSIS}`);
    expect(context.highlights).toHaveLength(1);
  });
});
