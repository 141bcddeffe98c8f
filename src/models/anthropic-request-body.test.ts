import { describe, expect, it } from 'vitest';
import { buildAnthropicRequestBody } from './anthropic-request-body.ts';
import type { ChatMessage, ChatRequest, ToolDefinition } from './chat-model.ts';

const QUERY_ORDER: ToolDefinition = {
  name: 'query_order',
  description: 'Look up an order by its number.',
  parameters: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
};

const SIGNATURE = 'WaUjzkypQ2mUEVM36O2TxuC06KN8xyfbJwyem2dw3URve/op91XWHOEBLLqIOMfFG/UvLEczmEsUjavL....';

function body(request: ChatRequest, options: Partial<Parameters<typeof buildAnthropicRequestBody>[1]> = {}) {
  return buildAnthropicRequestBody(request, {
    model: 'claude-sonnet-4-5',
    maxOutputTokens: 4096,
    ...options,
  });
}

describe('buildAnthropicRequestBody', () => {
  it('joins the system messages into `system` and sends the rest as content blocks, streamed', () => {
    const result = body({
      messages: [
        { role: 'system', content: 'You are NovaShop support.' },
        { role: 'user', content: '我的订单发货了吗？' },
        { role: 'system', content: 'Answer in Chinese.' },
      ],
      tools: [QUERY_ORDER],
    });
    expect(result).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 4096,
      system: 'You are NovaShop support.\n\nAnswer in Chinese.',
      messages: [{ role: 'user', content: [{ type: 'text', text: '我的订单发货了吗？' }] }],
      tools: [
        {
          name: 'query_order',
          description: 'Look up an order by its number.',
          input_schema: QUERY_ORDER.parameters,
        },
      ],
      stream: true,
    });
  });

  it('puts the thinking budget on top of the answer room and leaves temperature out while thinking', () => {
    const request: ChatRequest = { messages: [{ role: 'user', content: 'Hi' }], temperature: 0.2 };
    const thinking = body(request, { thinking: { type: 'enabled', budgetTokens: 2048 } });
    expect(thinking.max_tokens).toBe(2048 + 4096);
    expect(thinking.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(thinking).not.toHaveProperty('temperature');

    const answerRoom = body(
      { ...request, maxOutputTokens: 500 },
      { thinking: { type: 'enabled', budgetTokens: 1024 } },
    );
    expect(answerRoom.max_tokens).toBe(1524);

    const adaptive = body(request, { thinking: { type: 'adaptive', display: 'omitted' }, effort: 'medium' });
    expect(adaptive).toMatchObject({
      max_tokens: 4096,
      thinking: { type: 'adaptive', display: 'omitted' },
      output_config: { effort: 'medium' },
    });
    expect(adaptive).not.toHaveProperty('temperature');

    const disabled = body(request, { thinking: { type: 'disabled' } });
    expect(disabled).toMatchObject({ thinking: { type: 'disabled' }, temperature: 0.2, max_tokens: 4096 });
    expect(body(request)).not.toHaveProperty('thinking');
    expect(body(request).temperature).toBe(0.2);
  });

  it('sends a tool loop back as Claude made it: thinking unchanged first, then text, then the calls', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'Weather and time in SF?' },
      {
        role: 'assistant',
        content: 'Checking both.',
        reasoning: 'I need two tools.',
        reasoningParts: [
          { type: 'redacted', data: 'EmwKAhgBEgy3va3pzix/Laf' },
          { type: 'text', text: 'I need two tools.', signature: SIGNATURE },
        ],
        toolCalls: [
          { id: 'toolu_01A', name: 'get_weather', arguments: '{"location":"San Francisco, CA"}' },
          { id: 'toolu_01B', name: 'get_time', arguments: '' },
        ],
      },
      { role: 'tool', toolCallId: 'toolu_01A', content: '15°C, foggy' },
      { role: 'tool', toolCallId: 'toolu_01B', content: '09:30' },
      { role: 'user', content: 'Thanks, and tomorrow?' },
    ];
    const result = body({ messages, tools: [QUERY_ORDER] });
    expect(result.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather and time in SF?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/Laf' },
          { type: 'thinking', thinking: 'I need two tools.', signature: SIGNATURE },
          { type: 'text', text: 'Checking both.' },
          {
            type: 'tool_use',
            id: 'toolu_01A',
            name: 'get_weather',
            input: { location: 'San Francisco, CA' },
          },
          { type: 'tool_use', id: 'toolu_01B', name: 'get_time', input: {} },
        ],
      },
      {
        // One user message: both results first, the next line after them.
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_01A', content: '15°C, foggy' },
          { type: 'tool_result', tool_use_id: 'toolu_01B', content: '09:30' },
          { type: 'text', text: 'Thanks, and tomorrow?' },
        ],
      },
    ]);
  });

  it('leaves unsigned reasoning out for Claude and sends it, empty-signed, where the provider wants it', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: '查一下 NS-1042' },
      {
        role: 'assistant',
        content: '',
        reasoning: '先查订单。',
        toolCalls: [{ id: 'call_1', name: 'query_order', arguments: '{"orderId":"NS-1042"}' }],
      },
      { role: 'tool', toolCallId: 'call_1', content: '{"status":"paid"}' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'call_2', name: 'query_order', arguments: '{"orderId":"NS-1043"}' }],
      },
      { role: 'tool', toolCallId: 'call_2', content: '{"status":"shipped"}' },
    ];
    const claude = body({ messages, tools: [QUERY_ORDER] }).messages as { content: { type: string }[] }[];
    expect(claude[1]?.content.map((block) => block.type)).toEqual(['tool_use']);
    expect(claude[3]?.content.map((block) => block.type)).toEqual(['tool_use']);

    const deepSeek = body({ messages, tools: [QUERY_ORDER] }, { sendUnsignedReasoning: true }).messages as {
      content: unknown[];
    }[];
    expect(deepSeek[1]?.content[0]).toEqual({ type: 'thinking', thinking: '先查订单。', signature: '' });
    // A tool-call turn that streamed no reasoning still gets a (empty) thinking block.
    expect(deepSeek[3]?.content[0]).toEqual({ type: 'thinking', thinking: '', signature: '' });

    const thinkingOff = body(
      { messages, tools: [QUERY_ORDER] },
      { sendUnsignedReasoning: true, thinking: { type: 'disabled' } },
    ).messages as { content: { type: string }[] }[];
    expect(thinkingOff[3]?.content.map((block) => block.type)).toEqual(['tool_use']);
  });

  it('keeps an omitted-display thinking block (empty text, signed) and drops a trailing unsigned piece', () => {
    const result = body({
      messages: [
        { role: 'user', content: 'Hi' },
        {
          role: 'assistant',
          content: 'Hello!',
          reasoningParts: [
            { type: 'text', text: '', signature: 'EosnCkYICxIMMb3LzNrMu' },
            { type: 'text', text: 'cut off before its signature' },
          ],
        },
        { role: 'user', content: 'Bye' },
      ],
    });
    expect((result.messages as { content: unknown[] }[])[1]?.content).toEqual([
      { type: 'thinking', thinking: '', signature: 'EosnCkYICxIMMb3LzNrMu' },
      { type: 'text', text: 'Hello!' },
    ]);
  });

  it('declares the transcript’s tools with tool_choice none on a turn offered no tools', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'Cancel NS-1042' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'toolu_1', name: 'query_order', arguments: '{"orderId":"NS-1042"}' }],
      },
      { role: 'tool', toolCallId: 'toolu_1', content: '{"status":"paid"}' },
      { role: 'user', content: '请根据目前已有的工具结果，总结当前的执行情况并回答用户。' },
    ];
    const summary = body({ messages, tools: [] });
    expect(summary.tools).toEqual([{ name: 'query_order', input_schema: { type: 'object' } }]);
    expect(summary.tool_choice).toEqual({ type: 'none' });
    const plain = body({ messages: [{ role: 'user', content: 'Hi' }], tools: [] });
    expect(plain).not.toHaveProperty('tools');
    expect(plain).not.toHaveProperty('tool_choice');
  });

  it('sends arguments that never parsed as an empty input and drops assistant turns with nothing in them', () => {
    const result = body({
      messages: [
        { role: 'user', content: 'One' },
        { role: 'assistant', content: '   ' },
        { role: 'user', content: 'Two' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [
            { id: 'toolu_bad', name: 'query_order', arguments: '{"orderId":"NS-1' },
            { id: 'toolu_list', name: 'query_order', arguments: '["NS-1"]' },
          ],
        },
      ],
      tools: [QUERY_ORDER],
    });
    expect(result.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'One' },
          { type: 'text', text: 'Two' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'toolu_bad', name: 'query_order', input: {} },
          { type: 'tool_use', id: 'toolu_list', name: 'query_order', input: {} },
        ],
      },
    ]);
  });

  it('lets extraBody add fields but never replace the adapter’s own', () => {
    const result = body(
      { messages: [{ role: 'user', content: 'Hi' }] },
      { extraBody: { stream: false, messages: [], metadata: { user_id: 'u-1' }, top_p: 0.95 } },
    );
    expect(result).toMatchObject({ stream: true, metadata: { user_id: 'u-1' }, top_p: 0.95 });
    expect(result.messages).toHaveLength(1);
  });
});
