import { readFileSync } from 'node:fs';
import type { TokenUsage } from '../../chat-model.ts';
import type { RecordedResponse, ReplayProvider } from '../replay-server.ts';

/**
 * The recorded turns every provider's folder holds (`recordings/<provider>/<name>.sse`, sources in
 * its SOURCES.md): one call of the read tool, two parallel calls of it, one call of the write tool,
 * and the final answer. The texts below are what the recordings say, for the assertions.
 */
export type RecordingName = 'query-order' | 'query-two-orders' | 'cancel-order' | 'answer';

export const RECORDED = {
  /** The reasoning each turn streams (not OpenAI's: its Chat Completions never streams reasoning). */
  reasoning: {
    'query-order': 'The user is asking about order 88235. I should look it up with the query_order tool.',
    'query-two-orders':
      'The user is asking about orders 88235 and 88236. I can look both up at once with query_order.',
    'cancel-order': 'The user wants to cancel order 88235. The cancel_order tool asks them to confirm first.',
    answer: 'The tool result is in. I can answer the user now.',
  } satisfies Record<RecordingName, string>,
  answer: '订单 88235 已为你处理好了，还有其他问题随时找我。',
};

/** What each server sends as its stream's content type (from the recordings' response headers). */
const CONTENT_TYPES: Partial<Record<ReplayProvider, string>> = {
  llamacpp: 'text/event-stream',
  ollama: 'text/event-stream',
};

export function recording(provider: ReplayProvider, name: RecordingName): RecordedResponse {
  const body = readFileSync(new URL(`../recordings/${provider}/${name}.sse`, import.meta.url), 'utf8');
  const contentType = CONTENT_TYPES[provider];
  return { body, name: `${provider}/${name}.sse`, ...(contentType === undefined ? {} : { contentType }) };
}

/**
 * A recording with some of its SSE frames left out, for a documented variant of the same stream
 * (Claude's thinking with `display: "omitted"` streams no `thinking_delta`; a DeepSeek deployment
 * that signs nothing streams no `signature_delta`). `variant` names it in failure messages.
 */
export function withoutFrames(
  recorded: RecordedResponse,
  variant: string,
  drop: (event: Record<string, unknown>) => boolean,
): RecordedResponse {
  const frames = recorded.body.split(/(?<=\n\n)/).filter((frame) => {
    const line = frame.split('\n').find((candidate) => candidate.startsWith('data:'));
    if (line === undefined) return true;
    try {
      const event: unknown = JSON.parse(line.slice('data:'.length));
      return !(typeof event === 'object' && event !== null && drop(event as Record<string, unknown>));
    } catch {
      return true;
    }
  });
  return { ...recorded, body: frames.join(''), name: `${recorded.name ?? 'recording'} (${variant})` };
}

/** Whether an SSE event is a `content_block_delta` of the given delta type. */
export const isDelta =
  (type: string) =>
  (event: Record<string, unknown>): boolean =>
    event.type === 'content_block_delta' &&
    typeof event.delta === 'object' &&
    event.delta !== null &&
    (event.delta as Record<string, unknown>).type === type;

/**
 * The usage each recording reports, read off its usage frame with the provider's documented fields
 * (PROVIDER-RULES.md, "usage"): details only where the provider reports them, so a detail absent
 * here must be absent from the adapter's `TokenUsage`, not zero.
 */
export const RECORDED_USAGE: Record<ReplayProvider, Record<RecordingName, TokenUsage>> = {
  deepseek: {
    'query-order': { inputTokens: 339, outputTokens: 83, reasoningTokens: 39, cachedInputTokens: 320 },
    'query-two-orders': { inputTokens: 347, outputTokens: 121, reasoningTokens: 44, cachedInputTokens: 320 },
    'cancel-order': { inputTokens: 341, outputTokens: 86, reasoningTokens: 41, cachedInputTokens: 320 },
    answer: { inputTokens: 452, outputTokens: 57, reasoningTokens: 14, cachedInputTokens: 384 },
  },
  dashscope: {
    'query-order': { inputTokens: 295, outputTokens: 61, reasoningTokens: 38, cachedInputTokens: 0 },
    'query-two-orders': { inputTokens: 301, outputTokens: 97, reasoningTokens: 47, cachedInputTokens: 0 },
    'cancel-order': { inputTokens: 298, outputTokens: 64, reasoningTokens: 40, cachedInputTokens: 0 },
    answer: { inputTokens: 389, outputTokens: 52, reasoningTokens: 17, cachedInputTokens: 256 },
  },
  openai: {
    'query-order': { inputTokens: 145, outputTokens: 89, reasoningTokens: 64, cachedInputTokens: 0 },
    'query-two-orders': { inputTokens: 190, outputTokens: 379, reasoningTokens: 320, cachedInputTokens: 0 },
    'cancel-order': { inputTokens: 151, outputTokens: 93, reasoningTokens: 64, cachedInputTokens: 0 },
    answer: { inputTokens: 262, outputTokens: 25, reasoningTokens: 0, cachedInputTokens: 0 },
  },
  // Kimi reports cache hits as `usage.cached_tokens`, and no reasoning count.
  moonshot: {
    'query-order': { inputTokens: 146, outputTokens: 58, cachedInputTokens: 0 },
    'query-two-orders': { inputTokens: 152, outputTokens: 91, cachedInputTokens: 0 },
    'cancel-order': { inputTokens: 149, outputTokens: 60, cachedInputTokens: 0 },
    answer: { inputTokens: 231, outputTokens: 39, cachedInputTokens: 128 },
  },
  openrouter: {
    'query-order': { inputTokens: 125, outputTokens: 71, reasoningTokens: 42, cachedInputTokens: 64 },
    'query-two-orders': { inputTokens: 131, outputTokens: 97, reasoningTokens: 56, cachedInputTokens: 64 },
    'cancel-order': { inputTokens: 128, outputTokens: 74, reasoningTokens: 44, cachedInputTokens: 64 },
    answer: { inputTokens: 197, outputTokens: 80, reasoningTokens: 39, cachedInputTokens: 0 },
  },
  // vLLM, Ollama and llama.cpp report the two totals only.
  vllm: {
    'query-order': { inputTokens: 412, outputTokens: 47 },
    'query-two-orders': { inputTokens: 418, outputTokens: 79 },
    'cancel-order': { inputTokens: 415, outputTokens: 49 },
    answer: { inputTokens: 497, outputTokens: 38 },
  },
  ollama: {
    'query-order': { inputTokens: 283, outputTokens: 52 },
    'query-two-orders': { inputTokens: 289, outputTokens: 81 },
    'cancel-order': { inputTokens: 286, outputTokens: 55 },
    answer: { inputTokens: 371, outputTokens: 44 },
  },
  llamacpp: {
    'query-order': { inputTokens: 139, outputTokens: 42 },
    'query-two-orders': { inputTokens: 145, outputTokens: 71 },
    'cancel-order': { inputTokens: 142, outputTokens: 45 },
    answer: { inputTokens: 197, outputTokens: 18 },
  },
  // Anthropic's `input_tokens` leaves cache reads out: input = input_tokens + cache reads + cache writes.
  // DeepSeek's Anthropic format reports the same fields and no reasoning count.
  'deepseek-anthropic': {
    'query-order': { inputTokens: 339, outputTokens: 83, cachedInputTokens: 320 },
    'query-two-orders': { inputTokens: 347, outputTokens: 121, cachedInputTokens: 320 },
    'cancel-order': { inputTokens: 341, outputTokens: 86, cachedInputTokens: 320 },
    answer: { inputTokens: 452, outputTokens: 57, cachedInputTokens: 384 },
  },
  anthropic: {
    'query-order': { inputTokens: 424, outputTokens: 119, cachedInputTokens: 0 },
    'query-two-orders': { inputTokens: 502, outputTokens: 137, cachedInputTokens: 0 },
    'cancel-order': { inputTokens: 431, outputTokens: 121, cachedInputTokens: 0 },
    answer: { inputTokens: 558, outputTokens: 51, cachedInputTokens: 412 },
  },
};

/** The call ids each tool-calling recording streams, in call order: tool results must answer them. */
export const RECORDED_CALL_IDS: Record<
  ReplayProvider,
  Record<Exclude<RecordingName, 'answer'>, readonly string[]>
> = {
  deepseek: {
    'query-order': ['call_00_ioIn7yN9p1ZOMNpDLwd4MgAF'],
    'query-two-orders': ['call_00_ioIn7yN9p1ZOMNpDLwd4MgAF', 'call_01_Wm3kTq8ZrYb2Lx5NcVe7HsDu'],
    'cancel-order': ['call_00_ioIn7yN9p1ZOMNpDLwd4MgAF'],
  },
  dashscope: {
    'query-order': ['call_eee11723464a4b9eb8cee71d'],
    'query-two-orders': ['call_eee11723464a4b9eb8cee71d', 'call_5c0f2a9d8e7b4136a1d4e2f0'],
    'cancel-order': ['call_eee11723464a4b9eb8cee71d'],
  },
  openai: {
    'query-order': ['call_eKRQDHJdZUhEXo1K1cobzFrl'],
    'query-two-orders': ['call_8ElDxJj6u7IUDEwQIrwFbveM', 'call_HEZOX3JzspqFubADMNdWn12E'],
    'cancel-order': ['call_Q3nV8xLk2PzR7wYt5MbJ9cHd'],
  },
  moonshot: {
    'query-order': ['functions.query_order:0'],
    'query-two-orders': ['functions.query_order:0', 'functions.query_order:1'],
    'cancel-order': ['functions.cancel_order:0'],
  },
  openrouter: {
    'query-order': ['functions.query_order:0'],
    'query-two-orders': ['functions.query_order:0', 'functions.query_order:1'],
    'cancel-order': ['functions.cancel_order:0'],
  },
  vllm: {
    'query-order': ['chatcmpl-tool-ca99dda515524c6abe47d1ea22813507'],
    'query-two-orders': [
      'chatcmpl-tool-ca99dda515524c6abe47d1ea22813507',
      'chatcmpl-tool-4f1e9b2a7c3d40e8a6b5d1c0e9f7a283',
    ],
    'cancel-order': ['chatcmpl-tool-ca99dda515524c6abe47d1ea22813507'],
  },
  // Both of Ollama's calls arrive at `index: 0`; only their ids tell them apart.
  ollama: {
    'query-order': ['call_809l7n8f'],
    'query-two-orders': ['call_809l7n8f', 'call_oqp1e2a1'],
    'cancel-order': ['call_809l7n8f'],
  },
  llamacpp: {
    'query-order': ['1wNpqrejg1FCTjf6xq8JRCGKgWZO74AL'],
    'query-two-orders': ['1wNpqrejg1FCTjf6xq8JRCGKgWZO74AL', 'Zq8RtY3mVb6Kc1NxWe4LhGf9Ds2PaJ7u'],
    'cancel-order': ['1wNpqrejg1FCTjf6xq8JRCGKgWZO74AL'],
  },
  'deepseek-anthropic': {
    'query-order': ['call_00_ioIn7yN9p1ZOMNpDLwd4MgAF'],
    'query-two-orders': ['call_00_ioIn7yN9p1ZOMNpDLwd4MgAF', 'call_01_Wm3kTq8ZrYb2Lx5NcVe7HsDu'],
    'cancel-order': ['call_00_ioIn7yN9p1ZOMNpDLwd4MgAF'],
  },
  anthropic: {
    'query-order': ['toolu_01Js4AMfx5qpTLhwTusnvT68'],
    'query-two-orders': ['toolu_01UYxUYC2zRPY8wiutnF48eP', 'toolu_01VaRx1jpWCvPhi7L4kywAcd'],
    'cancel-order': ['toolu_01Fz6GmT9xKe4NqP1rBw8JcY'],
  },
};

/** The signature a recorded Messages stream gives its first thinking block (`signature_delta`). */
export function signatureOf(recorded: RecordedResponse): string | undefined {
  return /"signature_delta","signature":"([^"]+)"/.exec(recorded.body)?.[1];
}
