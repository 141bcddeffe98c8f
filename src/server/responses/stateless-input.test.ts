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
import {
  addUser,
  LOCAL_TIME_TOOL,
  lastResponse,
  READ_FILE_TOOL,
  type ResponsesApi,
  readEvents,
  readNdjson,
  startResponsesServer,
  typesOf,
} from './test-support/responses-http.ts';

/**
 * Stateless input in the plain (OpenAI-compatible) shape: a client that sends its whole history each
 * time, as the Agents SDK does (no previous_response_id, store: false), over real HTTP.
 */

let server: TestServer | undefined;
let plain: ResponsesApi;
let extension: ResponsesApi;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(turns: ScriptedTurnInput[]): Promise<ScriptedChatModel> {
  const model = new ScriptedChatModel(turns);
  let api: ResponsesApi;
  ({ server, api } = await startResponsesServer(model));
  extension = api;
  plain = api.plainShape();
  return model;
}

function toolOutput(request: ChatRequest, toolCallId: string): string {
  const message = request.messages.find(
    (candidate) => candidate.role === 'tool' && candidate.toolCallId === toolCallId,
  );
  return message?.content ?? '(nothing)';
}

function systemText(request: ChatRequest | undefined): string {
  const message = request?.messages.find((candidate) => candidate.role === 'system');
  return typeof message?.content === 'string' ? message.content : '';
}

const NOTES = 'Buy milk.';
const READ_NOTES = toolCallTurn([{ name: 'read_file', arguments: { path: 'notes.txt' }, id: 'call_read' }]);
const QUOTE: ScriptedTurnInput = (request) => textTurn(`notes: ${toolOutput(request, 'call_read')}`);

async function json(response: Response): Promise<ResponseObject> {
  if (response.status !== 200) throw new Error(`${response.status} ${await response.text()}`);
  return (await response.json()) as ResponseObject;
}

/** The history a stateless client sends after running the call of `waiting`. */
function historyAfter(waiting: ResponseObject, output: string, extra: unknown[] = []): unknown[] {
  return [
    { role: 'user', content: 'read notes.txt' },
    ...waiting.output,
    { type: 'function_call_output', call_id: 'call_read', output },
    ...extra,
  ];
}

describe('stateless input (plain shape)', () => {
  it('resumes the paused response whose open call the output answers, and answers a retry with the same response', async () => {
    const model = await start([READ_NOTES, QUOTE]);
    const waiting = await json(await plain.create({ input: 'read notes.txt', tools: [READ_FILE_TOOL] }));
    expect(waiting.status).toBe('completed');

    const body = { input: historyAfter(waiting, NOTES), tools: [READ_FILE_TOOL], store: false };
    const answered = await json(await plain.create(body));
    expect(answered).toMatchObject({ status: 'completed', output_text: `notes: ${NOTES}` });
    expect(answered.previous_response_id).toBe(waiting.id);
    expect(answered.id.startsWith(`${waiting.id}.`)).toBe(true);

    // The same request again (a retry): the same response, and the model is not asked again.
    const retried = await json(await plain.create(body));
    expect(retried).toEqual(answered);
    const retriedStream = await readEvents(await plain.create({ ...body, stream: true }));
    expect(lastResponse(retriedStream)).toEqual(answered);
    expect(model.requests).toHaveLength(2);

    // Another output for the same call is a conflict, nothing is stored.
    const conflict = await plain.create({ ...body, input: historyAfter(waiting, 'something else') });
    expect(conflict.status).toBe(409);
    expect(await conflict.json()).toMatchObject({ error: { code: 'tool_result_conflict' } });
    expect(model.requests).toHaveLength(2);
  });

  it('takes tool rounds one after another: a history with answered calls resumes at the open one', async () => {
    const model = await start([
      toolCallTurn([{ name: 'read_file', arguments: { path: 'notes.txt' }, id: 'call_a' }]),
      toolCallTurn([{ name: 'local_time', arguments: {}, id: 'call_b' }]),
      (request) => textTurn(`${toolOutput(request, 'call_a')} at ${toolOutput(request, 'call_b')}`),
    ]);
    const tools = [READ_FILE_TOOL, LOCAL_TIME_TOOL];
    const input: unknown[] = [{ role: 'user', content: 'notes, then the time' }];
    const first = await json(await plain.create({ input, tools }));
    input.push(...first.output, { type: 'function_call_output', call_id: 'call_a', output: NOTES });
    const second = await json(await plain.create({ input, tools }));
    expect(second.output.map((item) => item.type)).toEqual(['function_call']);
    expect(second.previous_response_id).toBe(first.id);
    input.push(...second.output, { type: 'function_call_output', call_id: 'call_b', output: '10:00' });
    const third = await json(await plain.create({ input, tools }));
    expect(third).toMatchObject({ previous_response_id: second.id, output_text: `${NOTES} at 10:00` });
    expect(model.requests).toHaveLength(3);
  });

  it('starts a new run that sees the history when the calls are unknown (another provider wrote them)', async () => {
    const model = await start([(request) => textTurn(`seen: ${request.messages.length} messages`)]);
    const foreign = [
      { role: 'user', content: 'read notes.txt' },
      { type: 'function_call', call_id: 'toolu_01', name: 'read_file', arguments: '{"path":"notes.txt"}' },
      { type: 'function_call_output', call_id: 'toolu_01', output: 'Eggs.' },
      { role: 'assistant', content: [{ type: 'output_text', text: 'It says Eggs.' }] },
      { role: 'user', content: 'and what else?' },
    ];
    const answered = await json(
      await plain.create({ input: foreign, tools: [READ_FILE_TOOL], instructions: 'Be brief.' }),
    );
    expect(answered.status).toBe('completed');
    // The object echoes the client's instructions, not the transcript the model read with them.
    expect(answered.instructions).toBe('Be brief.');
    const request = model.requests[0];
    expect(request?.messages.at(-1)).toEqual({ role: 'user', content: 'and what else?' });
    const system = systemText(request);
    expect(system).toContain('Be brief.');
    expect(system).toContain('user: read notes.txt');
    expect(system).toContain('assistant called read_file({"path":"notes.txt"}) [call toolu_01]');
    expect(system).toContain('read_file returned [call toolu_01]: Eggs.');
    expect(system).toContain('assistant: It says Eggs.');
    expect(system).not.toContain('and what else?');

    // OpenAI fields we cannot honour are refused rather than ignored.
    const conversation = await plain.create({ input: 'hi', conversation: 'conv_1' });
    expect(conversation.status).toBe(400);
    expect(await conversation.json()).toMatchObject({ error: { code: 'invalid_request' } });
    expect((await plain.create({ input: 'hi', background: true })).status).toBe(400);
    expect(model.requests).toHaveLength(1);
  });

  it("does not match another user's call id: their paused response stays untouched", async () => {
    const model = await start([
      READ_NOTES,
      (request) => textTurn(`other: ${systemText(request).length > 0}`),
    ]);
    const waiting = await json(await plain.create({ input: 'read notes.txt', tools: [READ_FILE_TOOL] }));
    const intruder = plain.as(await addUser(server as TestServer, 'mallory'));
    const theirs = await json(
      await intruder.create({ input: historyAfter(waiting, 'pwned'), tools: [READ_FILE_TOOL] }),
    );
    expect(theirs.id.startsWith(waiting.id)).toBe(false);
    expect(theirs.output_text).toBe('other: true');
    expect(model.requests).toHaveLength(2);
    // Still waiting for its owner's output.
    expect((await extension.get(waiting.id)).status).toBe('requires_action');
    expect((await intruder.request(`/v1/responses/${waiting.id}`)).status).toBe(404);
  });

  it('closes the paused response when a new user message follows the outputs, and answers with a new run that sees them', async () => {
    const model = await start([
      READ_NOTES,
      (request) => textTurn(`fresh: ${request.messages.at(-1)?.content}`),
    ]);
    const waiting = await json(await plain.create({ input: 'read notes.txt', tools: [READ_FILE_TOOL] }));
    const mixed = historyAfter(waiting, NOTES, [{ role: 'user', content: 'summarise it' }]);
    const answered = await json(await plain.create({ input: mixed, tools: [READ_FILE_TOOL] }));
    expect(answered.output_text).toBe('fresh: summarise it');
    expect(answered.id.startsWith(waiting.id)).toBe(false);
    expect(systemText(model.requests[1])).toContain(`read_file returned [call call_read]: ${NOTES}`);
    const closed = await extension.get(waiting.id);
    expect(closed).toMatchObject({ status: 'cancelled', cancel_reason: 'superseded' });
  });

  it('refuses outputs that leave calls of the pause unanswered (400, nothing stored), then takes them all', async () => {
    const model = await start([
      toolCallTurn([
        { name: 'read_file', arguments: { path: 'notes.txt' }, id: 'call_a' },
        { name: 'local_time', arguments: {}, id: 'call_b' },
      ]),
      (request) => textTurn(`${toolOutput(request, 'call_a')} at ${toolOutput(request, 'call_b')}`),
    ]);
    const tools = [READ_FILE_TOOL, LOCAL_TIME_TOOL];
    const waiting = await json(await plain.create({ input: 'notes and time', tools }));
    expect(waiting.output.map((item) => item.type)).toEqual(['function_call', 'function_call']);
    const base = [{ role: 'user', content: 'notes and time' }, ...waiting.output];
    const partial = await plain.create({
      input: [...base, { type: 'function_call_output', call_id: 'call_a', output: NOTES }],
      tools,
    });
    expect(partial.status).toBe(400);
    expect(await partial.json()).toMatchObject({
      error: { code: 'invalid_request', message: expect.stringContaining('call_b') },
    });
    expect((await extension.get(waiting.id)).status).toBe('requires_action');

    const events = await readNdjson(
      await plain.create(
        {
          input: [
            ...base,
            { type: 'function_call_output', call_id: 'call_a', output: NOTES },
            { type: 'function_call_output', call_id: 'call_b', output: '10:00' },
          ],
          tools,
          stream: true,
        },
        { accept: 'application/x-ndjson' },
      ),
    );
    expect(typesOf(events)[0]).toBe('response.created');
    expect(lastResponse(events).output_text).toBe(`${NOTES} at 10:00`);
    expect(model.requests).toHaveLength(2);
  });
});

describe('the plain shape: refresh, resume, cancel', () => {
  it('numbers each response from 0, replays it the same, and resumes after starting_after', async () => {
    await start([READ_NOTES, QUOTE, textTurn('You are welcome.')]);
    const first = await readEvents(
      await plain.create({ input: 'read notes.txt', tools: [READ_FILE_TOOL], stream: true }),
    );
    const id = lastResponse(first).id;
    expect(first.map((event) => event.sequence_number)).toEqual(first.map((_, index) => index));
    const second = await readEvents(
      await plain.create({
        previous_response_id: id,
        input: [{ type: 'function_call_output', call_id: 'call_read', output: NOTES }],
        stream: true,
      }),
    );
    const nextId = lastResponse(second).id;
    expect(second.map((event) => event.sequence_number)).toEqual(second.map((_, index) => index));
    expect(await readEvents(await plain.resume(id))).toEqual(first);
    expect(await readEvents(await plain.resume(nextId))).toEqual(second);
    expect(await readEvents(await plain.resume(nextId, 2))).toEqual(second.slice(3));
    expect((await plain.resume(nextId, second.length - 1)).status).toBe(204);
    // No event type outside OpenAI's own.
    for (const type of typesOf([...first, ...second])) expect(type).toMatch(/^response\.[a-z_.]+$/);
    expect(typesOf([...first, ...second])).not.toContain('response.requires_action');
    expect(typesOf(second)).not.toContain('response.resumed');
    // The extension shape of the same run is one response across both stretches.
    expect((await extension.get(nextId)).id).toBe(id);
    // …also asked for in the query, as a browser EventSource must.
    const byQuery = await readEvents(await plain.request(`/v1/responses/${id}?stream=true&extensions=1`));
    expect(typesOf(byQuery)).toContain('response.resumed');
    expect((await plain.request(`/v1/responses/${id}.99999`)).status).toBe(404);
    // A new turn naming the later response continues the conversation and names it back.
    const next = await json(await plain.create({ previous_response_id: nextId, input: 'thanks' }));
    expect(next.previous_response_id).toBe(nextId);
    expect(next.conversation_id).toBe(lastResponse(first).conversation_id);
  });

  it('survives a restart while waiting: the stateless answer resumes the run on the new process', async () => {
    const model = await start([READ_NOTES, QUOTE]);
    const waiting = await json(await plain.create({ input: 'read notes.txt', tools: [READ_FILE_TOOL] }));
    const testServer = server as TestServer;
    await testServer.server.close();
    const restarted = plain.at((await testServer.restart()).url);
    // Rebuilt from the persisted message: the same response, its items whole.
    const refreshed = await json(await restarted.request(`/v1/responses/${waiting.id}`));
    expect(refreshed).toMatchObject({ id: waiting.id, status: 'completed' });
    expect(refreshed.output.at(-1)).toEqual(waiting.output.at(-1));
    const answered = await json(
      await restarted.create({ input: historyAfter(waiting, NOTES), tools: [READ_FILE_TOOL] }),
    );
    expect(answered).toMatchObject({ previous_response_id: waiting.id, output_text: `notes: ${NOTES}` });
    expect(model.requests).toHaveLength(2);
  });

  it('answers 404 for a continuation id the run never had, and stops nothing for it', async () => {
    await start([READ_NOTES]);
    const waiting = await json(await plain.create({ input: 'read notes.txt', tools: [READ_FILE_TOOL] }));
    for (const api of [plain, extension]) {
      const made = await api.cancel(`${waiting.id}.99999`);
      expect(made.status).toBe(404);
      expect((await api.request(`/v1/responses/${waiting.id}.99999`)).status).toBe(404);
    }
    expect(await extension.get(waiting.id)).toMatchObject({ status: 'requires_action' });
  });

  it('cancels a response that waits for the host: its stretch stays completed, a late output is 409', async () => {
    await start([READ_NOTES]);
    const waiting = await json(await plain.create({ input: 'read notes.txt', tools: [READ_FILE_TOOL] }));
    const cancelled = await plain.cancel(waiting.id, { reason: 'host_gone' });
    expect(cancelled.status).toBe(200);
    expect(await cancelled.json()).toMatchObject({ id: waiting.id, status: 'completed' });
    expect(await extension.get(waiting.id)).toMatchObject({
      status: 'cancelled',
      cancel_reason: 'host_gone',
    });
    const late = await plain.create({
      previous_response_id: waiting.id,
      input: [{ type: 'function_call_output', call_id: 'call_read', output: NOTES }],
    });
    expect(late.status).toBe(409);
    expect(await late.json()).toMatchObject({ error: { code: 'run_finished' } });
  });
});

describe('confirmations in the plain shape (the offline NovaShop model)', () => {
  it('approves with an mcp_approval_response; a retry answers with the same response, another decision is 409', async () => {
    let api: ResponsesApi;
    ({ server, api } = await startResponsesServer());
    plain = api.plainShape();
    const waiting = await json(
      await plain.create({ input: '我买的那块表还没发货的话，帮我取消吧，不想要了。' }),
    );
    const request = waiting.output.at(-1) as unknown as { type: string; id: string; name: string };
    expect(request).toMatchObject({ type: 'mcp_approval_request', name: 'cancel_order' });
    const approval = { type: 'mcp_approval_response', approval_request_id: request.id, approve: true };

    const approved = await json(await plain.create({ input: [approval] }));
    expect(approved).toMatchObject({ status: 'completed', previous_response_id: waiting.id });
    expect(approved.output[0]).toMatchObject({ type: 'mcp_call', name: 'cancel_order', status: 'completed' });
    expect(await json(await plain.create({ input: [approval] }))).toEqual(approved);

    const rejected = await plain.create({ input: [{ ...approval, approve: false }] });
    expect(rejected.status).toBe(409);
    expect(await rejected.json()).toMatchObject({ error: { code: 'decision_conflict' } });

    // Another user's approval id names nothing of theirs.
    const intruder = plain.as(await addUser(server as TestServer, 'mallory'));
    const theirs = await intruder.create({ input: [approval] });
    expect(theirs.status).toBe(400);
    expect(await theirs.json()).toMatchObject({ error: { code: 'invalid_request' } });
  });
});
