import { expect } from 'vitest';
import { isRecord } from '../../shared/index.ts';
import { createChatModelFromEnv } from '../create-chat-model-from-env.ts';
import type { ReplayServer } from './replay-server.ts';
import { describeProviderConformance, type ToolExchange } from './test-support/provider-conformance.ts';
import {
  isDelta,
  RECORDED,
  type RecordingName,
  recording,
  signatureOf,
  withoutFrames,
} from './test-support/recordings.ts';

/**
 * The Anthropic Messages protocol through recorded streams and the real runtime, for each server
 * that speaks it: Claude (extended thinking with signatures, then adaptive thinking with its text
 * omitted) and DeepSeek's Anthropic-format endpoint (thinking on by default, signed with the
 * message id or not at all). The replay server refuses, with each provider's own answer, a
 * thinking block that comes back altered or unsigned (Claude), a final tool-loop turn that does not
 * start with its thinking (Claude), a tool-call turn whose thinking is not passed back (DeepSeek),
 * and a `tool_use` without its `tool_result`.
 */

const firstBlock = (assistant: Record<string, unknown>) =>
  Array.isArray(assistant.content) ? assistant.content[0] : undefined;

/** The model a user configures with the Messages protocol, pointed at the replay server. */
function messagesModel(server: ReplayServer, env: Record<string, string>) {
  const model = createChatModelFromEnv({
    RUNSTREAM_MODEL_API: 'anthropic',
    ANTHROPIC_BASE_URL: server.origin,
    ...env,
  });
  if (model === undefined) throw new Error('the environment configured no model');
  return model;
}

// Claude, extended thinking with a budget: the same environment a user sets.
describeProviderConformance({
  provider: 'anthropic',
  createModel: (server) =>
    messagesModel(server, {
      ANTHROPIC_API_KEY: 'sk-ant-conformance-5f0e2b7c9d1a',
      RUNSTREAM_MODEL: 'claude-sonnet-4-20250514',
      RUNSTREAM_MODEL_THINKING: 'on',
      RUNSTREAM_MODEL_THINKING_BUDGET: '4000',
    }),
  exchangeOf: messagesExchange,
  expectSentBack(assistant, recorded) {
    // The replay server has already compared the signature with the one it streamed.
    expect(firstBlock(assistant), 'the thinking block of the turn that called tools, first').toMatchObject({
      type: 'thinking',
      thinking: RECORDED.reasoning[recorded],
    });
  },
  expectFirstRequest(body) {
    expect(body.thinking).toMatchObject({ type: 'enabled' });
  },
});

// Claude, adaptive thinking on a model whose thinking display defaults to omitted: each thinking
// block streams its signature and no text, and still goes back, empty and signed, before its calls.
const omittedDisplay = (name: RecordingName) =>
  withoutFrames(recording('anthropic', name), 'display omitted', isDelta('thinking_delta'));
describeProviderConformance({
  provider: 'anthropic',
  variant: 'adaptive thinking, display omitted',
  recording: omittedDisplay,
  createModel: (server) =>
    messagesModel(server, {
      ANTHROPIC_API_KEY: 'sk-ant-conformance-5f0e2b7c9d1a',
      RUNSTREAM_MODEL: 'claude-opus-4-7',
      RUNSTREAM_MODEL_THINKING: 'adaptive',
    }),
  exchangeOf: messagesExchange,
  expectSentBack(assistant, recorded) {
    expect(firstBlock(assistant), 'the signed, empty thinking block, first').toEqual({
      type: 'thinking',
      thinking: '',
      signature: signatureOf(omittedDisplay(recorded)),
    });
  },
  expectFirstRequest(body) {
    expect(body.thinking).toEqual({ type: 'adaptive' });
  },
});

// DeepSeek's Anthropic endpoint as a user configures it. The replay server listens on 127.0.0.1, so
// the provider is named (a real base URL, api.deepseek.com/anthropic, is detected from its host).
const DEEPSEEK_ENV = {
  ANTHROPIC_API_KEY: 'sk-deepseek-conformance-3c9a71e0b4d2',
  RUNSTREAM_MODEL: 'deepseek-v4-pro',
  RUNSTREAM_MODEL_PROVIDER: 'deepseek',
};

/** DeepSeek needs each tool-call turn's thinking back; its text is what the model reasoned. */
const deepSeekThinkingBack =
  (text: (recorded: Exclude<RecordingName, 'answer'>) => string) =>
  (assistant: Record<string, unknown>, recorded: Exclude<RecordingName, 'answer'>) => {
    expect(firstBlock(assistant), 'the thinking block of the turn that called tools, first').toMatchObject({
      type: 'thinking',
      thinking: text(recorded),
    });
  };

// Thinking left at DeepSeek's default (on): the request says nothing about it, and the reasoning of
// the calling turn must still go back.
describeProviderConformance({
  provider: 'deepseek-anthropic',
  createModel: (server) => messagesModel(server, DEEPSEEK_ENV),
  exchangeOf: messagesExchange,
  expectSentBack: deepSeekThinkingBack((recorded) => RECORDED.reasoning[recorded]),
  expectFirstRequest(body) {
    expect(body.thinking, 'thinking left at the default, on').toBeUndefined();
  },
});

// A stream that signs nothing (no `signature_delta`): the reasoning goes back as an unsigned block.
describeProviderConformance({
  provider: 'deepseek-anthropic',
  variant: 'unsigned thinking, thinking switched on',
  recording: (name) =>
    withoutFrames(recording('deepseek-anthropic', name), 'unsigned', isDelta('signature_delta')),
  createModel: (server) =>
    messagesModel(server, {
      ...DEEPSEEK_ENV,
      RUNSTREAM_MODEL_THINKING: 'on',
      RUNSTREAM_MODEL_REASONING_EFFORT: 'max',
    }),
  exchangeOf: messagesExchange,
  expectSentBack: deepSeekThinkingBack((recorded) => RECORDED.reasoning[recorded]),
  expectFirstRequest(body) {
    expect(body.thinking).toMatchObject({ type: 'enabled' });
    expect(body.output_config).toEqual({ effort: 'max' });
  },
});

// A thinking block that carries only its signature, no text: the block still goes back.
describeProviderConformance({
  provider: 'deepseek-anthropic',
  variant: 'signature without thinking text',
  recording: (name) =>
    withoutFrames(recording('deepseek-anthropic', name), 'no thinking text', isDelta('thinking_delta')),
  createModel: (server) => messagesModel(server, DEEPSEEK_ENV),
  exchangeOf: messagesExchange,
  expectSentBack: deepSeekThinkingBack(() => ''),
});

// A tool round streamed without any thinking (the model may skip it): the turn still needs a thinking
// block back, an empty one (checked against DeepSeek in qwen-code#3788: none is a 400, empty is 200).
describeProviderConformance({
  provider: 'deepseek-anthropic',
  variant: 'turns streamed without thinking',
  recording: (name) =>
    withoutFrames(recording('deepseek-anthropic', name), 'no thinking block', (event) => event.index === 0),
  createModel: (server) => messagesModel(server, DEEPSEEK_ENV),
  exchangeOf: messagesExchange,
  expectSentBack: deepSeekThinkingBack(() => ''),
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
