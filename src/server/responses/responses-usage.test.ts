import OpenAI from 'openai';
import type { FunctionTool } from 'openai/resources/responses/responses';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ChatRequest,
  ScriptedChatModel,
  type TokenUsage,
  textTurn,
  toolCallTurn,
} from '../../models/index.ts';
import { TEST_TOKEN, type TestServer } from '../test-support/start-test-server.ts';
import {
  lastResponse,
  READ_FILE_TOOL,
  type ResponsesApi,
  readEvents,
  startResponsesServer,
} from './test-support/responses-http.ts';

/**
 * Token usage on the Responses face, against a real server: OpenAI's `usage` on each response (read
 * by the official `openai` package in the plain shape), `runstream.step.finished` per model call in
 * the extension shape, the same after a restart, and `null` when the model reported nothing.
 */

let server: TestServer | undefined;
let api: ResponsesApi;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

const READ: TokenUsage = { inputTokens: 900, outputTokens: 40, reasoningTokens: 25, cachedInputTokens: 768 };
const ANSWER: TokenUsage = { inputTokens: 1000, outputTokens: 30 };
const NOTES = 'Buy milk.';

const READ_FILE: FunctionTool = {
  ...READ_FILE_TOOL,
  parameters: { ...READ_FILE_TOOL.parameters },
  strict: false,
};

function toolOutput(request: ChatRequest): string {
  const message = request.messages.find((candidate) => candidate.role === 'tool');
  return message?.content ?? '(nothing)';
}

function model(usage: { read?: TokenUsage; answer?: TokenUsage } = { read: READ, answer: ANSWER }) {
  return new ScriptedChatModel([
    toolCallTurn([{ name: 'read_file', arguments: { path: 'notes.txt' }, id: 'call_usage' }], {
      reasoning: 'The host can read it.',
      ...(usage.read === undefined ? {} : { usage: usage.read }),
    }),
    (request) =>
      textTurn(`It says: ${toolOutput(request)}`, usage.answer === undefined ? {} : { usage: usage.answer }),
  ]);
}

/** OpenAI's shape of a usage: the details its type requires, 0 where the provider said nothing. */
function openAiUsage(usage: TokenUsage): OpenAI.Responses.ResponseUsage {
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: usage.cachedInputTokens ?? 0 },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
    total_tokens: usage.inputTokens + usage.outputTokens,
  } as OpenAI.Responses.ResponseUsage;
}

async function sdkClient(scripted: ScriptedChatModel): Promise<OpenAI> {
  ({ server, api } = await startResponsesServer(scripted));
  return new OpenAI({ baseURL: `${api.baseUrl}/v1`, apiKey: TEST_TOKEN, maxRetries: 0 });
}

describe('usage on the Responses face', () => {
  it('gives each plain response the usage of its own model calls, as the openai package reads it', async () => {
    const client = await sdkClient(model());
    const waiting = await client.responses
      .stream({ input: 'read notes.txt', tools: [READ_FILE] })
      .finalResponse();
    expect(waiting.usage).toEqual(openAiUsage(READ));
    expect((await client.responses.retrieve(waiting.id)).usage).toEqual(openAiUsage(READ));

    const answered = await client.responses
      .stream({
        previous_response_id: waiting.id,
        input: [{ type: 'function_call_output', call_id: 'call_usage', output: NOTES }],
        tools: [READ_FILE],
      })
      .finalResponse();
    expect(answered.output_text).toBe(`It says: ${NOTES}`);
    // Its own call only: a reader of the chain sums the responses, as with OpenAI's.
    expect(answered.usage).toEqual(openAiUsage(ANSWER));
    expect((await client.responses.retrieve(answered.id)).usage).toEqual(openAiUsage(ANSWER));
  });

  it('carries the run total in the extension shape, each call on runstream.step.finished, across a restart', async () => {
    ({ server, api } = await startResponsesServer(model()));
    const first = await readEvents(
      await api.create({ input: 'read notes.txt', tools: [READ_FILE_TOOL], stream: true }),
    );
    expect(first.find((event) => event.type === 'runstream.step.finished')).toMatchObject({
      step: 1,
      finish_reason: 'tool_calls',
      usage: {
        input_tokens: 900,
        input_tokens_details: { cached_tokens: 768 },
        output_tokens: 40,
        output_tokens_details: { reasoning_tokens: 25 },
        total_tokens: 940,
      },
    });
    const waiting = lastResponse(first);
    expect(waiting).toMatchObject({ status: 'requires_action', usage: openAiUsage(READ) });

    // A restart: the response is rebuilt from the persisted message, usage included.
    const testServer = server as TestServer;
    await testServer.server.close();
    const restarted = api.at((await testServer.restart()).url);
    expect(await restarted.get(waiting.id)).toEqual(waiting);

    const second = await readEvents(
      await restarted.submit(waiting.id, [{ call_id: 'call_usage', output: NOTES }]),
    );
    expect(second.find((event) => event.type === 'runstream.step.finished')).toEqual({
      type: 'runstream.step.finished',
      sequence_number: expect.any(Number),
      step: 2,
      finish_reason: 'stop',
      // No detail the provider did not report.
      usage: { input_tokens: 1000, output_tokens: 30, total_tokens: 1030 },
    });
    const total = {
      inputTokens: 1900,
      outputTokens: 70,
      reasoningTokens: 25,
      cachedInputTokens: 768,
    };
    expect(lastResponse(second)).toMatchObject({ status: 'completed', usage: openAiUsage(total) });
    expect((await restarted.get(waiting.id)).usage).toEqual(openAiUsage(total));
  });

  it('reports usage null, in both shapes, when the model reported none', async () => {
    const client = await sdkClient(model({}));
    const waiting = await client.responses.create({
      input: 'read notes.txt',
      tools: [READ_FILE],
    });
    expect(waiting.usage).toBeNull();
    const extension = await api.get(waiting.id);
    expect(extension.usage).toBeNull();
    const answered = await client.responses.create({
      previous_response_id: waiting.id,
      input: [{ type: 'function_call_output', call_id: 'call_usage', output: NOTES }],
    });
    expect(answered).toMatchObject({ status: 'completed', usage: null });
    expect((await api.get(waiting.id)).usage).toBeNull();
  });
});
