import { describe, expect, it } from 'vitest';
import { AnthropicMessagesModel } from './anthropic-messages-model.ts';
import type { ChatMessage, ChatRequest, ToolDefinition } from './chat-model.ts';
import {
  PARALLEL_TOOL_USE,
  REDACTED_DATA,
  REDACTED_THINKING,
  THINKING_SIGNATURE,
  THINKING_TEXT,
  THINKING_TOOL_USE,
  UNSIGNED_THINKING_TOOL_USE,
} from './test-support/anthropic-assembled-streams.ts';
import {
  anthropicEvent,
  BASIC_TEXT,
  framesOf,
  OVERLOADED_BEFORE_CONTENT,
} from './test-support/anthropic-recordings.ts';
import {
  ANTHROPIC_API_KEY,
  anthropicError,
  anthropicModelFor,
  anthropicStream,
  assistantMessageOf,
  bodyOf,
} from './test-support/anthropic-test-kit.ts';
import { sse } from './test-support/fake-chat-completions-server.ts';
import { collect, collectFailure, fakeServerPerTest, modelError } from './test-support/openai-test-kit.ts';
import { turnProblems } from './test-support/turn-problems.ts';

const start = fakeServerPerTest();

const GET_WEATHER: ToolDefinition = {
  name: 'get_weather',
  description: 'Get the current weather in a given location',
  parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
};

const WEATHER_QUESTION: ChatRequest = {
  messages: [
    { role: 'system', content: 'You are a weather assistant.' },
    { role: 'user', content: 'What is the weather like in Paris?' },
  ],
  tools: [GET_WEATHER],
};

describe('AnthropicMessagesModel streaming', () => {
  it('posts to /v1/messages with the documented headers and body, and streams the text', async () => {
    const running = await start(anthropicStream(BASIC_TEXT));
    const model = anthropicModelFor(running);
    expect(model.name).toBe('anthropic:claude-sonnet-4-5');

    const parts = await collect(model.stream(WEATHER_QUESTION));
    expect(parts).toEqual([
      { type: 'text-delta', text: 'Hello' },
      { type: 'text-delta', text: ' there' },
      { type: 'text-delta', text: '!' },
      { type: 'finish', reason: 'stop', usage: { inputTokens: 11, outputTokens: 6 } },
    ]);
    const [request] = running.requests;
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe('/v1/messages');
    expect(request?.headers['x-api-key']).toBe(ANTHROPIC_API_KEY);
    expect(request?.headers['anthropic-version']).toBe('2023-06-01');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers.authorization).toBeUndefined();
    expect(bodyOf(running, 0)).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 4096,
      system: 'You are a weather assistant.',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'What is the weather like in Paris?' }] }],
      tools: [
        {
          name: 'get_weather',
          description: 'Get the current weather in a given location',
          input_schema: GET_WEATHER.parameters,
        },
      ],
      stream: true,
    });
  });

  it('sends the key as a bearer token and extra headers where a gateway asks for them', async () => {
    const running = await start(anthropicStream(BASIC_TEXT));
    await collect(
      anthropicModelFor(running, {
        authScheme: 'bearer',
        headers: { 'anthropic-beta': 'interleaved-thinking-2025-05-14' },
      }).stream(WEATHER_QUESTION),
    );
    const headers = running.requests[0]?.headers;
    expect(headers?.authorization).toBe(`Bearer ${ANTHROPIC_API_KEY}`);
    expect(headers?.['x-api-key']).toBeUndefined();
    expect(headers?.['anthropic-beta']).toBe('interleaved-thinking-2025-05-14');
  });

  it('sends the signed thinking block back byte for byte in the tool loop, with the tool_result', async () => {
    const running = await start(anthropicStream(THINKING_TOOL_USE), anthropicStream(BASIC_TEXT));
    const model = anthropicModelFor(running, { thinking: { type: 'enabled', budgetTokens: 2048 } });

    const first = await collect(model.stream(WEATHER_QUESTION));
    expect(turnProblems(first)).toEqual([]);
    expect(first.at(-1)).toMatchObject({ type: 'finish', reason: 'tool_calls' });
    const transcript: ChatMessage[] = [
      ...WEATHER_QUESTION.messages,
      assistantMessageOf(first),
      { role: 'tool', toolCallId: 'toolu_01NRLabsLyVHZPKxbKvkfSMn', content: '18°C, sunny' },
    ];
    await collect(model.stream({ messages: transcript, tools: [GET_WEATHER] }));

    // The signature's JSON text is the very text the stream carried (its `/` unescaped, unchanged).
    const streamed = THINKING_TOOL_USE.split('\n').find((line) => line.includes('signature_delta')) ?? '';
    const signatureJson = JSON.stringify(THINKING_SIGNATURE);
    expect(streamed).toContain(signatureJson);
    expect(running.requests[1]?.body).toContain(`"signature":${signatureJson}`);

    const second = bodyOf(running, 1);
    expect(second.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(second.max_tokens).toBe(2048 + 4096);
    expect(second.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'What is the weather like in Paris?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: THINKING_TEXT.join(''), signature: THINKING_SIGNATURE },
          {
            type: 'tool_use',
            id: 'toolu_01NRLabsLyVHZPKxbKvkfSMn',
            name: 'get_weather',
            input: { location: 'Paris' },
          },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_01NRLabsLyVHZPKxbKvkfSMn', content: '18°C, sunny' },
        ],
      },
    ]);
  });

  it('returns the results of two parallel calls in one user message', async () => {
    const running = await start(anthropicStream(PARALLEL_TOOL_USE), anthropicStream(BASIC_TEXT));
    const model = anthropicModelFor(running);
    const first = await collect(model.stream(WEATHER_QUESTION));
    expect(turnProblems(first)).toEqual([]);
    const transcript: ChatMessage[] = [
      ...WEATHER_QUESTION.messages,
      assistantMessageOf(first),
      { role: 'tool', toolCallId: 'toolu_01WeatherSF', content: '15°C, foggy' },
      { role: 'tool', toolCallId: 'toolu_01TimeSF', content: '09:30' },
    ];
    await collect(model.stream({ messages: transcript, tools: [GET_WEATHER] }));
    const messages = bodyOf(running, 1).messages as { role: string; content: { type: string }[] }[];
    expect(messages).toHaveLength(3);
    expect(messages[1]?.content.map((block) => block.type)).toEqual(['text', 'tool_use', 'tool_use']);
    expect(messages[2]).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_01WeatherSF', content: '15°C, foggy' },
        { type: 'tool_result', tool_use_id: 'toolu_01TimeSF', content: '09:30' },
      ],
    });
  });

  it('keeps a redacted_thinking block and sends it back unchanged, in its place', async () => {
    const running = await start(anthropicStream(REDACTED_THINKING), anthropicStream(BASIC_TEXT));
    const model = anthropicModelFor(running);
    const first = await collect(model.stream(WEATHER_QUESTION));
    expect(first[0]).toEqual({ type: 'reasoning-redacted', data: REDACTED_DATA });
    await collect(
      model.stream({
        messages: [
          ...WEATHER_QUESTION.messages,
          assistantMessageOf(first),
          { role: 'user', content: 'And tomorrow?' },
        ],
      }),
    );
    const messages = bodyOf(running, 1).messages as { content: unknown[] }[];
    expect(messages[1]?.content).toEqual([
      { type: 'redacted_thinking', data: REDACTED_DATA },
      { type: 'thinking', thinking: 'Let me analyze this step by step...', signature: THINKING_SIGNATURE },
      { type: 'text', text: 'Based on my analysis...' },
    ]);
  });

  it('sends Qwen’s unsigned thinking back with an empty signature when asked to', async () => {
    const running = await start(anthropicStream(UNSIGNED_THINKING_TOOL_USE), anthropicStream(BASIC_TEXT));
    const model = anthropicModelFor(running, { model: 'qwen-plus', sendUnsignedReasoning: true });
    const first = await collect(model.stream(WEATHER_QUESTION));
    await collect(
      model.stream({
        messages: [
          ...WEATHER_QUESTION.messages,
          assistantMessageOf(first),
          { role: 'tool', toolCallId: 'call_qwen_1', content: '{"status":"paid"}' },
        ],
        tools: [GET_WEATHER],
      }),
    );
    const messages = bodyOf(running, 1).messages as { content: unknown[] }[];
    expect(messages[1]?.content[0]).toEqual({
      type: 'thinking',
      thinking: '用户想查订单，先调用 query_order。',
      signature: '',
    });
  });
});

describe('AnthropicMessagesModel retries and errors', () => {
  it('retries an overloaded_error that arrives in the stream before any content, with the same body', async () => {
    const running = await start(anthropicStream(OVERLOADED_BEFORE_CONTENT), anthropicStream(BASIC_TEXT));
    const parts = await collect(anthropicModelFor(running).stream(WEATHER_QUESTION));
    expect(parts.map((part) => part.type)).toEqual(['text-delta', 'text-delta', 'text-delta', 'finish']);
    expect(running.requests).toHaveLength(2);
    expect(running.requests[1]?.body).toBe(running.requests[0]?.body);
  });

  it('does not retry an overloaded_error after text reached the consumer', async () => {
    const frames = framesOf(BASIC_TEXT);
    const running = await start(
      sse([
        ...frames.slice(0, 4),
        anthropicEvent({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }),
      ]),
      anthropicStream(BASIC_TEXT),
    );
    const { parts, error } = await collectFailure(anthropicModelFor(running).stream(WEATHER_QUESTION));
    expect(parts).toEqual([{ type: 'text-delta', text: 'Hello' }]);
    const failure = modelError(error);
    expect(failure.code).toBe('model_stream_broken');
    expect(failure.message).toContain('overloaded_error: Overloaded');
    expect(running.requests).toHaveLength(1);
  });

  it('retries a 529 and a 429 that asks for a short wait', async () => {
    const running = await start(
      anthropicError(529, 'overloaded_error', 'Overloaded'),
      anthropicError(
        429,
        'rate_limit_error',
        'Number of request tokens has exceeded your per-minute rate limit',
        {
          'retry-after': '0.01',
        },
      ),
      anthropicStream(BASIC_TEXT),
    );
    const parts = await collect(anthropicModelFor(running).stream(WEATHER_QUESTION));
    expect(parts.at(-1)).toMatchObject({ type: 'finish', reason: 'stop' });
    expect(running.requests).toHaveLength(3);
  });

  it('fails at once when retry-after asks for longer than the longest wait allowed', async () => {
    const running = await start(
      anthropicError(429, 'rate_limit_error', 'Your account has hit a rate limit.', { 'retry-after': '60' }),
      anthropicStream(BASIC_TEXT),
    );
    const { error } = await collectFailure(anthropicModelFor(running).stream(WEATHER_QUESTION));
    const failure = modelError(error);
    expect(failure).toMatchObject({ code: 'model_rate_limited', status: 429 });
    expect(failure.message).toContain('Your account has hit a rate limit.');
    expect(failure.message).toContain('asked to wait 60 s');
    expect(running.requests).toHaveLength(1);
  });

  it('fails a 400 at once with Anthropic’s own message', async () => {
    const message =
      'messages.1.content.0: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.';
    const running = await start(
      anthropicError(400, 'invalid_request_error', message),
      anthropicStream(BASIC_TEXT),
    );
    const { parts, error } = await collectFailure(anthropicModelFor(running).stream(WEATHER_QUESTION));
    expect(parts).toEqual([]);
    const failure = modelError(error);
    expect(failure).toMatchObject({ code: 'model_bad_request', status: 400, retryable: false });
    expect(failure.message).toContain('/v1/messages answered HTTP 400');
    expect(failure.message).toContain(message);
    expect(running.requests).toHaveLength(1);
  });

  it('removes the key from a 401 that quotes it, and says what to check', async () => {
    const running = await start(
      anthropicError(401, 'authentication_error', `invalid x-api-key: ${ANTHROPIC_API_KEY}`),
    );
    const { error } = await collectFailure(
      anthropicModelFor(running, { authHint: 'check ANTHROPIC_API_KEY' }).stream(WEATHER_QUESTION),
    );
    const failure = modelError(error);
    expect(failure.code).toBe('model_auth');
    expect(failure.message).not.toContain(ANTHROPIC_API_KEY);
    expect(failure.message).toContain('invalid x-api-key: [redacted]');
    expect(failure.message).toContain('check ANTHROPIC_API_KEY');
  });

  it('fails a stream cut before message_stop as broken, never as a complete answer', async () => {
    const frames = framesOf(BASIC_TEXT);
    // Everything but message_delta and message_stop: the text looks whole, the turn is not.
    const running = await start(sse(frames.slice(0, -2)), anthropicStream(BASIC_TEXT));
    const { parts, error } = await collectFailure(anthropicModelFor(running).stream(WEATHER_QUESTION));
    expect(parts.map((part) => part.type)).toEqual(['text-delta', 'text-delta', 'text-delta']);
    const failure = modelError(error);
    expect(failure.code).toBe('model_stream_broken');
    expect(failure.message).toContain('ended before message_stop');
    expect(running.requests).toHaveLength(1);
  });

  it('retries a stream cut before its first part', async () => {
    const frames = framesOf(BASIC_TEXT);
    const running = await start(sse(frames.slice(0, 2), { ending: 'destroy' }), anthropicStream(BASIC_TEXT));
    const parts = await collect(anthropicModelFor(running).stream(WEATHER_QUESTION));
    expect(parts.at(-1)).toMatchObject({ type: 'finish', reason: 'stop' });
    expect(running.requests).toHaveLength(2);
  });
});

describe('AnthropicMessagesModel options', () => {
  it('refuses settings the API would refuse, naming the rule', () => {
    const base = { apiKey: ANTHROPIC_API_KEY, model: 'claude-sonnet-4-5' };
    expect(
      () => new AnthropicMessagesModel({ ...base, thinking: { type: 'enabled', budgetTokens: 512 } }),
    ).toThrow(/at least 1024/);
    expect(() => new AnthropicMessagesModel({ ...base, maxOutputTokens: 0 })).toThrow(/maxOutputTokens/);
    expect(() => new AnthropicMessagesModel({ ...base, model: ' ' })).toThrow(/model/);
    expect(() => new AnthropicMessagesModel({ ...base, baseUrl: 'ftp://example.com' })).toThrow(/baseUrl/);
    expect(() => new AnthropicMessagesModel({ ...base, effort: '' })).toThrow(/effort/);
    expect(() => new AnthropicMessagesModel({ ...base, idleTimeoutMs: 0 })).toThrow(/idleTimeoutMs/);
  });

  it('appends /v1/messages to the root, or only /messages to a root that ends in /v1', async () => {
    const running = await start(anthropicStream(BASIC_TEXT), anthropicStream(BASIC_TEXT));
    await collect(anthropicModelFor(running, { baseUrl: `${running.baseUrl}/` }).stream(WEATHER_QUESTION));
    await collect(
      anthropicModelFor(running, { baseUrl: running.baseUrl.replace(/\/v1$/, '/') }).stream(WEATHER_QUESTION),
    );
    expect(running.requests.map((request) => request.url)).toEqual(['/v1/messages', '/v1/messages']);
  });
});
