import { describe, expect, it } from 'vitest';
import {
  citationFromHref,
  citationHref,
  citationsOf,
  isCitation,
  linkCitations,
  parseCitation,
} from './link-citations.ts';

const ORDER = 'knowledge/policies/order-changes.md#L21';
const RETURN = 'knowledge/policies/return-policy.md#L66';
const ORDER_HREF = '#source=knowledge%2Fpolicies%2Forder-changes.md%23L21';

describe('linkCitations', () => {
  it('links the citation of a （来源：…） and keeps the brackets and the lead-in', () => {
    const text = `- 已发货订单不能直接取消，可以申请物流拦截。（来源：${ORDER}）`;
    expect(linkCitations(text)).toBe(
      `- 已发货订单不能直接取消，可以申请物流拦截。（来源：[order-changes.md\\#L21](${ORDER_HREF})）`,
    );
  });

  it('uses the label it is given', () => {
    const label = (citation: string) => {
      const { fileName, line } = parseCitation(citation);
      return `${fileName} 第 ${line} 行`;
    };
    expect(linkCitations(`（来源：${ORDER}）`, { label })).toBe(
      `（来源：[order-changes.md 第 21 行](${ORDER_HREF})）`,
    );
  });

  it('accepts ASCII brackets, a space after the colon and source/Source', () => {
    for (const lead of ['(来源: ', '(source: ', '(Source:', '（source：']) {
      const close = lead.startsWith('（') ? '）' : ')';
      expect(linkCitations(`见${lead}${ORDER}${close}`)).toContain(`](${ORDER_HREF})${close}`);
    }
  });

  it('links every citation of a list and keeps its separators', () => {
    const linked = linkCitations(`（来源：${ORDER}；${RETURN}、knowledge/faq.json）`, { label: () => 'x' });
    expect(linked).toBe(
      `（来源：[x](${ORDER_HREF})；[x](${citationHref(RETURN)})、[x](${citationHref('knowledge/faq.json')})）`,
    );
  });

  it('leaves text that is not a path alone', () => {
    for (const text of [
      '（来源：订单变更政策）',
      '（来源：3.5）',
      '(see: a.md)',
      '（来源：）',
      '来源：a.md',
    ]) {
      expect(linkCitations(text)).toBe(text);
    }
  });

  it('does not link an unfinished citation of streaming text', () => {
    for (const text of [
      '（来源：knowledge/policies/order-ch',
      '（来源：knowledge/policies/order-changes.md#L2',
      '（来',
    ]) {
      expect(linkCitations(text)).toBe(text);
    }
  });

  it('does not touch fenced code, streaming fences or inline code', () => {
    const fenced = `\`\`\`text\n（来源：${ORDER}）\n\`\`\`\n`;
    expect(linkCitations(fenced)).toBe(fenced);
    const streaming = `~~~\n（来源：${ORDER}）`;
    expect(linkCitations(streaming)).toBe(streaming);
    const inline = `写作 \`（来源：${ORDER}）\` 即可`;
    expect(linkCitations(inline)).toBe(inline);
    const after = `${fenced}正文（来源：${ORDER}）`;
    expect(linkCitations(after)).toBe(`${fenced}正文（来源：[order-changes.md\\#L21](${ORDER_HREF})）`);
  });

  it('escapes Markdown in a label', () => {
    expect(linkCitations('（来源：a.md）', { label: () => '[*x*](y)' })).toBe(
      `（来源：[\\[\\*x\\*\\]\\(y\\)](${citationHref('a.md')})）`,
    );
  });
});

describe('citation hrefs', () => {
  it('round-trips a citation through its href, bare or resolved', () => {
    const citations = [ORDER, 'knowledge/faq.json#L3-L5', '知识库/退货 规则.md#L1', 'a(b).md'];
    for (const citation of citations) {
      const href = citationHref(citation);
      expect(href).not.toMatch(/[()\s]/);
      expect(citationFromHref(href)).toBe(citation);
      expect(citationFromHref(`https://shop.example/chat/c1${href}`)).toBe(citation);
    }
  });

  it('reads nothing from links that are not citations', () => {
    for (const href of [
      null,
      undefined,
      '',
      '#top',
      'https://example.com/',
      '#source=',
      '#source=%E0%A4%A',
      '/a#top#source=b',
      '#source=b#c',
    ]) {
      expect(citationFromHref(href)).toBeNull();
    }
  });
});

describe('citationsOf', () => {
  it('lists the citations in order, each once, outside code', () => {
    const text = [
      `- 规则一（来源：${RETURN}）`,
      `- 规则二（来源：${ORDER}；${RETURN}）`,
      '```',
      '（来源：knowledge/in-code.md#L1）',
      '```',
      '（来源：不是路径）',
    ].join('\n');
    expect(citationsOf(text)).toEqual([RETURN, ORDER]);
  });

  it('is empty for text without citations', () => {
    expect(citationsOf('')).toEqual([]);
    expect(citationsOf('订单 88235 已取消。')).toEqual([]);
  });
});

describe('parseCitation', () => {
  it('splits path, file name and lines', () => {
    expect(parseCitation(ORDER)).toEqual({
      path: 'knowledge/policies/order-changes.md',
      fileName: 'order-changes.md',
      line: 21,
      lineEnd: null,
    });
    expect(parseCitation('faq.json#L3-L5')).toEqual({
      path: 'faq.json',
      fileName: 'faq.json',
      line: 3,
      lineEnd: 5,
    });
    expect(parseCitation('a/b.md')).toMatchObject({ fileName: 'b.md', line: null });
  });

  it('recognises paths with an extension and an optional line anchor', () => {
    expect(isCitation(ORDER)).toBe(true);
    expect(isCitation('faq-delivery.md')).toBe(true);
    expect(isCitation('知识库/规则.md#L2')).toBe(true);
    expect(isCitation('order-changes')).toBe(false);
    expect(isCitation('a.md#top')).toBe(false);
    expect(isCitation('[a.md](x)')).toBe(false);
  });
});
