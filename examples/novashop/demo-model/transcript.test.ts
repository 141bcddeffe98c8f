import { describe, expect, it } from 'vitest';
import { readTranscript } from './transcript.ts';

describe('readTranscript', () => {
  it("reads this run only: calls after the shopper's last message, with their results", () => {
    const transcript = readTranscript({
      messages: [
        { role: 'user', content: '旧问题' },
        { role: 'assistant', content: '', toolCalls: [{ id: 'old', name: 'query_order', arguments: '{}' }] },
        { role: 'tool', toolCallId: 'old', content: '{"orders":[]}' },
        { role: 'assistant', content: '旧回答' },
        { role: 'user', content: '新问题' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [{ id: 'a', name: 'load_skill', arguments: '{"name":"order-change"}' }],
        },
        { role: 'tool', toolCallId: 'a', content: '{"name":"order-change"}' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [{ id: 'b', name: 'query_order', arguments: 'not json' }],
        },
      ],
      tools: [{ name: 'query_order', description: '', parameters: {} }],
    });
    expect(transcript.question).toBe('新问题');
    expect(transcript.calls).toEqual([
      {
        id: 'a',
        name: 'load_skill',
        args: { name: 'order-change' },
        outcome: { kind: 'done', value: { name: 'order-change' } },
      },
      { id: 'b', name: 'query_order', args: {}, outcome: { kind: 'missing' } },
    ]);
    expect([...transcript.visibleTools]).toEqual(['query_order']);
  });

  it("skips the runtime's summary instruction to find the shopper's question", () => {
    const transcript = readTranscript({
      messages: [
        { role: 'user', content: '我的订单到哪了' },
        { role: 'assistant', content: '', toolCalls: [{ id: 'a', name: 'query_order', arguments: '{}' }] },
        { role: 'tool', toolCallId: 'a', content: '{"orders":[]}' },
        { role: 'user', content: '请根据目前已有的工具结果，总结当前的执行情况并回答用户。' },
      ],
      tools: [],
    });
    expect(transcript.question).toBe('我的订单到哪了');
    expect(transcript.calls.map((call) => call.id)).toEqual(['a']);
  });
});
