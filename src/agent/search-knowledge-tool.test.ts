import { describe, expect, it } from 'vitest';
import type { ToolContext } from '../runtime/index.ts';
import { type KnowledgeSearch, searchKnowledgeTool } from './search-knowledge-tool.ts';

const context: ToolContext = {
  runId: 'run_1',
  conversationId: 'conv_1',
  userId: 'usr_1',
  toolCallId: 'call_1',
  signal: new AbortController().signal,
};

describe('searchKnowledgeTool', () => {
  it('maps hits to evidence: text, context, section, citation, a citation per context line', async () => {
    const calls: unknown[] = [];
    const knowledge: KnowledgeSearch = {
      async search(query, options) {
        calls.push({ query, topK: options.topK, hasSignal: options.signal !== undefined });
        return {
          lowEvidence: false,
          hits: [
            {
              text: '整机保修两年。',
              context: '整机保修两年。\n压缩机保修十年。',
              contextLines: [12, 13],
              title: '保修政策',
              headingPath: ['保修政策', '一、保修期'],
              source: { citation: 'knowledge/warranty.md#L12', path: 'knowledge/warranty.md' },
            },
            { text: '无标题', title: 'faq', headingPath: [], source: { citation: 'knowledge/faq.json#L1' } },
          ],
        };
      },
    };
    const tool = searchKnowledgeTool(knowledge);
    expect(tool).toMatchObject({ name: 'search_knowledge', title: '知识检索', effect: 'read' });
    expect(await tool.execute({ query: '保修', topK: 2 }, context)).toEqual({
      query: '保修',
      lowEvidence: false,
      hits: [
        {
          text: '整机保修两年。',
          context: '整机保修两年。\n压缩机保修十年。',
          section: '保修政策 › 一、保修期',
          citation: 'knowledge/warranty.md#L12',
          contextCitations: ['knowledge/warranty.md#L12', 'knowledge/warranty.md#L13'],
        },
        {
          text: '无标题',
          context: '无标题',
          section: 'faq',
          citation: 'knowledge/faq.json#L1',
          contextCitations: ['knowledge/faq.json#L1'],
        },
      ],
    });
    await tool.execute({ query: '保修' }, context);
    expect(calls).toEqual([
      { query: '保修', topK: 2, hasSignal: true },
      { query: '保修', topK: 4, hasSignal: true },
    ]);
  });

  it('validates its arguments: a query, topK 1–8', () => {
    const { parameters } = searchKnowledgeTool({ search: async () => ({ hits: [], lowEvidence: true }) });
    expect(parameters.safeParse({ query: '   ' }).success).toBe(false);
    expect(parameters.safeParse({ query: '保修', topK: 9 }).success).toBe(false);
    expect(parameters.parse({ query: ' 保修 ', topK: 8 }).query).toBe('保修');
  });

  it('speaks the agent’s language and names no shop; the knowledge’s description replaces the first sentence', () => {
    const search: KnowledgeSearch = { search: async () => ({ hits: [], lowEvidence: true }) };
    const chinese = searchKnowledgeTool(search);
    const english = searchKnowledgeTool(search, { language: 'en' });
    expect(english.title).toBe('Knowledge search');
    expect(english.description).toMatch(
      /^Search the documents of the knowledge base .*lowEvidence true means/,
    );
    expect(chinese.description).toMatch(/^检索知识库中的文档.*lowEvidence 为 true/);
    for (const tool of [chinese, english])
      expect(JSON.stringify(tool)).not.toMatch(/NovaShop|Nova|买家|商品/);
    const described = searchKnowledgeTool(search, { description: '检索家电维修手册和保修政策' });
    expect(described.description).toMatch(/^检索家电维修手册和保修政策。返回命中的条款/);
    expect(described.description).not.toContain('检索知识库中的文档');
    expect(
      searchKnowledgeTool(search, { language: 'en', description: 'Search the repair manuals.' }).description,
    ).toMatch(/^Search the repair manuals\. Returns the matching clauses/);
  });
});
