import { AnthropicMessagesModel, type AnthropicMessagesModelOptions } from '../anthropic-messages-model.ts';
import type { ChatMessage, ChatStreamPart, ReasoningPart, ToolCallRequest } from '../chat-model.ts';
import { framesOf } from './anthropic-recordings.ts';
import {
  type FakeChatCompletionsServer,
  jsonResponse,
  type Responder,
  type SseOptions,
  sse,
} from './fake-chat-completions-server.ts';

/**
 * The fake Anthropic server: the shared `node:http` fake answering with recorded Messages streams
 * and Anthropic's error bodies, and a model pointed at it the way a user configures one.
 */

export const ANTHROPIC_API_KEY = 'sk-ant-api03-test-7Hq2xVb9Lm4Kd8Rt';

/** A 200 `text/event-stream` replaying a recording frame by frame. */
export function anthropicStream(recording: string, options: SseOptions = {}): Responder {
  return sse(framesOf(recording), options);
}

/**
 * An error answer in Anthropic's shape (https://platform.claude.com/docs/en/api/errors, "Error
 * shapes"): `{"type":"error","error":{"type","message"},"request_id"}`.
 */
export function anthropicError(
  status: number,
  type: string,
  message: string,
  headers: Record<string, string> = {},
): Responder {
  return jsonResponse(
    status,
    { type: 'error', error: { type, message }, request_id: 'req_011CSHoEeqs5C35K2UUqR7Fy' },
    { 'request-id': 'req_011CSHoEeqs5C35K2UUqR7Fy', ...headers },
  );
}

/** The model a user would configure: the server's root as `baseUrl` (the adapter adds `/v1/messages`). */
export function anthropicModelFor(
  running: FakeChatCompletionsServer,
  options: Partial<AnthropicMessagesModelOptions> = {},
): AnthropicMessagesModel {
  return new AnthropicMessagesModel({
    baseUrl: running.baseUrl.replace(/\/v1$/, ''),
    apiKey: ANTHROPIC_API_KEY,
    model: 'claude-sonnet-4-5',
    // Short, deterministic backoff: these tests check behaviour, not timing.
    initialDelayMs: 5,
    random: () => 0.5,
    ...options,
  });
}

/** The JSON body of a recorded request. */
export function bodyOf(running: FakeChatCompletionsServer, request: number): Record<string, unknown> {
  const recorded = running.requests[request];
  if (recorded === undefined) throw new Error(`no request ${request} was made`);
  return JSON.parse(recorded.body) as Record<string, unknown>;
}

/**
 * The assistant message a turn adds to the transcript, following the `ChatStreamPart` contract the
 * runtime implements: a `reasoning-signature` closes the reasoning since the previous one as one
 * signed piece, a `reasoning-redacted` is a piece of its own, and calls are kept in index order.
 */
export function assistantMessageOf(
  parts: readonly ChatStreamPart[],
): Extract<ChatMessage, { role: 'assistant' }> {
  let text = '';
  let reasoning = '';
  let unsigned = '';
  const reasoningParts: ReasoningPart[] = [];
  const calls: (ToolCallRequest & { index: number })[] = [];
  for (const part of parts) {
    if (part.type === 'text-delta') text += part.text;
    if (part.type === 'reasoning-delta') {
      reasoning += part.text;
      unsigned += part.text;
    }
    if (part.type === 'reasoning-signature') {
      reasoningParts.push({ type: 'text', text: unsigned, signature: part.signature });
      unsigned = '';
    }
    if (part.type === 'reasoning-redacted') {
      if (unsigned !== '') reasoningParts.push({ type: 'text', text: unsigned });
      unsigned = '';
      reasoningParts.push({ type: 'redacted', data: part.data });
    }
    if (part.type === 'tool-call-end') {
      calls.push({ index: part.index, id: part.id, name: part.name, arguments: part.arguments });
    }
  }
  if (reasoningParts.length > 0 && unsigned !== '') reasoningParts.push({ type: 'text', text: unsigned });
  calls.sort((first, second) => first.index - second.index);
  return {
    role: 'assistant',
    content: text,
    ...(reasoning === '' ? {} : { reasoning }),
    ...(reasoningParts.length === 0 ? {} : { reasoningParts }),
    ...(calls.length === 0
      ? {}
      : {
          toolCalls: calls.map(({ id, name, arguments: argumentsText }) => ({
            id,
            name,
            arguments: argumentsText,
          })),
        }),
  };
}
