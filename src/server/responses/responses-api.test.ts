import { afterEach, describe, expect, it } from 'vitest';
import {
  type ChatRequest,
  ScriptedChatModel,
  type ScriptedTurnInput,
  textTurn,
  toolCallTurn,
} from '../../models/index.ts';
import type { TestServer } from '../test-support/start-test-server.ts';
import type { ResponseObject } from './response-object.ts';
import type { ResponsesStreamEvent } from './responses-event-mapper.ts';
import {
  addUser,
  LOCAL_TIME_TOOL,
  lastResponse,
  parseSse,
  READ_FILE_TOOL,
  type ResponsesApi,
  readEvents,
  readFrames,
  readNdjson,
  responseOf,
  startResponsesServer,
  typesOf,
} from './test-support/responses-http.ts';

let server: TestServer | undefined;
let api: ResponsesApi;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(turns?: ScriptedTurnInput[]): Promise<ScriptedChatModel | undefined> {
  const model = turns === undefined ? undefined : new ScriptedChatModel(turns);
  ({ server, api } = await startResponsesServer(model));
  return model;
}

/** What the model was told a tool returned. */
function toolOutput(request: ChatRequest, toolCallId: string): string {
  const message = request.messages.find(
    (candidate) => candidate.role === 'tool' && candidate.toolCallId === toolCallId,
  );
  return message?.content ?? '(nothing)';
}

const NOTES = 'Buy milk.\nCall Alice at 3pm.';
const READ_NOTES = toolCallTurn([{ name: 'read_file', arguments: { path: 'notes.txt' }, id: 'call_read' }], {
  chunkSize: 4,
});
const QUOTE_NOTES: ScriptedTurnInput = (request) =>
  textTurn(`notes.txt says: ${toolOutput(request, 'call_read')}`, { chunkSize: 5 });

function expectContiguous(events: readonly ResponsesStreamEvent[], from: number): void {
  expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => from + index));
}

/** The events a text answer streams, from its item's start to `response.completed`. */
function answerTypes(events: readonly ResponsesStreamEvent[]): string[] {
  const deltas = events.filter((event) => event.type === 'response.output_text.delta').length;
  return [
    'response.output_item.added',
    'response.content_part.added',
    ...Array.from({ length: deltas }, () => 'response.output_text.delta'),
    'response.output_text.done',
    'response.content_part.done',
    'response.output_item.done',
    'runstream.step.finished',
    'response.completed',
  ];
}

describe('POST /v1/responses with a host tool (scripted model)', () => {
  it('streams the call, ends in requires_action, and resumes the same response with the host output', async () => {
    const model = await start([READ_NOTES, QUOTE_NOTES]);
    const frames = await api.createStream({ input: 'read notes.txt', tools: [READ_FILE_TOOL] });
    const first = frames.map((frame) => frame.data);
    for (const frame of frames) {
      expect(frame.id).toBe(String(frame.data.sequence_number));
      expect(frame.event).toBe(frame.data.type);
    }
    expectContiguous(first, 0);
    const deltas = first.filter((event) => event.type === 'response.function_call_arguments.delta');
    expect(deltas.length).toBeGreaterThan(1);
    expect(typesOf(first)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      ...deltas.map(() => 'response.function_call_arguments.delta'),
      // The model call ended; the call is done for the host once its arguments are validated.
      'runstream.step.finished',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.requires_action',
    ]);
    const id = responseOf(first[0]).id;
    expect(responseOf(first[0])).toMatchObject({ object: 'response', status: 'in_progress', output: [] });
    expect(first[2]).toMatchObject({
      output_index: 0,
      item: { type: 'function_call', call_id: 'call_read', name: 'read_file', status: 'in_progress' },
    });
    const itemId = (first[2]?.item as { id?: string } | undefined)?.id;
    expect(itemId).toMatch(/^fc_/);
    expect(deltas.every((delta) => delta.item_id === itemId && delta.output_index === 0)).toBe(true);
    expect(deltas.map((delta) => delta.delta).join('')).toBe('{"path":"notes.txt"}');
    expect(first.at(-3)).toMatchObject({
      type: 'response.function_call_arguments.done',
      item_id: itemId,
      output_index: 0,
      name: 'read_file',
      arguments: '{"path":"notes.txt"}',
    });
    expect(first.at(-2)).toMatchObject({
      type: 'response.output_item.done',
      item: {
        type: 'function_call',
        id: itemId,
        call_id: 'call_read',
        name: 'read_file',
        arguments: '{"path":"notes.txt"}',
        status: 'completed',
      },
    });
    const waiting = lastResponse(first);
    expect(waiting).toMatchObject({
      id,
      status: 'requires_action',
      required_action: {
        type: 'submit_tool_outputs',
        tool_calls: [{ call_id: 'call_read', name: 'read_file', arguments: '{"path":"notes.txt"}' }],
      },
    });

    // A refresh says the same as the stream built.
    expect(await api.get(id)).toEqual(waiting);

    const second = (await readFrames(await api.submit(id, [{ call_id: 'call_read', output: NOTES }]))).map(
      (frame) => frame.data,
    );
    expectContiguous(second, first.length);
    expect(typesOf(second)).toEqual(['response.resumed', ...answerTypes(second)]);
    expect(second[0]).toMatchObject({ reason: 'tool_result', call_ids: ['call_read'] });
    expect(responseOf(second[0])).toMatchObject({ id, status: 'in_progress', required_action: null });
    expect(second[1]).toMatchObject({ output_index: 1, item: { type: 'message', role: 'assistant' } });
    const done = lastResponse(second);
    expect(done).toMatchObject({
      id,
      status: 'completed',
      output_text: `notes.txt says: ${NOTES}`,
      required_action: null,
    });
    expect(done.output.map((item) => item.type)).toEqual(['function_call', 'message']);

    // The model read the output as the tool message answering its call.
    expect(model?.requests).toHaveLength(2);
    expect(model?.requests[1]?.messages.slice(-2)).toEqual([
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'call_read', name: 'read_file', arguments: '{"path":"notes.txt"}' }],
      },
      { role: 'tool', toolCallId: 'call_read', content: NOTES },
    ]);
    expect(model?.requests[0]?.tools?.map((tool) => tool.name)).toContain('read_file');

    expect(await api.get(id)).toEqual(done);
  });

  it('waits for every call of a turn: one answer of two parallel calls keeps it in requires_action', async () => {
    const model = await start([
      toolCallTurn([
        { name: 'read_file', arguments: { path: 'notes.txt' }, id: 'call_file' },
        { name: 'local_time', arguments: { timezone: 'Asia/Shanghai' }, id: 'call_time' },
      ]),
      (request) =>
        textTurn(`File: ${toolOutput(request, 'call_file')} Time: ${toolOutput(request, 'call_time')}`),
    ]);
    const waiting = await api.createObject({
      input: 'read notes.txt and tell me the time',
      tools: [READ_FILE_TOOL, LOCAL_TIME_TOOL],
    });
    expect(waiting.status).toBe('requires_action');
    expect(waiting.output.map((item) => item.type === 'function_call' && item.call_id)).toEqual([
      'call_file',
      'call_time',
    ]);
    expect(waiting.required_action?.tool_calls.map((call) => call.call_id)).toEqual([
      'call_file',
      'call_time',
    ]);

    const partial = await api.submit(waiting.id, [{ call_id: 'call_file', output: 'Buy milk.' }]);
    expect(partial.status).toBe(202);
    expect(((await partial.json()) as ResponseObject).status).toBe('requires_action');
    expect(await api.get(waiting.id)).toEqual(waiting);
    // The same answer again changes nothing either.
    expect((await api.submit(waiting.id, [{ call_id: 'call_file', output: 'Buy milk.' }])).status).toBe(202);
    expect(model?.requests).toHaveLength(1);

    const events = await readEvents(
      await api.submit(waiting.id, [{ call_id: 'call_time', output: '2025-05-01T10:00:00+08:00' }]),
    );
    expect(events[0]).toMatchObject({ type: 'response.resumed', call_ids: ['call_file', 'call_time'] });
    expect(lastResponse(events)).toMatchObject({
      status: 'completed',
      output_text: 'File: Buy milk. Time: 2025-05-01T10:00:00+08:00',
    });
    expect(model?.requests[1]?.messages.filter((message) => message.role === 'tool')).toEqual([
      { role: 'tool', toolCallId: 'call_file', content: 'Buy milk.' },
      { role: 'tool', toolCallId: 'call_time', content: '2025-05-01T10:00:00+08:00' },
    ]);
    expect(await api.get(waiting.id)).toEqual(lastResponse(events));
  });

  it('takes a duplicate submission as a no-op, and refuses another output or an unknown call with 409', async () => {
    await start([READ_NOTES, QUOTE_NOTES]);
    const waiting = await api.createObject({ input: 'read notes.txt', tools: [READ_FILE_TOOL] });
    const answered = await api.submit(waiting.id, {
      tool_outputs: [{ call_id: 'call_read', output: NOTES }],
      stream: false,
    });
    expect(answered.status).toBe(200);
    const completed = (await answered.json()) as ResponseObject;
    expect(completed.status).toBe('completed');
    const full = await readEvents(await api.resume(waiting.id));
    const last = full.at(-1)?.sequence_number ?? -1;

    const again = await api.submit(waiting.id, [{ call_id: 'call_read', output: NOTES }]);
    expect(again.status).toBe(202);
    expect(await again.json()).toEqual(completed);
    // Nothing new was logged: a stream after the last event has nothing to send.
    expect((await api.resume(waiting.id, last)).status).toBe(204);

    const conflict = await api.submit(waiting.id, [{ call_id: 'call_read', output: 'something else' }]);
    expect(conflict.status).toBe(409);
    expect(await conflict.json()).toMatchObject({ error: { code: 'tool_result_conflict' } });

    const unknown = await api.submit(waiting.id, [{ call_id: 'call_nope', output: 'x' }]);
    expect(unknown.status).toBe(409);
    expect(await unknown.json()).toMatchObject({ error: { code: 'unknown_tool_call' } });
    expect(await api.get(waiting.id)).toEqual(completed);
  });

  it('cancels a response waiting for the host; a result after that is 409', async () => {
    await start([READ_NOTES]);
    const frames = await api.createStream({ input: 'read notes.txt', tools: [READ_FILE_TOOL] });
    const id = responseOf(frames[0]?.data).id;
    const lastSeen = frames.at(-1)?.data.sequence_number ?? -1;

    const cancelled = await api.cancel(id, { reason: 'host_gone' });
    expect(cancelled.status).toBe(200);
    const object = (await cancelled.json()) as ResponseObject;
    expect(object).toMatchObject({
      id,
      status: 'cancelled',
      cancel_reason: 'host_gone',
      required_action: null,
      output: [{ type: 'function_call', call_id: 'call_read', status: 'incomplete' }],
    });
    expect(await api.get(id)).toEqual(object);
    // Idempotent: a second cancel answers the same.
    expect(await (await api.cancel(id)).json()).toEqual(object);

    // A reader that saw requires_action resumes and sees the cancel.
    const after = await readEvents(await api.resume(id, lastSeen));
    expectContiguous(after, lastSeen + 1);
    expect(typesOf(after)).toEqual(['runstream.output_item.updated', 'response.cancelled']);
    expect(lastResponse(after)).toEqual(object);

    const late = await api.submit(id, [{ call_id: 'call_read', output: NOTES }]);
    expect(late.status).toBe(409);
    expect(await late.json()).toMatchObject({ error: { code: 'run_finished' } });
  });

  it('resumes a stream after starting_after or Last-Event-ID with exactly the events after it', async () => {
    await start([READ_NOTES, QUOTE_NOTES]);
    const first = (await api.createStream({ input: 'read notes.txt', tools: [READ_FILE_TOOL] })).map(
      (frame) => frame.data,
    );
    const id = responseOf(first[0]).id;

    const resumed = await api.resume(id, 4);
    expect(resumed.headers.get('content-type')).toContain('text/event-stream');
    const afterFour = await readFrames(resumed);
    expect(afterFour.map((frame) => frame.data)).toEqual(first.slice(5));
    expect(afterFour.map((frame) => frame.id)).toEqual(
      first.slice(5).map((event) => String(event.sequence_number)),
    );
    const byHeader = await readEvents(
      await api.request(`/v1/responses/${id}?stream=true`, { headers: { 'last-event-id': '4' } }),
    );
    expect(byHeader).toEqual(first.slice(5));
    expect(await readEvents(await api.resume(id))).toEqual(first);
    // Caught up with a response that waits: nothing to send.
    expect((await api.resume(id, first.length - 1)).status).toBe(204);

    const second = await readEvents(await api.submit(id, [{ call_id: 'call_read', output: NOTES }]));
    // The log replays through the same mapper: the numbering of both streams, exactly.
    expect(await readEvents(await api.resume(id))).toEqual([...first, ...second]);
    expect(await readEvents(await api.resume(id, first.length + 2))).toEqual(second.slice(3));
    expect((await api.resume(id, first.length + second.length - 1)).status).toBe(204);

    const bad = await api.resume(id, 'x' as unknown as number);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: 'invalid_request' } });
  });

  it('survives a restart while waiting: GET, a resumed stream and the host output still work', async () => {
    const model = await start([READ_NOTES, QUOTE_NOTES]);
    const waiting = await api.createObject({ input: 'read notes.txt', tools: [READ_FILE_TOOL] });
    const testServer = server as TestServer;
    await testServer.server.close();
    const restarted = api.at((await testServer.restart()).url);

    expect(await restarted.get(waiting.id)).toEqual(waiting);
    // The log now starts from the persisted message: the stream gives the items whole, then the
    // state it stands in (the numbering may differ from before the restart).
    const replay = await readEvents(await restarted.resume(waiting.id));
    expectContiguous(replay, 0);
    expect(typesOf(replay)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.output_item.done',
      'response.requires_action',
    ]);
    expect(lastResponse(replay)).toEqual(waiting);

    const answered = await restarted.submit(waiting.id, {
      tool_outputs: [{ call_id: 'call_read', output: NOTES }],
      stream: false,
    });
    expect(answered.status).toBe(200);
    expect(await answered.json()).toMatchObject({
      status: 'completed',
      output_text: `notes.txt says: ${NOTES}`,
    });
    expect(model?.requests).toHaveLength(2);
  });

  it('answers stream: false with the final object, and a refresh GET equals it after each step', async () => {
    await start([READ_NOTES, QUOTE_NOTES]);
    const created = await api.create({ input: 'read notes.txt', tools: [READ_FILE_TOOL], stream: false });
    expect(created.status).toBe(200);
    expect(created.headers.get('content-type')).toContain('application/json');
    const waiting = (await created.json()) as ResponseObject;
    expect(waiting).toMatchObject({
      status: 'requires_action',
      output_text: '',
      required_action: { type: 'submit_tool_outputs' },
    });
    expect(await api.get(waiting.id)).toEqual(waiting);

    const answered = await api.post(`/v1/responses/${waiting.id}/tool_results?stream=false`, [
      { call_id: 'call_read', output: NOTES },
    ]);
    expect(answered.status).toBe(200);
    const completed = (await answered.json()) as ResponseObject;
    expect(completed).toMatchObject({ status: 'completed', output_text: `notes.txt says: ${NOTES}` });
    expect(await api.get(waiting.id)).toEqual(completed);
    // The object equals what a stream of the whole log ends with.
    expect(lastResponse(await readEvents(await api.resume(waiting.id)))).toEqual(completed);
  });

  it('streams NDJSON on Accept: application/x-ndjson, the same events as SSE', async () => {
    await start([READ_NOTES, QUOTE_NOTES]);
    const response = await api.create(
      { input: 'read notes.txt', tools: [READ_FILE_TOOL], stream: true },
      { accept: 'application/x-ndjson' },
    );
    expect(response.headers.get('content-type')).toContain('application/x-ndjson');
    const events = await readNdjson(response);
    expectContiguous(events, 0);
    expect(events.at(-1)?.type).toBe('response.requires_action');
    const id = responseOf(events[0]).id;
    expect(await readEvents(await api.resume(id))).toEqual(events);

    const resumed = await api.submit(id, [{ call_id: 'call_read', output: NOTES }], {
      accept: 'application/x-ndjson',
    });
    expect(resumed.headers.get('content-type')).toContain('application/x-ndjson');
    const more = await readNdjson(resumed);
    expectContiguous(more, events.length);
    expect(more.at(-1)?.type).toBe('response.completed');
    const replayed = await readNdjson(
      await api.resume(id, events.length - 1, { accept: 'application/x-ndjson' }),
    );
    expect(replayed).toEqual(more);
  });

  it('accepts function_call_output items with previous_response_id, and continues a conversation', async () => {
    const model = await start([
      READ_NOTES,
      QUOTE_NOTES,
      (request) => textTurn(`You asked ${request.messages.filter((m) => m.role === 'user').length} times.`),
    ]);
    const waiting = await api.createObject({ input: 'read notes.txt', tools: [READ_FILE_TOOL] });

    // New text cannot continue a conversation whose last response still waits for the host.
    const busy = await api.create({ previous_response_id: waiting.id, input: 'hello?' });
    expect(busy.status).toBe(409);
    expect(await busy.json()).toMatchObject({ error: { code: 'tool_results_pending' } });

    // An output of a call we have no record of, and no user message to answer: nothing to run.
    const orphan = await api.create({
      input: [{ type: 'function_call_output', call_id: 'call_unknown', output: NOTES }],
    });
    expect(orphan.status).toBe(400);
    expect(await orphan.json()).toMatchObject({ error: { code: 'invalid_request' } });

    // As OpenAI-style clients answer a call: a new request naming the previous response.
    const events = await readEvents(
      await api.create({
        previous_response_id: waiting.id,
        input: [{ type: 'function_call_output', call_id: 'call_read', output: NOTES }],
        stream: true,
      }),
    );
    expect(events[0]?.type).toBe('response.resumed');
    const completed = lastResponse(events);
    expect(completed).toMatchObject({
      id: waiting.id,
      status: 'completed',
      output_text: `notes.txt says: ${NOTES}`,
    });

    const next = await api.createObject({
      previous_response_id: waiting.id,
      input: [
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'thanks, anything else?' }] },
      ],
      tools: [READ_FILE_TOOL],
    });
    expect(next.id).not.toBe(waiting.id);
    expect(next).toMatchObject({
      status: 'completed',
      previous_response_id: waiting.id,
      conversation_id: waiting.conversation_id,
      output_text: 'You asked 2 times.',
    });
    expect(waiting.conversation_id).toMatch(/^conv_/);
    // The model saw the earlier turn: the question and the answer.
    expect(model?.requests[2]?.messages.slice(1)).toEqual([
      { role: 'user', content: 'read notes.txt' },
      { role: 'assistant', content: `notes.txt says: ${NOTES}` },
      { role: 'user', content: 'thanks, anything else?' },
    ]);
  });

  it('fails a host call whose arguments do not fit its schema, and the model goes on without the host', async () => {
    const model = await start([
      toolCallTurn([{ name: 'read_file', arguments: { file: 'notes.txt' }, id: 'call_bad' }]),
      (request) =>
        textTurn(`Could not read: ${toolOutput(request, 'call_bad').includes('invalid_arguments')}`),
    ]);
    const events = await readEvents(
      await api.create({ input: 'read notes.txt', tools: [READ_FILE_TOOL], stream: true }),
    );
    expect(typesOf(events)).not.toContain('response.requires_action');
    expect(typesOf(events)).not.toContain('runstream.output_item.updated');
    // The call's output_item.done already says it failed: a host never sees it as one to run.
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'response.output_item.done',
        item: expect.objectContaining({
          type: 'function_call',
          call_id: 'call_bad',
          status: 'incomplete',
          failure: expect.objectContaining({ code: 'invalid_arguments' }),
        }),
      }),
    );
    const completed = lastResponse(events);
    expect(completed).toMatchObject({
      status: 'completed',
      required_action: null,
      output_text: 'Could not read: true',
    });
    expect(completed.output[0]).toMatchObject({ type: 'function_call', status: 'incomplete' });
    expect(model?.requests).toHaveLength(2);
    expect(await api.get(completed.id)).toEqual(completed);
    const refused = await api.submit(completed.id, [{ call_id: 'call_bad', output: 'x' }]);
    expect(refused.status).toBe(409);
  });
});

describe('POST /v1/responses: errors', () => {
  it('answers 400, 401, 404 and 413 with the documented codes', async () => {
    await start([READ_NOTES]);
    const malformed = await api.post('/v1/responses', '{"input": ');
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ error: { code: 'invalid_json' } });

    const noInput = await api.create({ model: 'x' });
    expect(noInput.status).toBe(400);
    expect(await noInput.json()).toMatchObject({ error: { code: 'invalid_request' } });

    const badName = await api.create({
      input: 'hi',
      tools: [{ ...READ_FILE_TOOL, name: 'read file' }],
    });
    expect(badName.status).toBe(400);
    expect(await badName.json()).toMatchObject({ error: { code: 'invalid_request' } });

    const tooMany = await api.create({
      input: 'hi',
      tools: Array.from({ length: 65 }, (_, index) => ({ ...READ_FILE_TOOL, name: `tool_${index}` })),
    });
    expect(tooMany.status).toBe(400);

    const conversationsBefore = await (await api.request('/v1/conversations')).json();
    const serverName = await api.create({ input: 'hi', tools: [{ ...READ_FILE_TOOL, name: 'query_order' }] });
    expect(serverName.status).toBe(400);
    expect(await serverName.json()).toMatchObject({ error: { code: 'invalid_request' } });
    // Refused before anything was created for it.
    expect(await (await api.request('/v1/conversations')).json()).toEqual(conversationsBefore);

    const huge = await api.create({ input: 'x'.repeat(1024 * 1024) });
    expect(huge.status).toBe(413);
    expect(await huge.json()).toMatchObject({ error: { code: 'payload_too_large' } });

    const anonymous = await api.request('/v1/responses/resp_x', { headers: { authorization: '' } });
    expect(anonymous.status).toBe(401);

    const missing = await api.request('/v1/responses/run_nope');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: 'not_found' } });
    expect((await api.submit('run_nope', [{ call_id: 'c', output: 'x' }])).status).toBe(404);
    expect((await api.cancel('run_nope')).status).toBe(404);
  });

  it("hides another user's response (404 everywhere) and takes tool outputs far above 64 KiB", async () => {
    await start([READ_NOTES, (request) => textTurn(`${toolOutput(request, 'call_read').length} bytes`)]);
    const waiting = await api.createObject({ input: 'read notes.txt', tools: [READ_FILE_TOOL] });
    const other = api.as(await addUser(server as TestServer, 'mallory'));
    expect((await other.request(`/v1/responses/${waiting.id}`)).status).toBe(404);
    expect((await other.resume(waiting.id)).status).toBe(404);
    expect((await other.submit(waiting.id, [{ call_id: 'call_read', output: 'x' }])).status).toBe(404);
    expect((await other.cancel(waiting.id)).status).toBe(404);
    expect((await other.create({ previous_response_id: waiting.id, input: 'hi' })).status).toBe(404);
    expect((await api.get(waiting.id)).status).toBe('requires_action');

    const big = 'x'.repeat(900 * 1024);
    const answered = await api.submit(waiting.id, {
      tool_outputs: [{ call_id: 'call_read', output: big }],
      stream: false,
    });
    expect(answered.status).toBe(200);
    expect(await answered.json()).toMatchObject({ status: 'completed', output_text: `${big.length} bytes` });
  });
});

describe('POST /v1/responses: server tools, governance headers, the offline model', () => {
  it('still asks the owner to confirm a server-side write (requires_action of type confirm)', async () => {
    await start();
    const waiting = await api.createObject({ input: '我买的那块表还没发货的话，帮我取消吧，不想要了。' });
    expect(waiting.status).toBe('requires_action');
    expect(waiting.required_action).toMatchObject({
      type: 'confirm',
      tool_calls: [{ name: 'cancel_order', arguments: '{"orderId":"88235"}' }],
    });
    expect(waiting.output.map((item) => item.type)).toContain('runstream_tool_call');
    expect(waiting.output.at(-1)).toMatchObject({ type: 'runstream_confirmation', status: 'pending' });
    const callId = waiting.required_action?.tool_calls[0]?.call_id ?? '';
    // Not a host call: tool results cannot answer it.
    expect((await api.submit(waiting.id, [{ call_id: callId, output: 'ok' }])).status).toBe(409);

    // The owner approves on the run (a response is a run: same id), and the response completes.
    const approved = await api.post(`/v1/runs/${waiting.id}/confirmations/${callId}`, {
      decision: 'approve',
    });
    expect(approved.status).toBe(200);
    await approved.text();
    const completed = await api.get(waiting.id);
    expect(completed.status).toBe('completed');
    expect(completed.output).toContainEqual(
      expect.objectContaining({ type: 'runstream_confirmation', status: 'approved' }),
    );
  });

  it('takes the trace id from traceparent: trace_id, x-request-id and run.started.traceId', async () => {
    await start([READ_NOTES]);
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const response = await api.create(
      { input: 'read notes.txt', tools: [READ_FILE_TOOL], stream: true },
      { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    );
    expect(response.headers.get('x-request-id')).toBe(traceId);
    const events = await readEvents(response);
    expect(responseOf(events[0]).trace_id).toBe(traceId);
    const id = responseOf(events[0]).id;
    expect((await api.get(id)).trace_id).toBe(traceId);

    const native = parseSse(await (await api.request(`/v1/runs/${id}/events`)).text());
    expect(native[0]?.data).toMatchObject({ type: 'run.started', traceId, runId: id });

    const byRequestId = await api.create({ input: 'hello', stream: false }, { 'x-request-id': 'req-42' });
    expect(byRequestId.headers.get('x-request-id')).toBe('req-42');
    expect(((await byRequestId.json()) as ResponseObject).trace_id).toBe('req-42');
  });

  it('drives the whole loop with the offline default model: read_file, the host output, an answer quoting it', async () => {
    await start();
    const frames = await api.createStream({
      input: 'read notes.txt',
      tools: [READ_FILE_TOOL, LOCAL_TIME_TOOL],
    });
    const waiting = lastResponse(frames.map((frame) => frame.data));
    expect(waiting.status).toBe('requires_action');
    const call = waiting.required_action?.tool_calls[0];
    expect(call?.name).toBe('read_file');
    expect(JSON.parse(call?.arguments ?? '')).toEqual({ path: 'notes.txt' });

    const events = await readEvents(
      await api.submit(waiting.id, [{ call_id: call?.call_id, output: NOTES }]),
    );
    const completed = lastResponse(events);
    expect(completed.status).toBe('completed');
    expect(completed.output_text).toContain('Call Alice at 3pm.');
    expect(await api.get(waiting.id)).toEqual(completed);
  });
});
