import { describe, expect, it } from 'vitest';
import type { ChatMessage, ChatRequest } from './chat-model.ts';
import { buildRequestBody, type RequestBodyOptions } from './openai-request-body.ts';
import { PROVIDER_IDS, type ProviderId } from './provider-profile.ts';
import { PROVIDER_PROFILES } from './provider-profiles.ts';

/** Two user turns with tools in the first, a plain answer in the second, then a third question. */
const TRANSCRIPT: ChatMessage[] = [
  { role: 'system', content: 'You are NovaShop support.' },
  { role: 'user', content: '帮我查订单 88235' },
  {
    role: 'assistant',
    content: '',
    reasoning: 'Look the order up first.',
    toolCalls: [{ id: 'call_1', name: 'query_order', arguments: '{"orderId":"88235"}' }],
  },
  { role: 'tool', toolCallId: 'call_1', content: '{"status":"shipped"}' },
  { role: 'assistant', content: '订单已发货。', reasoning: 'It shipped; say so.' },
  { role: 'user', content: '谢谢' },
  { role: 'assistant', content: '不客气！', reasoning: 'A thank-you; answer briefly.' },
  { role: 'user', content: '退货政策呢？' },
];

const TOOLS: ChatRequest['tools'] = [
  { name: 'query_order', description: 'Look an order up.', parameters: { type: 'object', properties: {} } },
];

function body(
  provider: ProviderId,
  options: Omit<RequestBodyOptions, 'model' | 'profile'> = {},
  request?: ChatRequest,
) {
  return buildRequestBody(request ?? { messages: TRANSCRIPT }, {
    model: 'm',
    profile: PROVIDER_PROFILES[provider],
    ...options,
  });
}

/** Which assistant messages (by their position in the transcript) carry `reasoning_content`. */
function reasoningSentBack(built: Record<string, unknown>): string[] {
  const messages = built.messages as Record<string, unknown>[];
  return messages.flatMap((message) =>
    typeof message.reasoning_content === 'string' ? [message.reasoning_content] : [],
  );
}

describe('buildRequestBody: reasoning in the history', () => {
  it('DeepSeek: every assistant message of a user turn that made tool calls, and only those turns', () => {
    expect(reasoningSentBack(body('deepseek'))).toEqual(['Look the order up first.', 'It shipped; say so.']);
    const messages = body('deepseek').messages as unknown[];
    expect(messages[2]).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: 'call_1',
          type: 'function',
          function: { name: 'query_order', arguments: '{"orderId":"88235"}' },
        },
      ],
      reasoning_content: 'Look the order up first.',
    });
  });

  it('DeepSeek: the turn still under way (no user message after it) counts too', () => {
    const underWay = TRANSCRIPT.slice(0, 4);
    expect(reasoningSentBack(body('deepseek', {}, { messages: underWay }))).toEqual([
      'Look the order up first.',
    ]);
  });

  it('Moonshot: every assistant message that has reasoning keeps it', () => {
    expect(reasoningSentBack(body('moonshot'))).toEqual([
      'Look the order up first.',
      'It shipped; say so.',
      'A thank-you; answer briefly.',
    ]);
  });

  it.each([
    'openai',
    'dashscope',
    'siliconflow',
    'openrouter',
    'vllm',
    'ollama',
    'llamacpp',
    'openai-compatible',
  ] as const)('%s: no reasoning goes back', (provider) => {
    expect(reasoningSentBack(body(provider))).toEqual([]);
    expect(JSON.stringify(body(provider))).not.toContain('"reasoning"');
  });

  it('an explicit rule overrides the profile (a gateway in front of DeepSeek)', () => {
    expect(reasoningSentBack(body('openai-compatible', { reasoningHistory: 'tool-call-turns' }))).toEqual([
      'Look the order up first.',
      'It shipped; say so.',
    ]);
    expect(reasoningSentBack(body('deepseek', { reasoningHistory: 'never' }))).toEqual([]);
  });

  it('keeps the field, empty, on a tool-call turn that streamed no reasoning; never elsewhere', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: '', reasoning: '', toolCalls: [{ id: 'c', name: 'n', arguments: '{}' }] },
      { role: 'tool', toolCallId: 'c', content: 'ok' },
      { role: 'assistant', content: 'Done.' },
    ];
    // Kimi and DeepSeek check that the field is there on a tool-call message; an answer without
    // reasoning and without calls has nothing to carry.
    expect(reasoningSentBack(body('moonshot', {}, { messages }))).toEqual(['']);
    expect(reasoningSentBack(body('deepseek', {}, { messages }))).toEqual(['']);
    expect(reasoningSentBack(body('openai', {}, { messages }))).toEqual([]);
  });
});

describe('buildRequestBody: thinking, effort and limits per provider', () => {
  /** The fields a provider's settings add, without the messages. */
  function fields(provider: ProviderId, options: Omit<RequestBodyOptions, 'model' | 'profile'> = {}) {
    const { messages: _messages, model: _model, stream: _stream, ...rest } = body(provider, options);
    return rest;
  }

  it('OpenAI: reasoning_effort (none to switch off), max_completion_tokens, no temperature while reasoning', () => {
    const request: ChatRequest = { messages: TRANSCRIPT, temperature: 0.2, maxOutputTokens: 800 };
    expect(buildRequestBody(request, { model: 'gpt-4.1', profile: PROVIDER_PROFILES.openai })).toMatchObject({
      temperature: 0.2,
      max_completion_tokens: 800,
      stream_options: { include_usage: true },
    });
    const reasoning = buildRequestBody(request, {
      model: 'o4-mini',
      profile: PROVIDER_PROFILES.openai,
      reasoningEffort: 'max',
    });
    expect(reasoning).toMatchObject({ reasoning_effort: 'xhigh', max_completion_tokens: 800 });
    expect(reasoning).not.toHaveProperty('temperature');
    expect(reasoning).not.toHaveProperty('max_tokens');
    expect(fields('openai', { thinking: 'off' })).toMatchObject({ reasoning_effort: 'none' });
    expect(fields('openai', { reasoningEffort: 'minimal' })).toMatchObject({ reasoning_effort: 'minimal' });
  });

  it("DeepSeek: thinking {type}, and the effort by DeepSeek's own mapping", () => {
    expect(fields('deepseek', { thinking: 'off' })).toEqual({
      stream_options: { include_usage: true },
      thinking: { type: 'disabled' },
    });
    expect(fields('deepseek', { thinking: 'on', maxOutputTokens: 2048 })).toEqual({
      max_tokens: 2048,
      stream_options: { include_usage: true },
      thinking: { type: 'enabled' },
    });
    const effort = (reasoningEffort: RequestBodyOptions['reasoningEffort']) =>
      fields('deepseek', { reasoningEffort }).reasoning_effort;
    expect(
      ['minimal', 'low', 'medium', 'high', 'xhigh', 'max'].map((level) => effort(level as never)),
    ).toEqual(['low', 'low', 'high', 'high', 'high', 'max']);
  });

  it('parallel_tool_calls only to the servers whose default is one call per turn', () => {
    const sendsParallel = (provider: ProviderId) =>
      'parallel_tool_calls' in
      buildRequestBody(
        { messages: TRANSCRIPT, tools: TOOLS },
        { model: 'm', profile: PROVIDER_PROFILES[provider] },
      );
    expect(PROVIDER_IDS.filter(sendsParallel)).toEqual(['dashscope', 'llamacpp']);
  });

  it('DashScope: enable_thinking, and parallel_tool_calls whenever tools are offered', () => {
    expect(fields('dashscope', { thinking: 'on' })).toEqual({
      stream_options: { include_usage: true },
      enable_thinking: true,
    });
    expect(
      buildRequestBody(
        { messages: TRANSCRIPT, tools: TOOLS },
        { model: 'qwen-plus', profile: PROVIDER_PROFILES.dashscope },
      ),
    ).toMatchObject({ parallel_tool_calls: true, tools: [{ type: 'function' }] });
    expect(fields('dashscope')).not.toHaveProperty('parallel_tool_calls');
  });

  it('Moonshot: thinking {type: disabled}', () => {
    expect(fields('moonshot', { thinking: 'off' })).toMatchObject({ thinking: { type: 'disabled' } });
  });

  it('SiliconFlow: enable_thinking, and no stream_options it does not document', () => {
    expect(fields('siliconflow', { thinking: 'off' })).toEqual({ enable_thinking: false });
  });

  it('OpenRouter: one reasoning object, the effort winning over a bare switch', () => {
    expect(fields('openrouter', { thinking: 'on' })).toMatchObject({ reasoning: { enabled: true } });
    expect(fields('openrouter', { thinking: 'off' })).toMatchObject({ reasoning: { effort: 'none' } });
    expect(fields('openrouter', { thinking: 'on', reasoningEffort: 'low' })).toMatchObject({
      reasoning: { effort: 'low' },
    });
  });

  it('vLLM and llama.cpp: chat_template_kwargs.enable_thinking', () => {
    for (const provider of ['vllm', 'llamacpp'] as const) {
      expect(fields(provider, { thinking: 'off' })).toMatchObject({
        chat_template_kwargs: { enable_thinking: false },
      });
    }
  });

  it('Ollama: reasoning_effort, none to switch thinking off, three levels', () => {
    expect(fields('ollama', { thinking: 'off' })).toMatchObject({ reasoning_effort: 'none' });
    expect(fields('ollama', { thinking: 'on' })).toMatchObject({ reasoning_effort: 'medium' });
    expect(fields('ollama', { reasoningEffort: 'xhigh' })).toMatchObject({ reasoning_effort: 'high' });
    expect(fields('ollama', { reasoningEffort: 'minimal' })).toMatchObject({ reasoning_effort: 'low' });
  });

  it('an unknown server gets exactly the plain body, and a request limit wins over the default', () => {
    expect(fields('openai-compatible')).toEqual({ stream_options: { include_usage: true } });
    expect(
      buildRequestBody(
        { messages: TRANSCRIPT, maxOutputTokens: 100 },
        { model: 'm', maxOutputTokens: 4000, extraBody: { top_k: 20, model: 'not-this' } },
      ),
    ).toMatchObject({ model: 'm', top_k: 20, max_tokens: 100 });
  });
});
