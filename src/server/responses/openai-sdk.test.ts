import OpenAI from 'openai';
import { accumulateResponse } from 'openai/lib/responses/ResponseAccumulator';
import type { FunctionTool } from 'openai/resources/responses/responses';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ChatModel,
  type ChatRequest,
  ScriptedChatModel,
  textTurn,
  toolCallTurn,
} from '../../models/index.ts';
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

async function clientFor(model?: ChatModel, defaultHeaders: Record<string, string> = {}): Promise<OpenAI> {
  let url: string;
  ({
    server,
    api: { baseUrl: url },
  } = await startResponsesServer(model));
  return new OpenAI({ baseURL: `${url}/v1`, apiKey: TEST_TOKEN, maxRetries: 0, defaultHeaders });
}

/** Folds every event with the SDK's own accumulator, which throws on any event type it does not know. */
function fold(events: readonly OpenAI.Responses.ResponseStreamEvent[]): OpenAI.Responses.Response {
  let snapshot: OpenAI.Responses.Response | undefined;
  for (const event of events) snapshot = accumulateResponse(event, snapshot);
  if (snapshot === undefined) throw new Error('no events');
  return snapshot;
}

async function collect(
  stream: AsyncIterable<OpenAI.Responses.ResponseStreamEvent>,
): Promise<OpenAI.Responses.ResponseStreamEvent[]> {
  const events: OpenAI.Responses.ResponseStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

const readNotesModel = () =>
  new ScriptedChatModel([
    toolCallTurn([{ name: 'read_file', arguments: { path: 'notes.txt' }, id: 'call_sdk' }], {
      reasoning: 'The host can read files.',
      text: 'Let me read it.',
      chunkSize: 3,
    }),
    (request) => textTurn(`The notes: ${toolOutput(request, 'call_sdk')}`, { chunkSize: 4 }),
  ]);

describe('the openai npm package against /v1/responses (plain shape)', () => {
  it('responses.stream(): a function call ends the response completed, the output continues it as a new response', async () => {
    const client = await clientFor(readNotesModel());

    const first = client.responses.stream({ input: 'read notes.txt', tools: [READ_FILE] });
    const argumentDeltas: string[] = [];
    first.on('response.function_call_arguments.delta', (event) => argumentDeltas.push(event.delta));
    const waiting = await first.finalResponse();
    expect(waiting.status).toBe('completed');
    expect(waiting.output.map((item) => item.type)).toEqual(['reasoning', 'message', 'function_call']);
    expect(waiting.output_text).toBe('Let me read it.');
    const call = waiting.output.find((item) => item.type === 'function_call');
    expect(call).toMatchObject({ call_id: 'call_sdk', name: 'read_file', arguments: '{"path":"notes.txt"}' });
    expect(argumentDeltas.join('')).toBe('{"path":"notes.txt"}');

    const second = client.responses.stream({
      previous_response_id: waiting.id,
      input: [{ type: 'function_call_output', call_id: 'call_sdk', output: NOTES }],
      tools: [READ_FILE],
    });
    const textDeltas: string[] = [];
    second.on('response.output_text.delta', (event) => textDeltas.push(event.delta));
    const answered = await second.finalResponse();
    expect(answered.id).not.toBe(waiting.id);
    expect(answered.previous_response_id).toBe(waiting.id);
    expect(answered.status).toBe('completed');
    // Only what is new: the answer, not the call again (a client would run it twice).
    expect(answered.output.map((item) => item.type)).toEqual(['message']);
    expect(answered.output_text).toBe(`The notes: ${NOTES}`);
    expect(textDeltas.join('')).toBe(`The notes: ${NOTES}`);

    // Both are responses of their own: retrieve, and the SDK's resume by response_id.
    expect(await client.responses.retrieve(waiting.id)).toMatchObject({
      status: 'completed',
      output_text: 'Let me read it.',
    });
    expect(await client.responses.retrieve(answered.id)).toMatchObject({
      id: answered.id,
      output_text: answered.output_text,
    });
    const replayed = await client.responses
      .stream({ response_id: answered.id, starting_after: 2 })
      .finalResponse();
    expect(replayed.output).toEqual(answered.output);
  });

  it('responses.create({ stream: true }): every event folds; a stateless history answers the call', async () => {
    const client = await clientFor(readNotesModel());
    const firstEvents = await collect(
      await client.responses.create({
        input: 'read notes.txt',
        tools: [READ_FILE],
        stream: true,
      }),
    );
    expect(firstEvents.map((event) => event.sequence_number)).toEqual(firstEvents.map((_, index) => index));
    expect(firstEvents[0]?.type).toBe('response.created');
    expect(firstEvents.at(-1)?.type).toBe('response.completed');
    const waiting = fold(firstEvents);
    expect(waiting.output.at(-1)).toMatchObject({ type: 'function_call', call_id: 'call_sdk' });

    // As the Agents SDK sends it: the whole history, no previous_response_id, store: false.
    const history: OpenAI.Responses.ResponseInputItem[] = [
      { role: 'user', content: 'read notes.txt' },
      ...(waiting.output as OpenAI.Responses.ResponseInputItem[]),
      { type: 'function_call_output', call_id: 'call_sdk', output: NOTES },
    ];
    const secondEvents = await collect(
      await client.responses.create({
        input: history,
        tools: [READ_FILE],
        store: false,
        stream: true,
      }),
    );
    expect(secondEvents[0]?.type).toBe('response.created');
    const answered = fold(secondEvents);
    expect(answered).toMatchObject({ status: 'completed', output_text: `The notes: ${NOTES}` });
    expect(answered.previous_response_id).toBe(waiting.id);

    // The SDK's resume of a stream: retrieve with stream and starting_after.
    const replay = await collect(
      await client.responses.retrieve(answered.id, { stream: true, starting_after: 3 }),
    );
    expect(replay.map((event) => event.sequence_number)).toEqual(
      secondEvents.slice(4).map((event) => event.sequence_number),
    );
  });

  it('creates without streaming: the call, then the answer as a new response; retrieve returns each', async () => {
    const client = await clientFor(
      new ScriptedChatModel([
        toolCallTurn([{ name: 'read_file', arguments: { path: 'notes.txt' }, id: 'call_plain' }]),
        (request) => textTurn(`The notes: ${toolOutput(request, 'call_plain')}`),
      ]),
    );
    const waiting = await client.responses.create({
      input: 'read notes.txt',
      tools: [READ_FILE],
    });
    expect(waiting.status).toBe('completed');
    expect(waiting.output_text).toBe('');
    expect(waiting.output).toEqual([
      expect.objectContaining({ type: 'function_call', call_id: 'call_plain' }),
    ]);

    const answered = await client.responses.create({
      previous_response_id: waiting.id,
      input: [{ type: 'function_call_output', call_id: 'call_plain', output: NOTES }],
    });
    expect(answered).toMatchObject({ status: 'completed', output_text: `The notes: ${NOTES}` });
    expect((await client.responses.retrieve(answered.id)).output).toEqual(answered.output);
    expect((await client.responses.retrieve(waiting.id)).output).toEqual(waiting.output);
  });

  it('shows a server tool as an mcp_call and a confirmation as an mcp_approval_request, approved with mcp_approval_response', async () => {
    // The offline NovaShop model: it looks the order up (a server read) and asks to cancel it (a write).
    const client = await clientFor();
    const first = client.responses.stream({
      input: '我买的那块表还没发货的话，帮我取消吧，不想要了。',
    });
    const waiting = await first.finalResponse();
    expect(waiting.status).toBe('completed');
    const lookup = waiting.output.find((item) => item.type === 'mcp_call' && item.name === 'query_order');
    expect(lookup).toMatchObject({ server_label: 'runstream', name: 'query_order', error: null });
    expect(lookup?.type === 'mcp_call' ? lookup.output : '').toContain('88235');
    const request = waiting.output.at(-1);
    expect(request).toMatchObject({
      type: 'mcp_approval_request',
      server_label: 'runstream',
      name: 'cancel_order',
      arguments: '{"orderId":"88235"}',
    });

    // Approved statelessly: the approval names the request, nothing else is needed.
    const second = client.responses.stream({
      input: [{ type: 'mcp_approval_response', approval_request_id: request?.id ?? '', approve: true }],
    });
    const approved = await second.finalResponse();
    expect(approved.previous_response_id).toBe(waiting.id);
    expect(approved.status).toBe('completed');
    expect(approved.output[0]).toMatchObject({
      type: 'mcp_call',
      name: 'cancel_order',
      status: 'completed',
      approval_request_id: request?.id,
      error: null,
    });
    expect(approved.output_text).not.toBe('');
  });

  it('cancels a response while it streams: the helper ends with status cancelled (response.incomplete)', async () => {
    // A model that writes one word, then waits until the run is stopped.
    const model: ChatModel = {
      name: 'waits',
      async *stream(request) {
        yield { type: 'text-delta', text: 'Thinking about it' };
        await new Promise((resolve) => request.signal?.addEventListener('abort', resolve, { once: true }));
        request.signal?.throwIfAborted();
      },
    };
    const client = await clientFor(model);
    const stream = client.responses.stream({ input: 'take your time' });
    let id = '';
    stream.on('response.created', (event) => {
      id = event.response.id;
    });
    stream.on('response.output_text.delta', () => void client.responses.cancel(id));
    const final = await stream.finalResponse();
    expect(final).toMatchObject({ id, status: 'cancelled', output_text: 'Thinking about it' });
    expect(await client.responses.retrieve(id)).toMatchObject({ status: 'cancelled' });
  });

  it('still gives the extension events to a client that asks with x-runstream-extensions: 1', async () => {
    const client = await clientFor(readNotesModel(), { 'x-runstream-extensions': '1' });
    const events = await collect(
      await client.responses.create({
        input: 'read notes.txt',
        tools: [READ_FILE],
        stream: true,
      }),
    );
    const types = events.map((event) => event.type as string);
    expect(types.at(-1)).toBe('response.requires_action');
    const id = (events[0] as OpenAI.Responses.ResponseCreatedEvent).response.id;
    const resumed = await collect(
      await client.responses.create({
        previous_response_id: id,
        input: [{ type: 'function_call_output', call_id: 'call_sdk', output: NOTES }],
        stream: true,
      }),
    );
    expect(resumed[0]?.type as string).toBe('response.resumed');
    expect(resumed[0]?.sequence_number).toBe(events.length);
    expect((await client.responses.retrieve(id)).output.map((item) => item.type)).toEqual([
      'reasoning',
      'message',
      'function_call',
      'message',
    ]);
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
    for await (const event of await client.responses.create({ input: 'hi', stream: true })) {
      snapshot = accumulateResponse(event, snapshot);
      if (event.type === 'response.output_text.done' || event.type === 'response.reasoning_text.done')
        expect(snapshot.output[event.output_index]).toMatchObject({ content: [{ text: event.text }] });
    }
    expect(snapshot?.output.map((item) => item.type)).toEqual(['reasoning', 'message']);

    const stream = client.responses.stream({ input: 'say hello' });
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
