import { expect } from 'vitest';
import { isRecord } from '../../shared/index.ts';
import { createChatModelFromEnv } from '../create-chat-model-from-env.ts';
import type { ChatCompletionsProvider } from './chat-completions-rules.ts';
import { describeProviderConformance, type ToolExchange } from './test-support/provider-conformance.ts';
import { RECORDED } from './test-support/recordings.ts';

/**
 * Every OpenAI-compatible provider of the profile table, configured as a user would
 * (`OPENAI_BASE_URL`, `RUNSTREAM_MODEL_PROVIDER`, `RUNSTREAM_MODEL`, thinking on), through its
 * recorded streams and the real runtime. PROVIDER-RULES.md says what each provider requires.
 */

const API_KEY = 'sk-conformance-7d41c09e5b2a48f6';

interface ProviderCase {
  provider: ChatCompletionsProvider;
  /** The model the recordings came from. */
  model: string;
  env?: Record<string, string>;
  /** The history field the provider needs back on an assistant message that made tool calls. */
  reasoningBack?: 'reasoning_content';
  /** The documented switch the recording's reasoning presumes (a request without it streams none). */
  thinkingSwitch?(body: Record<string, unknown>): boolean;
}

const CASES: ProviderCase[] = [
  // deepseek-reasoner always thinks; its tool loop needs `reasoning_content` back.
  { provider: 'deepseek', model: 'deepseek-reasoner', reasoningBack: 'reasoning_content' },
  {
    provider: 'dashscope',
    model: 'qwen3-max',
    thinkingSwitch: (body) => body.enable_thinking === true,
  },
  // A reasoning model: its output limit goes out as `max_completion_tokens` or it is refused.
  { provider: 'openai', model: 'gpt-5', env: { RUNSTREAM_MODEL_MAX_OUTPUT_TOKENS: '4000' } },
  { provider: 'moonshot', model: 'kimi-k2.6', reasoningBack: 'reasoning_content' },
  {
    provider: 'openrouter',
    model: 'moonshotai/kimi-k2.5',
    thinkingSwitch: (body) =>
      isRecord(body.reasoning) &&
      body.reasoning.enabled !== false &&
      body.reasoning.effort !== 'none' &&
      body.reasoning.exclude !== true,
  },
  {
    provider: 'vllm',
    model: 'Qwen/Qwen3-8B',
    thinkingSwitch: (body) =>
      isRecord(body.chat_template_kwargs) && body.chat_template_kwargs.enable_thinking === true,
  },
  { provider: 'ollama', model: 'qwen3:8b' },
  { provider: 'llamacpp', model: 'openai/gpt-oss-20b' },
];

for (const providerCase of CASES) {
  describeProviderConformance({
    provider: providerCase.provider,
    createModel(server) {
      const model = createChatModelFromEnv({
        OPENAI_BASE_URL: server.baseUrl,
        OPENAI_API_KEY: API_KEY,
        RUNSTREAM_MODEL: providerCase.model,
        RUNSTREAM_MODEL_PROVIDER: providerCase.provider,
        RUNSTREAM_MODEL_THINKING: 'on',
        ...providerCase.env,
      });
      if (model === undefined) throw new Error('the environment configures no model');
      return model;
    },
    exchangeOf: chatCompletionsExchange,
    ...(providerCase.reasoningBack === undefined
      ? {}
      : {
          expectSentBack(assistant, recorded) {
            expect(
              assistant[providerCase.reasoningBack ?? ''],
              'the reasoning of the turn that called tools',
            ).toBe(RECORDED.reasoning[recorded]);
          },
        }),
    ...(providerCase.thinkingSwitch === undefined
      ? {}
      : {
          expectFirstRequest(body) {
            expect(
              providerCase.thinkingSwitch?.(body),
              `thinking switched on in ${JSON.stringify(body)}`,
            ).toBe(true);
          },
        }),
  });
}

/** The last assistant message with `tool_calls` and the `tool` messages right after it. */
function chatCompletionsExchange(body: unknown): ToolExchange | undefined {
  const messages = isRecord(body) && Array.isArray(body.messages) ? body.messages.filter(isRecord) : [];
  let index = messages.length - 1;
  while (
    index >= 0 &&
    !(messages[index]?.role === 'assistant' && Array.isArray(messages[index]?.tool_calls))
  ) {
    index--;
  }
  const assistant = messages[index];
  if (assistant === undefined) return undefined;
  const calls = (assistant.tool_calls as unknown[]).filter(isRecord).map((call) => {
    const fn = isRecord(call.function) ? call.function : {};
    let input: unknown = fn.arguments;
    try {
      input = JSON.parse(String(fn.arguments));
    } catch {
      // Left as sent: the comparison then shows the text that did not parse.
    }
    return { id: String(call.id), name: String(fn.name), input };
  });
  const answered: string[] = [];
  for (const message of messages.slice(index + 1)) {
    if (message.role !== 'tool') break;
    answered.push(String(message.tool_call_id));
  }
  return { calls, answered, assistant };
}
