import { describe, expect, it } from 'vitest';
import type { Block } from '../../protocol/index.ts';
import { sourceEvidenceOf } from './source-evidence.ts';

const toolBlock = (blockId: string, result: unknown, overrides: Partial<Block> = {}): Block =>
  ({
    blockId,
    kind: 'tool',
    toolCallId: `call-${blockId}`,
    name: 'search_knowledge',
    title: '知识检索',
    status: 'done',
    argsText: '{}',
    result,
    ...overrides,
  }) as Block;

describe('sourceEvidenceOf', () => {
  it('maps each citation to the passage its first search returned, and skips what it cannot trust', () => {
    const hit = {
      text: '七天可退。',
      context: '七天可退。需保持完好。',
      section: '退货',
      citation: 'a.md#L3',
    };
    const evidence = sourceEvidenceOf([
      toolBlock('1', { hits: [hit, { text: 'x', section: 's' }, null, 'text'] }),
      toolBlock('2', { hits: [{ ...hit, context: '后来的一次' }] }),
      // An older result without a context: the clause stands in for it.
      toolBlock('3', { hits: [{ text: '旧的。', section: '旧', citation: 'b.md#L1' }] }),
      toolBlock('4', { hits: [{ ...hit, citation: 'c.md#L1' }] }, { status: 'failed' }),
      toolBlock('5', { hits: [{ ...hit, citation: 'd.md#L1' }] }, { name: 'query_order' }),
      toolBlock('6', { hits: 'not a list' }),
      toolBlock('7', undefined),
    ]);
    expect([...evidence.keys()]).toEqual(['a.md#L3', 'b.md#L1']);
    expect(evidence.get('a.md#L3')).toEqual({
      text: '七天可退。',
      context: '七天可退。需保持完好。',
      section: '退货',
    });
    expect(evidence.get('b.md#L1')?.context).toBe('旧的。');
  });

  it('maps each line of a passage to its own citation, marking that line', () => {
    const hit = {
      text: '换开时原发票红冲。',
      context: '抬头填错的可换开 1 次。\n换开时原发票红冲。',
      section: '换开',
      citation: 'i.md#L9',
      contextCitations: ['i.md#L8', 'i.md#L9'],
    };
    const evidence = sourceEvidenceOf([toolBlock('1', { hits: [hit] })]);
    expect(evidence.get('i.md#L9')?.text).toBe('换开时原发票红冲。');
    expect(evidence.get('i.md#L8')).toEqual({
      text: '抬头填错的可换开 1 次。',
      context: hit.context,
      section: '换开',
    });
    // Citations that do not line up with the passage's lines are not trusted.
    const skewed = sourceEvidenceOf([toolBlock('2', { hits: [{ ...hit, contextCitations: ['i.md#L8'] }] })]);
    expect([...skewed.keys()]).toEqual(['i.md#L9']);
  });
});
