import { afterEach, describe, expect, it } from 'vitest';
import { ModelError, ScriptedChatModel, textTurn, toolCallTurn } from '../../models/index.ts';
import { startTestServer, TEST_TOKEN, type TestServer } from '../test-support/start-test-server.ts';
import {
  aiSdkClient,
  nativeRun,
  post,
  readUntil,
  texts,
  toolPart,
  type UiMessage,
  userMessage,
} from './test-support/ai-sdk-client.ts';
import { GatedChatModel } from './test-support/gated-chat-model.ts';

/**
 * Resume, stop, failure and the client's own tools on `/v1/ai-sdk/chat`, read by the AI SDK's own
 * client (`ai` 7 on Node 22, see interop/) against a real server with a scripted model; a gated one
 * keeps a run going while the test reconnects to it or stops it, with no timing involved.
 */

let server: TestServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('resuming, stopping, failing and the client’s own tools', () => {
  it('resumes a run mid-way with the same message; a dropped connection is no stop; 204 once it ended', async () => {
    const model = new GatedChatModel(
      new ScriptedChatModel([textTurn('第一段。第二段在门后。', { reasoning: '先想一想。', chunkSize: 2 })]),
      5,
    );
    let onStreamGet: () => void = () => {};
    server = await startTestServer({
      model,
      // One running run per user: a second chat's turn meanwhile is refused like any other run start.
      env: { RUNSTREAM_MAX_RUNNING_RUNS: '1' },
      log: (line) => {
        if (String(line.path).endsWith('/stream') && line.status === 200) onStreamGet();
      },
    });
    const baseUrl = server.server.url;
    const disconnect = new AbortController();
    const response = await post(
      baseUrl,
      { id: 'chat-gated', messages: [userMessage('u1', '讲两段')] },
      TEST_TOKEN,
      disconnect.signal,
    );
    expect(response.status).toBe(200);
    const runId = response.headers.get('x-runstream-run-id') ?? '';
    await model.reached;
    const head = await readUntil(response, '"type":"text-delta"');
    expect(head).toContain('"type":"reasoning-start"');
    // `useChat().stop()` aborts the fetch: a disconnect, the run goes on.
    disconnect.abort();
    expect(await nativeRun(baseUrl, runId)).toMatchObject({ status: 'running' });

    const other = await post(baseUrl, { id: 'chat-other', messages: [userMessage('u2', '你好')] });
    expect(other.status).toBe(429);
    expect(other.headers.get('retry-after')).not.toBeNull();

    // The run goes on past the gate once the resume has been answered: it reads the run whole.
    onStreamGet = () => model.open();
    const resumed = await aiSdkClient({ op: 'resume', baseUrl, token: TEST_TOKEN, chatId: 'chat-gated' });
    expect(resumed.error).toBeUndefined();
    expect(resumed.status).toBe(200);
    expect(resumed.headers['x-vercel-ai-ui-message-stream']).toBe('v1');
    const run = await nativeRun(baseUrl, runId);
    expect(run.status).toBe('completed');
    expect(resumed.message?.id).toBe(run.messageId);
    expect(resumed.message?.parts.map((part) => [part.type, part.text, part.state])).toEqual([
      ['step-start', undefined, undefined],
      ['reasoning', '先想一想。', 'done'],
      ['text', '第一段。第二段在门后。', 'done'],
    ]);
    expect(resumed.chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'stop' });
    expect(
      (await aiSdkClient({ op: 'resume', baseUrl, token: TEST_TOKEN, chatId: 'chat-gated' })).status,
    ).toBe(204);
  }, 120_000);

  it('an explicit stop (POST /v1/runs/:id/cancel) ends the stream with abort and the stop reason', async () => {
    const model = new GatedChatModel(
      new ScriptedChatModel([textTurn('说到一半就停。', { chunkSize: 2 })]),
      2,
    );
    let onStreamGet: () => void = () => {};
    server = await startTestServer({
      model,
      log: (line) => {
        if (String(line.path).endsWith('/stream') && line.status === 200) onStreamGet();
      },
    });
    const baseUrl = server.server.url;
    const disconnect = new AbortController();
    const response = await post(
      baseUrl,
      { id: 'chat-stop', messages: [userMessage('u1', '说吧')] },
      TEST_TOKEN,
      disconnect.signal,
    );
    const runId = response.headers.get('x-runstream-run-id') ?? '';
    await model.reached;
    disconnect.abort();
    let cancelled: Promise<Response> | undefined;
    onStreamGet = () => {
      cancelled = fetch(`${baseUrl}/v1/runs/${runId}/cancel`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ reason: 'user_stop' }),
      });
    };
    const resumed = await aiSdkClient({ op: 'resume', baseUrl, token: TEST_TOKEN, chatId: 'chat-stop' });
    expect(await (await (cancelled as Promise<Response>)).json()).toMatchObject({
      status: 'cancelled',
      cancelReason: 'user_stop',
    });
    expect(resumed.error).toBeUndefined();
    expect(resumed.chunks.slice(-3)).toEqual([
      { type: 'text-end', id: expect.any(String) },
      { type: 'finish-step' },
      { type: 'abort', reason: 'user_stop' },
    ]);
    // The two parts before the gate, and nothing after the stop.
    expect(texts(resumed.message, 'text')).toEqual(['说到一半']);
    expect(
      (await aiSdkClient({ op: 'resume', baseUrl, token: TEST_TOKEN, chatId: 'chat-stop' })).status,
    ).toBe(204);
  }, 120_000);

  it('a failed run is the SDK’s error: the chat’s error carries the readable message', async () => {
    const model = new ScriptedChatModel([
      {
        parts: textTurn('我先看一下', { chunkSize: 1 }),
        failAt: 3,
        error: new ModelError('model_stream_broken', 'connection reset'),
      },
    ]);
    server = await startTestServer({ model });
    const baseUrl = server.server.url;
    const failed = await aiSdkClient({
      op: 'send',
      baseUrl,
      token: TEST_TOKEN,
      chatId: 'chat-fail',
      messages: [userMessage('u1', '看一下')],
    });
    const runId = failed.headers['x-runstream-run-id'] ?? '';
    expect(await nativeRun(baseUrl, runId)).toMatchObject({ status: 'failed' });
    const conversation = (await (
      await fetch(`${baseUrl}/v1/conversations`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } })
    ).json()) as { data: { id: string }[] };
    const view = (await (
      await fetch(`${baseUrl}/v1/conversations/${conversation.data[0]?.id}`, {
        headers: { authorization: `Bearer ${TEST_TOKEN}` },
      })
    ).json()) as { messages: { blocks?: { kind: string; text?: string }[] }[] };
    const errorBlock = view.messages.at(-1)?.blocks?.find((block) => block.kind === 'error');
    expect(errorBlock?.text).toContain('connection reset');
    expect(failed.error?.message).toBe(errorBlock?.text);
  }, 120_000);

  it('runs a tool the client executes (onToolCall + addToolOutput) as a runstream host tool', async () => {
    const model = new ScriptedChatModel([
      toolCallTurn([{ name: 'get_location', arguments: {}, id: 'call_where' }], { text: '我看看你在哪。' }),
      (request) => {
        const output = request.messages.find((one) => one.role === 'tool')?.content ?? '';
        return textTurn(`你在${(JSON.parse(output) as { city: string }).city}。`);
      },
    ]);
    server = await startTestServer({ model });
    const baseUrl = server.server.url;
    const body = {
      tools: [
        {
          name: 'get_location',
          description: 'Where the user is',
          parameters: { type: 'object', properties: {} },
        },
      ],
    };
    const user = userMessage('u1', '我在哪？');
    const first = await aiSdkClient({
      op: 'send',
      baseUrl,
      token: TEST_TOKEN,
      chatId: 'chat-host',
      messages: [user],
      body,
    });
    expect(first.error).toBeUndefined();
    expect(first.chunks).toContainEqual({
      type: 'tool-input-available',
      toolCallId: 'call_where',
      toolName: 'get_location',
      input: {},
      title: 'get_location',
    });
    expect(first.chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'tool-calls' });
    const message = first.message as UiMessage;
    expect(toolPart(message, 'get_location')).toMatchObject({
      state: 'input-available',
      toolCallId: 'call_where',
    });

    const withOutput: UiMessage = {
      ...message,
      parts: message.parts.map((part) =>
        part.toolCallId === 'call_where'
          ? { ...part, state: 'output-available', output: { city: '杭州' } }
          : part,
      ),
    };
    const second = await aiSdkClient({
      op: 'send',
      baseUrl,
      token: TEST_TOKEN,
      chatId: 'chat-host',
      messages: [user, withOutput],
      message: withOutput,
      body,
    });
    expect(second.error).toBeUndefined();
    expect(texts(second.message, 'text')).toEqual(['我看看你在哪。', '你在杭州。']);
    expect(toolPart(second.message, 'get_location')).toMatchObject({ state: 'output-available' });
  }, 120_000);

  it('a client tool call whose arguments are not JSON is the SDK’s tool-input-error: onToolCall never runs it', async () => {
    const model = new ScriptedChatModel([
      toolCallTurn([{ name: 'get_location', arguments: '{"city":', id: 'call_broken' }]),
      textTurn('参数写错了，换个方式。'),
    ]);
    server = await startTestServer({ model });
    const result = await aiSdkClient({
      op: 'send',
      baseUrl: server.server.url,
      token: TEST_TOKEN,
      chatId: 'chat-broken',
      messages: [userMessage('u1', '我在哪？')],
      body: { tools: [{ name: 'get_location', parameters: { type: 'object', properties: {} } }] },
    });
    expect(result.error).toBeUndefined();
    const ofCall = result.chunks.filter((chunk) => chunk.toolCallId === 'call_broken');
    // `tool-input-available` is what makes the SDK call `onToolCall` (the page would run the tool).
    expect(ofCall.map((chunk) => chunk.type)).toEqual([
      'tool-input-start',
      'tool-input-delta',
      'tool-input-error',
    ]);
    expect(ofCall.at(-1)).toMatchObject({ toolName: 'get_location', input: '{"city":' });
    expect(toolPart(result.message, 'get_location')).toMatchObject({ state: 'output-error' });
    expect(result.valid).toBe(true);
    expect(texts(result.message, 'text')).toEqual(['参数写错了，换个方式。']);
  }, 120_000);
});
