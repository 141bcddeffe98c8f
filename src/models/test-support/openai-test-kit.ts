import { afterEach, expect } from 'vitest';
import { type ChatRequest, type ChatStreamPart, ModelError } from '../chat-model.ts';
import { OpenAiChatModel, type OpenAiChatModelOptions } from '../openai-chat-model.ts';
import {
  chunkFrame,
  type FakeChatCompletionsServer,
  type Responder,
  startFakeChatCompletionsServer,
} from './fake-chat-completions-server.ts';

/** Shared by the model tests: a fake server per test, a model pointed at it, and stream collectors. */

export const API_KEY = 'sk-test-4f1c9a7e2b6d8e0f3a5c';
export const ROLE_FRAME = chunkFrame({ role: 'assistant', content: '' });
export const HELLO: ChatRequest = { messages: [{ role: 'user', content: 'Hello' }] };

/** Registers an `afterEach` that closes the server `start` opened; call it at a test file's top. */
export function fakeServerPerTest(): (...responders: Responder[]) => Promise<FakeChatCompletionsServer> {
  let server: FakeChatCompletionsServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  return async (...responders) => {
    server = await startFakeChatCompletionsServer(responders);
    return server;
  };
}

export function modelFor(running: FakeChatCompletionsServer, options: Partial<OpenAiChatModelOptions> = {}) {
  // Short, deterministic backoff: these tests check behaviour, not timing.
  return new OpenAiChatModel({
    baseUrl: running.baseUrl,
    apiKey: API_KEY,
    model: 'fake-model',
    initialDelayMs: 5,
    random: () => 0.5,
    ...options,
  });
}

export async function collect(parts: AsyncIterable<ChatStreamPart>): Promise<ChatStreamPart[]> {
  const collected: ChatStreamPart[] = [];
  for await (const part of parts) collected.push(part);
  return collected;
}

/** The parts delivered before the stream failed, and what it failed with. */
export async function collectFailure(
  parts: AsyncIterable<ChatStreamPart>,
): Promise<{ parts: ChatStreamPart[]; error: unknown }> {
  const collected: ChatStreamPart[] = [];
  try {
    for await (const part of parts) collected.push(part);
  } catch (error) {
    return { parts: collected, error };
  }
  throw new Error(`the stream did not fail; it delivered ${JSON.stringify(collected)}`);
}

export function modelError(error: unknown): ModelError {
  expect(error).toBeInstanceOf(ModelError);
  return error as ModelError;
}

/** `{"a":1}` → `['{', '"a', '":1', '}']`: pieces of 1 to 3 characters, as slow providers send them. */
export function fragments(text: string): string[] {
  const characters = Array.from(text);
  const pieces: string[] = [];
  for (let start = 0, size = 1; start < characters.length; start += size, size = (size % 3) + 1) {
    pieces.push(characters.slice(start, start + size).join(''));
  }
  return pieces;
}

/** The argument deltas of the call at `index`, joined. */
export function argumentsOf(parts: readonly ChatStreamPart[], index: number): string {
  return parts
    .filter((part) => part.type === 'tool-call-delta' && part.index === index)
    .map((part) => (part.type === 'tool-call-delta' ? part.argumentsDelta : ''))
    .join('');
}
