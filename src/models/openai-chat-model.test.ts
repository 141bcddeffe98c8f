import { describe, expect, it } from 'vitest';
import type { ChatMessage, ChatRequest } from './chat-model.ts';
import { OpenAiChatModel, type OpenAiChatModelOptions } from './openai-chat-model.ts';
import {
  chunkFrame,
  DONE_FRAME,
  splitInsideCharacter,
  sse,
  usageFrame,
} from './test-support/fake-chat-completions-server.ts';
import {
  API_KEY,
  argumentsOf,
  collect,
  fakeServerPerTest,
  fragments,
  HELLO,
  modelFor,
  ROLE_FRAME,
} from './test-support/openai-test-kit.ts';
import { turnProblems } from './test-support/turn-problems.ts';

const start = fakeServerPerTest();

describe('OpenAiChatModel streaming', () => {
  it('streams plain text and finishes with stop', async () => {
    const running = await start(
      sse([
        ROLE_FRAME,
        chunkFrame({ content: 'Hel' }),
        chunkFrame({ content: 'lo, ' }),
        chunkFrame({ content: '世界' }),
        chunkFrame({}, 'stop'),
        DONE_FRAME,
      ]),
    );
    const model = modelFor(running);
    expect(model.name).toBe('openai:fake-model');
    const parts = await collect(model.stream(HELLO));
    expect(parts).toEqual([
      { type: 'text-delta', text: 'Hel' },
      { type: 'text-delta', text: 'lo, ' },
      { type: 'text-delta', text: '世界' },
      { type: 'finish', reason: 'stop' },
    ]);
    expect(running.requests).toHaveLength(1);
  });

  it('streams reasoning_content (DeepSeek, Qwen) before the content', async () => {
    const running = await start(
      sse([
        ROLE_FRAME,
        chunkFrame({ content: null, reasoning_content: '用户问' }),
        chunkFrame({ content: null, reasoning_content: '订单状态。' }),
        chunkFrame({ content: '您的订单', reasoning_content: null }),
        chunkFrame({ content: '已发货。' }),
        chunkFrame({}, 'stop'),
        DONE_FRAME,
      ]),
    );
    const parts = await collect(modelFor(running).stream(HELLO));
    expect(parts).toEqual([
      { type: 'reasoning-delta', text: '用户问' },
      { type: 'reasoning-delta', text: '订单状态。' },
      { type: 'text-delta', text: '您的订单' },
      { type: 'text-delta', text: '已发货。' },
      { type: 'finish', reason: 'stop' },
    ]);
  });

  it('reads `reasoning` (OpenRouter, vLLM) and does not double a delta that carries both fields', async () => {
    const running = await start(
      sse([
        chunkFrame({ role: 'assistant', content: '', reasoning: 'Thinking' }),
        chunkFrame({ reasoning: ' hard', reasoning_content: ' hard' }),
        chunkFrame({ content: 'Done' }, 'stop'),
        DONE_FRAME,
      ]),
    );
    const parts = await collect(modelFor(running).stream(HELLO));
    expect(parts).toEqual([
      { type: 'reasoning-delta', text: 'Thinking' },
      { type: 'reasoning-delta', text: ' hard' },
      { type: 'text-delta', text: 'Done' },
      { type: 'finish', reason: 'stop' },
    ]);
  });

  it('joins one tool call whose arguments arrive 1–3 characters at a time, cut inside UTF-8 characters', async () => {
    const argumentsText = '{"orderId":"NS-1042","reason":"尺码不合适，不想要了"}';
    const pieces = fragments(argumentsText);
    expect(pieces.length).toBeGreaterThan(20);
    const writes = [
      ROLE_FRAME,
      chunkFrame({
        tool_calls: [
          { index: 0, id: 'call_9Qx', type: 'function', function: { name: 'cancel_order', arguments: '' } },
        ],
      }),
      // Each frame goes out as raw bytes in two writes, split inside its first multi-byte character.
      ...pieces.flatMap((piece) =>
        splitInsideCharacter(chunkFrame({ tool_calls: [{ index: 0, function: { arguments: piece } }] })),
      ),
      chunkFrame({}, 'tool_calls'),
      DONE_FRAME,
    ];
    expect(writes.length).toBeGreaterThan(pieces.length + 4);
    const running = await start(sse(writes, { delayMs: 1 }));
    const parts = await collect(modelFor(running).stream(HELLO));

    expect(turnProblems(parts)).toEqual([]);
    expect(parts[0]).toEqual({ type: 'tool-call-start', index: 0, id: 'call_9Qx', name: 'cancel_order' });
    expect(parts.filter((part) => part.type === 'tool-call-delta')).toHaveLength(pieces.length);
    expect(argumentsOf(parts, 0)).toBe(argumentsText);
    expect(parts.slice(-2)).toEqual([
      { type: 'tool-call-end', index: 0, id: 'call_9Qx', name: 'cancel_order', arguments: argumentsText },
      { type: 'finish', reason: 'tool_calls' },
    ]);
    expect(JSON.parse(argumentsText)).toEqual({ orderId: 'NS-1042', reason: '尺码不合适，不想要了' });
  });

  it('keeps two parallel tool calls apart by index and ends them in index order at finish_reason', async () => {
    const first = '{"orderId":"NS-1042"}';
    const second = '{"query":"退货政策"}';
    const firstPieces = fragments(first);
    const secondPieces = fragments(second);
    const interleaved: string[] = [];
    for (let position = 0; position < Math.max(firstPieces.length, secondPieces.length); position++) {
      const one = firstPieces[position];
      const two = secondPieces[position];
      // Index 1 before index 0 in some frames: order comes from `index`, not from arrival.
      if (two !== undefined)
        interleaved.push(chunkFrame({ tool_calls: [{ index: 1, function: { arguments: two } }] }));
      if (one !== undefined)
        interleaved.push(chunkFrame({ tool_calls: [{ index: 0, function: { arguments: one } }] }));
    }
    const running = await start(
      sse([
        ROLE_FRAME,
        chunkFrame({
          tool_calls: [
            { index: 0, id: 'call_a', type: 'function', function: { name: 'query_order', arguments: '' } },
          ],
        }),
        chunkFrame({
          tool_calls: [
            {
              index: 1,
              id: 'call_b',
              type: 'function',
              function: { name: 'search_knowledge', arguments: '' },
            },
          ],
        }),
        ...interleaved,
        chunkFrame({}, 'tool_calls'),
        usageFrame(120, 30),
        DONE_FRAME,
      ]),
    );
    const parts = await collect(modelFor(running).stream(HELLO));

    expect(turnProblems(parts)).toEqual([]);
    expect(parts.slice(0, 2)).toEqual([
      { type: 'tool-call-start', index: 0, id: 'call_a', name: 'query_order' },
      { type: 'tool-call-start', index: 1, id: 'call_b', name: 'search_knowledge' },
    ]);
    expect(argumentsOf(parts, 0)).toBe(first);
    expect(argumentsOf(parts, 1)).toBe(second);
    expect(parts.slice(-3)).toEqual([
      { type: 'tool-call-end', index: 0, id: 'call_a', name: 'query_order', arguments: first },
      { type: 'tool-call-end', index: 1, id: 'call_b', name: 'search_knowledge', arguments: second },
      { type: 'finish', reason: 'tool_calls', usage: { inputTokens: 120, outputTokens: 30 } },
    ]);
  });

  it('puts the usage of the final choice-less chunk on the finish part', async () => {
    const running = await start(
      sse([ROLE_FRAME, chunkFrame({ content: 'Hi' }), chunkFrame({}, 'stop'), usageFrame(42, 7), DONE_FRAME]),
    );
    const parts = await collect(modelFor(running).stream(HELLO));
    expect(parts).toEqual([
      { type: 'text-delta', text: 'Hi' },
      { type: 'finish', reason: 'stop', usage: { inputTokens: 42, outputTokens: 7 } },
    ]);
  });

  it('maps finish reasons: length, content_filter, and anything else to other', async () => {
    const running = await start(
      sse([chunkFrame({ content: 'Truncat' }, 'length'), DONE_FRAME]),
      sse([chunkFrame({}, 'content_filter'), DONE_FRAME]),
      sse([chunkFrame({ content: 'x' }, 'insufficient_system_resource'), DONE_FRAME]),
    );
    const model = modelFor(running);
    expect((await collect(model.stream(HELLO))).at(-1)).toEqual({ type: 'finish', reason: 'length' });
    expect((await collect(model.stream(HELLO))).at(-1)).toEqual({ type: 'finish', reason: 'content_filter' });
    expect((await collect(model.stream(HELLO))).at(-1)).toEqual({ type: 'finish', reason: 'other' });
  });

  it('accepts a stream that closes after its finish_reason without [DONE]', async () => {
    const running = await start(
      sse([chunkFrame({ content: 'Hi' }), chunkFrame({}, 'stop'), usageFrame(3, 1)]),
    );
    const parts = await collect(modelFor(running).stream(HELLO));
    expect(parts.at(-1)).toEqual({
      type: 'finish',
      reason: 'stop',
      usage: { inputTokens: 3, outputTokens: 1 },
    });
  });
});

describe('OpenAiChatModel request', () => {
  it('sends the exact body: messages with tool calls and results, tools, stream_options', async () => {
    const running = await start(sse([chunkFrame({ content: 'OK' }, 'stop'), DONE_FRAME]));
    const controller = new AbortController();
    await collect(
      modelFor(running).stream({
        messages: [
          { role: 'system', content: 'You are NovaShop support.' },
          { role: 'user', content: '帮我取消订单 NS-1042' },
          {
            role: 'assistant',
            content: '',
            reasoning: 'The user wants to cancel; look the order up first.',
            toolCalls: [
              { id: 'call_1', name: 'query_order', arguments: '{"orderId":"NS-1042"}' },
              { id: 'call_2', name: 'load_skill', arguments: '{"name":"cancel-order"}' },
            ],
          },
          { role: 'tool', toolCallId: 'call_1', content: '{"status":"paid"}' },
          { role: 'tool', toolCallId: 'call_2', content: 'Ask for confirmation before cancelling.' },
          { role: 'assistant', content: '确认要取消吗？', reasoning: 'Needs confirmation.' },
          { role: 'user', content: '确认' },
        ],
        tools: [
          {
            name: 'cancel_order',
            description: 'Cancel an unshipped order.',
            parameters: {
              type: 'object',
              properties: { orderId: { type: 'string' } },
              required: ['orderId'],
            },
          },
        ],
        temperature: 0.2,
        maxOutputTokens: 512,
        signal: controller.signal,
      }),
    );

    const [request] = running.requests;
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe('/v1/chat/completions');
    expect(request?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers.accept).toBe('text/event-stream');
    expect(JSON.parse(request?.body ?? '')).toEqual({
      model: 'fake-model',
      messages: [
        { role: 'system', content: 'You are NovaShop support.' },
        { role: 'user', content: '帮我取消订单 NS-1042' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'query_order', arguments: '{"orderId":"NS-1042"}' },
            },
            {
              id: 'call_2',
              type: 'function',
              function: { name: 'load_skill', arguments: '{"name":"cancel-order"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '{"status":"paid"}' },
        { role: 'tool', tool_call_id: 'call_2', content: 'Ask for confirmation before cancelling.' },
        { role: 'assistant', content: '确认要取消吗？' },
        { role: 'user', content: '确认' },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: 'cancel_order',
            description: 'Cancel an unshipped order.',
            parameters: {
              type: 'object',
              properties: { orderId: { type: 'string' } },
              required: ['orderId'],
            },
          },
        },
      ],
      temperature: 0.2,
      max_tokens: 512,
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('omits tools when there are none, adds extraBody, and sends reasoning back only where the rule says', async () => {
    const running = await start(
      sse([chunkFrame({}, 'stop'), DONE_FRAME]),
      sse([chunkFrame({}, 'stop'), DONE_FRAME]),
    );
    const request: ChatRequest = {
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello', reasoning: 'greet back' },
        { role: 'user', content: 'Bye' },
      ],
      tools: [],
    };
    await collect(modelFor(running, { extraBody: { enable_thinking: true, stream: false } }).stream(request));
    await collect(modelFor(running, { apiKey: '', reasoningHistory: 'always' }).stream(request));

    const plain = JSON.parse(running.requests[0]?.body ?? '');
    expect(plain).not.toHaveProperty('tools');
    expect(plain.enable_thinking).toBe(true);
    // extraBody cannot switch streaming off.
    expect(plain.stream).toBe(true);
    expect(plain.messages[1]).toEqual({ role: 'assistant', content: 'Hello' });

    const withReasoning = JSON.parse(running.requests[1]?.body ?? '');
    expect(withReasoning.messages[1]).toEqual({
      role: 'assistant',
      content: 'Hello',
      reasoning_content: 'greet back',
    });
    expect(running.requests[1]?.headers.authorization).toBeUndefined();
  });

  it('DeepSeek in thinking mode: the tool-call turn goes back with its reasoning_content, settings as DeepSeek names them', async () => {
    const running = await start(
      sse([
        chunkFrame({ role: 'assistant', content: null, reasoning_content: '先查订单。' }),
        chunkFrame({
          tool_calls: [
            { index: 0, id: 'call_0', type: 'function', function: { name: 'query_order', arguments: '{}' } },
          ],
        }),
        chunkFrame({}, 'tool_calls'),
        DONE_FRAME,
      ]),
      sse([
        chunkFrame({ reasoning_content: '查到了。' }),
        chunkFrame({ content: '已发货。' }, 'stop'),
        DONE_FRAME,
      ]),
    );
    const model = modelFor(running, {
      provider: 'deepseek',
      thinking: 'on',
      reasoningEffort: 'medium',
      maxOutputTokens: 4096,
    });
    expect(model.provider).toBe('deepseek');
    const messages: ChatMessage[] = [{ role: 'user', content: '我的订单到哪了？' }];
    const first = await collect(model.stream({ messages, temperature: 0.3 }));
    // What the runtime keeps of the turn: its reasoning and calls.
    const call = first.find((part) => part.type === 'tool-call-end');
    expect(call).toBeDefined();
    messages.push(
      {
        role: 'assistant',
        content: '',
        reasoning: '先查订单。',
        toolCalls:
          call?.type === 'tool-call-end' ? [{ id: call.id, name: call.name, arguments: call.arguments }] : [],
      },
      { role: 'tool', toolCallId: 'call_0', content: '{"status":"shipped"}' },
    );
    await collect(model.stream({ messages }));

    const firstBody = JSON.parse(running.requests[0]?.body ?? '');
    expect(firstBody).toMatchObject({
      thinking: { type: 'enabled' },
      reasoning_effort: 'high',
      max_tokens: 4096,
      // DeepSeek ignores temperature in thinking mode without refusing it, so it is sent as asked.
      temperature: 0.3,
    });
    const secondBody = JSON.parse(running.requests[1]?.body ?? '');
    expect(secondBody.messages[1]).toEqual({
      role: 'assistant',
      content: null,
      reasoning_content: '先查订单。',
      tool_calls: [{ id: 'call_0', type: 'function', function: { name: 'query_order', arguments: '{}' } }],
    });
  });

  it('Ollama: two calls of one turn, both at index 0 with their own ids, stay two calls', async () => {
    const running = await start(
      sse([
        chunkFrame({
          role: 'assistant',
          content: '',
          tool_calls: [
            {
              id: 'call_k1',
              index: 0,
              type: 'function',
              function: { name: 'query_order', arguments: '{"orderId":"88235"}' },
            },
          ],
        }),
        chunkFrame({
          tool_calls: [
            {
              id: 'call_k2',
              index: 0,
              type: 'function',
              function: { name: 'search_knowledge', arguments: '{"query":"退货政策"}' },
            },
          ],
        }),
        chunkFrame({}, 'stop'),
        usageFrame(80, 24),
        DONE_FRAME,
      ]),
    );
    const parts = await collect(modelFor(running, { provider: 'ollama' }).stream(HELLO));
    expect(turnProblems(parts)).toEqual([]);
    expect(parts.filter((part) => part.type === 'tool-call-end')).toEqual([
      {
        type: 'tool-call-end',
        index: 0,
        id: 'call_k1',
        name: 'query_order',
        arguments: '{"orderId":"88235"}',
      },
      {
        type: 'tool-call-end',
        index: 1,
        id: 'call_k2',
        name: 'search_knowledge',
        arguments: '{"query":"退货政策"}',
      },
    ]);
    expect(parts.at(-1)).toEqual({
      type: 'finish',
      reason: 'tool_calls',
      usage: { inputTokens: 80, outputTokens: 24 },
    });
  });
});

describe('OpenAiChatModel options', () => {
  it('rejects unusable options', () => {
    expect(() => new OpenAiChatModel({ baseUrl: 'localhost:8000/v1', model: 'm' })).toThrow(/http\(s\) URL/);
    expect(() => new OpenAiChatModel({ baseUrl: 'http://localhost/v1', model: ' ' })).toThrow(/model/);
    expect(() => new OpenAiChatModel({ baseUrl: 'http://localhost/v1', model: 'm', maxRetries: -1 })).toThrow(
      /maxRetries/,
    );
    expect(
      () => new OpenAiChatModel({ baseUrl: 'http://localhost/v1', model: 'm', maxOutputTokens: 0 }),
    ).toThrow(/maxOutputTokens/);
  });

  it('follows the provider of the base URL unless told otherwise', () => {
    const provider = (baseUrl: string, options: Partial<OpenAiChatModelOptions> = {}) =>
      new OpenAiChatModel({ baseUrl, model: 'm', ...options }).provider;
    expect(provider('https://api.deepseek.com')).toBe('deepseek');
    expect(provider('https://dashscope-intl.aliyuncs.com/compatible-mode/v1')).toBe('dashscope');
    expect(provider('http://localhost:11434/v1')).toBe('ollama');
    expect(provider('http://localhost:8000/v1')).toBe('openai-compatible');
    expect(provider('http://localhost:8000/v1', { provider: 'vllm' })).toBe('vllm');
  });

  it('refuses thinking or effort settings the provider has no switch for', () => {
    expect(
      () => new OpenAiChatModel({ baseUrl: 'http://localhost:8000/v1', model: 'm', thinking: 'off' }),
    ).toThrow(/openai-compatible\) documents no switch for thinking/);
    expect(
      () =>
        new OpenAiChatModel({
          baseUrl: 'https://api.moonshot.ai/v1',
          model: 'kimi-k2.6',
          reasoningEffort: 'high',
        }),
    ).toThrow(/moonshot\) documents no reasoning effort/);
    expect(
      () =>
        new OpenAiChatModel({
          baseUrl: 'https://api.deepseek.com',
          model: 'deepseek-v4-flash',
          thinking: 'off',
          reasoningEffort: 'high',
        }),
    ).toThrow(/needs thinking, which is switched off/);
  });
});
