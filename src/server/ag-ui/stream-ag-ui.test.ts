import { HttpAgent } from '@ag-ui/client';
import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedChatModel, textTurn, toolCallTurn } from '../../models/index.ts';
import { startTestServer, TEST_TOKEN, type TestServer } from '../test-support/start-test-server.ts';
import { type AgUiFrame, parseAgUiSse, record } from './test-support/ag-ui-agent.ts';

/**
 * The AG-UI stream is a projection of the run log: a replay gives the same frames, `Last-Event-ID`
 * picks up after any of them, and the real HttpAgent accepts a reconnect's stream.
 */

let server: TestServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

const auth = { authorization: `Bearer ${TEST_TOKEN}` };

async function post(url: string, body: unknown): Promise<{ frames: AgUiFrame[]; runId: string }> {
  const response = await fetch(`${url}/v1/ag-ui`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
  return {
    frames: parseAgUiSse(await response.text()),
    runId: response.headers.get('x-runstream-run-id') ?? '',
  };
}

function get(url: string, path: string, lastEventId?: string): Promise<Response> {
  return fetch(`${url}${path}`, {
    headers: { ...auth, ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }) },
  });
}

describe('GET /v1/ag-ui/runs/{id}/events', () => {
  it('replays the same frames, resumes after any Last-Event-ID, and answers 204 once caught up', async () => {
    server = await startTestServer({
      model: new ScriptedChatModel([
        toolCallTurn([{ name: 'query_order', arguments: { limit: 1 }, id: 'call_q' }], {
          reasoning: '先查订单。',
          chunkSize: 3,
        }),
        textTurn('查到了你的订单。', { chunkSize: 2 }),
      ]),
    });
    const { url } = server.server;
    const live = await post(url, {
      threadId: 'thread-replay',
      runId: 'agui-1',
      messages: [{ id: 'u1', role: 'user', content: '查订单' }],
    });
    expect(live.frames.at(0)?.event.type).toBe('RUN_STARTED');
    expect(live.frames.at(-1)?.event.type).toBe('RUN_FINISHED');
    // Every frame that ends a native event's group carries its seq, increasing.
    const ids = live.frames.flatMap((frame) => (frame.id === undefined ? [] : [Number(frame.id)]));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(live.frames.at(-1)?.id).toBe(String(ids.at(-1)));

    const path = `/v1/ag-ui/runs/${live.runId}/events?threadId=thread-replay&runId=agui-1`;
    const replay = await get(url, path);
    expect(replay.status).toBe(200);
    expect(parseAgUiSse(await replay.text())).toEqual(live.frames);

    // After each id: RUN_STARTED, then exactly the frames after it.
    for (const [index, frame] of live.frames.entries()) {
      if (frame.id === undefined || index === live.frames.length - 1) continue;
      const tail = parseAgUiSse(await (await get(url, path, frame.id)).text());
      expect(tail).toEqual([live.frames[0], ...live.frames.slice(index + 1)]);
    }
    expect((await get(url, path, live.frames.at(-1)?.id)).status).toBe(204);
    expect((await get(url, path, 'soon')).status).toBe(400);
  });

  it('serves the latest AG-UI run of a run that paused, and the rest of an earlier one it was cut from', async () => {
    server = await startTestServer({
      model: new ScriptedChatModel([
        toolCallTurn([{ name: 'read_file', arguments: { path: 'a.txt' }, id: 'call_read' }], {
          text: '我读一下。',
        }),
        textTurn('读到了。'),
      ]),
    });
    const { url } = server.server;
    const tools = [{ name: 'read_file', description: 'Read a file', parameters: { type: 'object' } }];
    const history = [{ id: 'u1', role: 'user', content: '读 a.txt' }];
    const first = await post(url, { threadId: 'thread-two', runId: 'agui-a', messages: history, tools });
    expect(first.frames.at(-1)?.event).toMatchObject({ outcome: { pendingToolCallIds: ['call_read'] } });
    const second = await post(url, {
      threadId: 'thread-two',
      runId: 'agui-b',
      tools,
      messages: [
        ...history,
        { id: 'a1', role: 'assistant', toolCalls: [] },
        { id: 't1', role: 'tool', toolCallId: 'call_read', content: 'hello' },
      ],
    });
    expect(second.runId).toBe(first.runId);
    expect(second.frames.at(-1)?.event).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });

    const path = `/v1/ag-ui/runs/${first.runId}/events?threadId=thread-two&runId=agui-b`;
    expect(parseAgUiSse(await (await get(url, path)).text())).toEqual(second.frames);
    // A reader cut off in the first AG-UI run gets the rest of that one, ending where it ended.
    const cut = first.frames.findIndex((frame) => frame.event.type === 'TEXT_MESSAGE_END');
    const rest = parseAgUiSse(
      await (await get(url, path.replace('agui-b', 'agui-a'), first.frames[cut]?.id)).text(),
    );
    expect(rest).toEqual([first.frames[0], ...first.frames.slice(cut + 1)]);
  });

  it('is a stream the real HttpAgent verifies and applies, as a reconnect through its fetch hook', async () => {
    server = await startTestServer({
      model: new ScriptedChatModel([textTurn('断线之后也能接上。', { reasoning: '想一想。', chunkSize: 2 })]),
    });
    const { url } = server.server;
    const live = await post(url, {
      threadId: 'thread-reconnect',
      runId: 'agui-r',
      messages: [{ id: 'u1', role: 'user', content: '你好' }],
    });
    const cut = live.frames.findIndex((frame) => frame.event.type === 'REASONING_END');
    const agent = new HttpAgent({
      url: `${url}/v1/ag-ui`,
      threadId: 'thread-reconnect',
      headers: auth,
      // The client holds what it got before the cut; its reconnect asks for the rest.
      initialMessages: [{ id: 'u1', role: 'user', content: '你好' }],
      fetch: (_url, init) =>
        fetch(`${url}/v1/ag-ui/runs/${live.runId}/events?threadId=thread-reconnect&runId=agui-r`, {
          headers: {
            ...(init.headers as Record<string, string>),
            'last-event-id': live.frames[cut]?.id ?? '',
          },
        }),
    });
    const run = await record(agent, { runId: 'agui-r' });
    expect(run.error).toBeUndefined();
    expect(run.types).toEqual([
      'RUN_STARTED',
      ...live.frames.slice(cut + 1).map((frame) => frame.event.type),
    ]);
    expect(agent.messages.map((message) => [message.role, message.content])).toEqual([
      ['user', '你好'],
      ['assistant', '断线之后也能接上。'],
    ]);
  });
});
