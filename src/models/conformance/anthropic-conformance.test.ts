import { expect } from 'vitest';
import { createChatModelFromEnv } from '../create-chat-model-from-env.ts';
import { describeProviderConformance, type ToolExchange } from './test-support/provider-conformance.ts';
import { RECORDED } from './test-support/recordings.ts';

/**
 * Anthropic Messages through its recorded streams (extended thinking with signatures, `tool_use`)
 * and the real runtime. The replay server refuses, with Anthropic's messages, a thinking block that
 * comes back altered or unsigned, a final tool-loop turn that does not start with its thinking, and
 * a `tool_use` without its `tool_result`.
 */

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

describeProviderConformance({
  provider: 'anthropic',
  // The same environment a user sets for Claude.
  createModel: (server) => {
    const model = createChatModelFromEnv({
      RUNSTREAM_MODEL_API: 'anthropic',
      ANTHROPIC_BASE_URL: server.origin,
      ANTHROPIC_API_KEY: 'sk-ant-conformance-5f0e2b7c9d1a',
      RUNSTREAM_MODEL: 'claude-sonnet-4-20250514',
      RUNSTREAM_MODEL_THINKING: 'on',
      RUNSTREAM_MODEL_THINKING_BUDGET: '4000',
    });
    if (model === undefined) throw new Error('the environment configured no model');
    return model;
  },
  exchangeOf: messagesExchange,
  expectSentBack(assistant, recorded) {
    const first = Array.isArray(assistant.content) ? assistant.content[0] : undefined;
    // The replay server has already compared the signature with the one it streamed.
    expect(first, 'the thinking block of the turn that called tools, first').toMatchObject({
      type: 'thinking',
      thinking: RECORDED.reasoning[recorded],
    });
  },
  expectFirstRequest(body) {
    expect(body.thinking).toMatchObject({ type: 'enabled' });
  },
});

/** The last assistant message with `tool_use` blocks and the `tool_result` blocks of the message after it. */
function messagesExchange(body: unknown): ToolExchange | undefined {
  const messages = isRecord(body) && Array.isArray(body.messages) ? body.messages.filter(isRecord) : [];
  const blocksOf = (message: Record<string, unknown> | undefined) =>
    Array.isArray(message?.content) ? message.content.filter(isRecord) : [];
  let index = messages.length - 1;
  while (
    index >= 0 &&
    !(
      messages[index]?.role === 'assistant' &&
      blocksOf(messages[index]).some((block) => block.type === 'tool_use')
    )
  ) {
    index--;
  }
  const assistant = messages[index];
  if (assistant === undefined) return undefined;
  return {
    calls: blocksOf(assistant)
      .filter((block) => block.type === 'tool_use')
      .map((block) => ({ id: String(block.id), name: String(block.name), input: block.input })),
    answered: blocksOf(messages[index + 1])
      .filter((block) => block.type === 'tool_result')
      .map((block) => String(block.tool_use_id)),
    assistant,
  };
}
