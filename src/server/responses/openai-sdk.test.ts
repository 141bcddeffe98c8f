import OpenAI from 'openai';
import { accumulateResponse } from 'openai/lib/responses/ResponseAccumulator';
import type { FunctionTool } from 'openai/resources/responses/responses';
import { afterEach, describe, expect, it } from 'vitest';
import { type ChatRequest, ScriptedChatModel, textTurn, toolCallTurn } from '../../models/index.ts';
import { TEST_TOKEN, type TestServer } from '../test-support/start-test-server.ts';
import { startResponsesServer } from './test-support/responses-http.ts';

/** The official `openai` package (6.x, Node 20), pointed at runstream's Responses API. */

let server: TestServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

const READ_FILE: FunctionTool = {
  type: 'function',
  name: 'read_file',
  description: 'Read a text file from the local disk',
  parameters: {
    type: 'object',
    properties: { path: { type: 'string' } },
    required: ['path'],
    additionalProperties: false,
  },
  strict: false,
};

const NOTES = 'Buy milk.\nCall Alice at 3pm.';

function toolOutput(request: ChatRequest, toolCallId: string): string {
  const message = request.messages.find(
    (candidate) => candidate.role === 'tool' && candidate.toolCallId === toolCallId,
  );
  return message?.content ?? '(nothing)';
}

async function clientFor(model: ScriptedChatModel): Promise<OpenAI> {
  let url: string;
  ({
    server,
    api: { baseUrl: url },
  } = await startResponsesServer(model));
  return new OpenAI({ baseURL: `${url}/v1`, apiKey: TEST_TOKEN, maxRetries: 0 });
}

describe('the openai npm package against /v1/responses', () => {
  it('streams a function call with responses.create({ stream: true }) and answers it via previous_response_id', async () => {
    const client = await clientFor(
      new ScriptedChatModel([
        toolCallTurn([{ name: 'read_file', arguments: { path: 'notes.txt' }, id: 'call_sdk' }], {
          reasoning: 'The host can read files.',
          chunkSize: 3,
        }),
        (request) => textTurn(`The notes: ${toolOutput(request, 'call_sdk')}`, { chunkSize: 4 }),
      ]),
    );

    const first = await client.responses.create({
      model: 'x',
      input: 'read notes.txt',
      tools: [READ_FILE],
      stream: true,
    });
    const types: string[] = [];
    let responseId = '';
    let call: { call_id: string; name: string; arguments: string } | undefined;
    for await (const event of first) {
      types.push(event.type);
      if (event.type === 'response.created') responseId = event.response.id;
      if (event.type === 'response.output_item.done' && event.item.type === 'function_call')
        call = event.item;
    }
    expect(types[0]).toBe('response.created');
    expect(types).toContain('response.reasoning_text.delta');
    expect(types).toContain('response.function_call_arguments.delta');
    expect(types.at(-1)).toBe('response.requires_action');
    expect(call).toMatchObject({ call_id: 'call_sdk', name: 'read_file', arguments: '{"path":"notes.txt"}' });

    const second = await client.responses.create({
      model: 'x',
      previous_response_id: responseId,
      input: [{ type: 'function_call_output', call_id: call?.call_id ?? '', output: NOTES }],
      stream: true,
    });
    const resumedTypes: string[] = [];
    let text = '';
    let completed: OpenAI.Responses.Response | undefined;
    for await (const event of second) {
      resumedTypes.push(event.type);
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.completed') completed = event.response;
    }
    expect(resumedTypes[0]).toBe('response.resumed');
    expect(resumedTypes.at(-1)).toBe('response.completed');
    expect(text).toBe(`The notes: ${NOTES}`);
    expect(completed?.status).toBe('completed');

    const retrieved = await client.responses.retrieve(responseId);
    expect(retrieved).toMatchObject({ id: responseId, status: 'completed', output_text: text });

    // The SDK's own resume: retrieve with stream and starting_after.
    const replay = await client.responses.retrieve(responseId, { stream: true, starting_after: 3 });
    const sequence: number[] = [];
    for await (const event of replay) sequence.push(event.sequence_number);
    expect(sequence[0]).toBe(4);
    expect(sequence).toEqual(sequence.map((_, index) => 4 + index));
    expect(sequence.length).toBe(types.length + resumedTypes.length - 4);
  });

  it('creates without streaming: output_text is the answer, and retrieve returns the same', async () => {
    const client = await clientFor(
      new ScriptedChatModel([
        toolCallTurn([{ name: 'read_file', arguments: { path: 'notes.txt' }, id: 'call_plain' }]),
        (request) => textTurn(`The notes: ${toolOutput(request, 'call_plain')}`),
      ]),
    );
    const waiting = await client.responses.create({
      model: 'x',
      input: 'read notes.txt',
      tools: [READ_FILE],
    });
    expect(waiting.status).toBe('requires_action');
    expect(waiting.output_text).toBe('');
    const call = waiting.output.find((item) => item.type === 'function_call');
    expect(call).toMatchObject({ call_id: 'call_plain', name: 'read_file' });

    const answered = await client.responses.create({
      model: 'x',
      previous_response_id: waiting.id,
      input: [{ type: 'function_call_output', call_id: 'call_plain', output: NOTES }],
    });
    expect(answered.status).toBe('completed');
    expect(answered.output_text).toBe(`The notes: ${NOTES}`);

    const retrieved = await client.responses.retrieve(waiting.id);
    expect(retrieved.output_text).toBe(answered.output_text);
    expect(retrieved.output).toEqual(answered.output);
  });

  it("folds a plain answer with the SDK's responses.stream() helper", async () => {
    const client = await clientFor(
      new ScriptedChatModel([
        textTurn('Hello from runstream.', { chunkSize: 5, reasoning: 'Say hello.' }),
        textTurn('Hello from runstream.', { chunkSize: 5 }),
      ]),
    );
    // Event by event, the SDK's fold holds each text item with exactly one content part.
    let snapshot: OpenAI.Responses.Response | undefined;
    for await (const event of await client.responses.create({ model: 'x', input: 'hi', stream: true })) {
      snapshot = accumulateResponse(event, snapshot);
      if (event.type === 'response.output_text.done' || event.type === 'response.reasoning_text.done')
        expect(snapshot.output[event.output_index]).toMatchObject({ content: [{ text: event.text }] });
    }
    expect(snapshot?.output.map((item) => item.type)).toEqual(['reasoning', 'message']);

    const stream = client.responses.stream({ model: 'x', input: 'say hello' });
    const deltas: string[] = [];
    stream.on('response.output_text.delta', (event) => deltas.push(event.delta));
    const final = await stream.finalResponse();
    expect(deltas.join('')).toBe('Hello from runstream.');
    expect(final.output_text).toBe('Hello from runstream.');
    expect(final.output).toHaveLength(1);
    expect(final.output[0]).toMatchObject({
      type: 'message',
      content: [{ type: 'output_text', text: 'Hello from runstream.' }],
    });
  });

  it('reports an API error as the SDK error class with the status', async () => {
    const client = await clientFor(new ScriptedChatModel([]));
    await expect(client.responses.retrieve('run_nope')).rejects.toMatchObject({ status: 404 });
    const anonymous = new OpenAI({ baseURL: client.baseURL, apiKey: 'wrong', maxRetries: 0 });
    await expect(anonymous.responses.retrieve('run_nope')).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
  });
});
