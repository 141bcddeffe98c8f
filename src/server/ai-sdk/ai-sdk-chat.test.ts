import { afterEach, describe, expect, it } from 'vitest';
import { ModelError, ScriptedChatModel, textTurn, toolCallTurn } from '../../models/index.ts';
import { startTestServer, TEST_TOKEN, type TestServer } from '../test-support/start-test-server.ts';
import {
  aiSdkClient,
  type Chunk,
  createOtherUser,
  type UiMessage,
  userMessage,
} from './test-support/ai-sdk-client.ts';
import { GatedChatModel } from './test-support/gated-chat-model.ts';

/**
 * `/v1/ai-sdk/chat` read by the AI SDK's own client (`ai` 7 on Node 22, see interop/): a real server
 * on an ephemeral port, a real SQLite file, the offline NovaShop model. The transport validates every
 * chunk against the SDK's schema, and `readUIMessageStream` builds the message as `useChat` does.
 */
const SEED = '我买的那块表还没发货的话，帮我取消吧，不想要了。';

let server: TestServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Part = UiMessage['parts'][number];

function toolPart(message: UiMessage | null, name: string): Part | undefined {
  return message?.parts.find((part) => part.type === `tool-${name}`);
}

function texts(message: UiMessage | null, type: 'text' | 'reasoning'): string[] {
  return (message?.parts ?? []).filter((part) => part.type === type).map((part) => String(part.text));
}

/** The message with the client's answer to its approval request, as `addToolApprovalResponse` leaves it. */
function answered(message: UiMessage, approved: boolean): UiMessage {
  return {
    ...message,
    parts: message.parts.map((part) =>
      part.state === 'approval-requested'
        ? { ...part, state: 'approval-responded', approval: { ...(part.approval as object), approved } }
        : part,
    ),
  };
}

/** The run as the native API reports it. */
async function nativeRun(baseUrl: string, runId: string, token = TEST_TOKEN) {
  const response = await fetch(`${baseUrl}/v1/runs/${runId}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return (await response.json()) as {
    status: string;
    messageId: string;
    lastSeq: number;
    cancelReason?: string;
  };
}

async function rawGet(baseUrl: string, chatId: string, headers: Record<string, string> = {}) {
  return fetch(`${baseUrl}/v1/ai-sdk/chat/${encodeURIComponent(chatId)}/stream`, {
    headers: { authorization: `Bearer ${TEST_TOKEN}`, ...headers },
  });
}

describe('the AI SDK client against /v1/ai-sdk/chat', () => {
  it('streams the NovaShop cancel as a UIMessage, pauses on a tool approval, and approving streams the rest', async () => {
    server = await startTestServer();
    const baseUrl = server.server.url;
    const user = userMessage('u1', SEED);
    const first = await aiSdkClient({
      op: 'send',
      baseUrl,
      token: TEST_TOKEN,
      chatId: 'chat-approve',
      messages: [user],
    });
    expect(first.error).toBeUndefined();
    expect(first.status).toBe(200);
    expect(first.headers['x-vercel-ai-ui-message-stream']).toBe('v1');
    expect(first.headers['content-type']).toMatch(/^text\/event-stream/);
    const runId = first.headers['x-runstream-run-id'] ?? '';
    expect(runId).toMatch(/^run_/);
    expect(first.chunks[0]).toMatchObject({ type: 'start', messageMetadata: { runId } });
    expect(first.chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'tool-calls' });

    const message = first.message as UiMessage;
    expect(first.valid).toBe(true);
    expect(message.id).toBe((first.chunks[0] as Chunk).messageId);
    expect(message.metadata).toMatchObject({ runId });
    expect(texts(message, 'reasoning')).toContain(
      '手册要求先查订单状态，再决定能不能直接取消。查最近10笔订单。',
    );
    expect(texts(message, 'text')[0]).toBe('我先看下取消订单的具体办理流程。');
    expect(toolPart(message, 'load_skill')).toMatchObject({
      state: 'output-available',
      input: { name: 'order-change' },
    });
    const cancel = toolPart(message, 'cancel_order');
    expect(cancel).toMatchObject({
      state: 'approval-requested',
      input: { orderId: '88235' },
      approval: { descriptor: { title: '取消订单' } },
    });

    // The SDK's resume while the card waits: the run replayed from its start, the same chunks.
    const replay = await aiSdkClient({ op: 'resume', baseUrl, token: TEST_TOKEN, chatId: 'chat-approve' });
    expect(replay.status).toBe(200);
    expect(replay.chunks).toEqual(first.chunks);
    expect(replay.message).toEqual(first.message);
    // Our Last-Event-ID convention on the same route: a reader that has everything gets 204.
    const paused = await nativeRun(baseUrl, runId);
    expect(paused).toMatchObject({ status: 'paused', messageId: message.id });
    const caughtUp = await rawGet(baseUrl, 'chat-approve', { 'last-event-id': String(paused.lastSeq) });
    expect(caughtUp.status).toBe(204);
    // One event short: only the frames of that last event (the pause), each an SSE `data:` line.
    const tail = await (
      await rawGet(baseUrl, 'chat-approve', { 'last-event-id': String(paused.lastSeq - 1) })
    ).text();
    expect(tail).toBe(
      `data: {"type":"finish-step"}\n\nid: ${paused.lastSeq}\ndata: {"type":"finish","finishReason":"tool-calls"}\n\ndata: [DONE]\n\n`,
    );

    const second = await aiSdkClient({
      op: 'send',
      baseUrl,
      token: TEST_TOKEN,
      chatId: 'chat-approve',
      messages: [user, answered(message, true)],
      message: answered(message, true),
    });
    expect(second.error).toBeUndefined();
    expect(second.chunks.map((chunk) => chunk.type).slice(0, 3)).toEqual([
      'start',
      'tool-approval-response',
      'start-step',
    ]);
    expect(second.chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'stop' });
    const done = second.message as UiMessage;
    expect(second.valid).toBe(true);
    expect(done.id).toBe(message.id);
    expect(toolPart(done, 'cancel_order')).toMatchObject({
      state: 'output-available',
      input: { orderId: '88235' },
      approval: { approved: true },
    });
    expect(texts(done, 'text').join('')).toContain('已为你取消订单 88235');
    expect(await nativeRun(baseUrl, runId)).toMatchObject({ status: 'completed' });
    // Nothing under way any more: the SDK's resume gets 204, and the transport gives no stream.
    const idle = await aiSdkClient({ op: 'resume', baseUrl, token: TEST_TOKEN, chatId: 'chat-approve' });
    expect(idle).toMatchObject({ status: 204, message: null });
  }, 120_000);
});

describe('rejecting, stopping, resuming and the client’s own tools', () => {
  it('a rejected approval is the tool’s output-denied, and the answer says the order stays', async () => {
    server = await startTestServer();
    const baseUrl = server.server.url;
    const user = userMessage('u1', SEED);
    const first = await aiSdkClient({
      op: 'send',
      baseUrl,
      token: TEST_TOKEN,
      chatId: 'chat-reject',
      messages: [user],
    });
    const message = first.message as UiMessage;
    const rejected = answered(message, false);
    const second = await aiSdkClient({
      op: 'send',
      baseUrl,
      token: TEST_TOKEN,
      chatId: 'chat-reject',
      messages: [user, rejected],
      message: rejected,
    });
    expect(second.error).toBeUndefined();
    expect(second.chunks).toContainEqual({
      type: 'tool-output-denied',
      toolCallId: toolPart(message, 'cancel_order')?.toolCallId,
    });
    const done = second.message as UiMessage;
    expect(toolPart(done, 'cancel_order')).toMatchObject({
      state: 'output-denied',
      approval: { approved: false },
    });
    expect(texts(done, 'text').join('')).toContain('好的，订单 88235 没有取消，会照常处理。');
  }, 120_000);

  it('survives a restart while cards wait: approving continues the message, a resume rebuilds it', async () => {
    server = await startTestServer();
    const user = userMessage('u1', SEED);
    const send = (baseUrl: string, chatId: string, messages: unknown[], message?: UiMessage) =>
      aiSdkClient({
        op: 'send',
        baseUrl,
        token: TEST_TOKEN,
        chatId,
        messages,
        ...(message ? { message } : {}),
      });
    const waiting = (await send(server.server.url, 'chat-restart-a', [user])).message as UiMessage;
    const other = (await send(server.server.url, 'chat-restart-b', [user])).message as UiMessage;
    await server.server.close();
    const baseUrl = (await server.restart()).url;

    // The new process's log of the run starts at the pause: the continuation is what follows it.
    const approval = answered(waiting, true);
    const second = await send(baseUrl, 'chat-restart-a', [user, approval], approval);
    expect(second.error).toBeUndefined();
    expect(second.chunks.filter((chunk) => chunk.type === 'text-start')).toHaveLength(1);
    expect(second.message?.parts.slice(0, waiting.parts.length).map((part) => part.type)).toEqual(
      waiting.parts.map((part) => part.type),
    );
    expect(second.message?.parts.length).toBe(waiting.parts.length + 2);
    expect(toolPart(second.message, 'cancel_order')).toMatchObject({ state: 'output-available' });
    expect(texts(second.message, 'text').at(-1)).toContain('已为你取消订单 88235');

    // A resume of the other chat: a snapshot of the persisted message, read by the SDK as the same message.
    const replay = await aiSdkClient({ op: 'resume', baseUrl, token: TEST_TOKEN, chatId: 'chat-restart-b' });
    expect(replay.error).toBeUndefined();
    expect(replay.message).toEqual(other);
  }, 120_000);

  it('two cards: one answered per request, the earlier answer sent again is not decided twice', async () => {
    const model = new ScriptedChatModel([
      toolCallTurn([{ name: 'load_skill', arguments: { name: 'order-change' }, id: 'call_skill' }]),
      toolCallTurn([
        { name: 'cancel_order', arguments: { orderId: '88235' }, id: 'call_a' },
        { name: 'cancel_order', arguments: { orderId: '88240' }, id: 'call_b' },
      ]),
      textTurn('两个订单都处理好了。'),
    ]);
    server = await startTestServer({ model });
    const baseUrl = server.server.url;
    const user = userMessage('u1', '两个都取消');
    const send = (messages: unknown[], message?: UiMessage) =>
      aiSdkClient({
        op: 'send',
        baseUrl,
        token: TEST_TOKEN,
        chatId: 'chat-two',
        messages,
        ...(message ? { message } : {}),
      });
    const first = (await send([user])).message as UiMessage;
    expect(
      first.parts.filter((part) => part.state === 'approval-requested').map((part) => part.toolCallId),
    ).toEqual(['call_a', 'call_b']);
    const answer = (message: UiMessage, toolCallId: string): UiMessage => ({
      ...message,
      parts: message.parts.map((part) =>
        part.toolCallId === toolCallId
          ? {
              ...part,
              state: 'approval-responded',
              approval: { ...(part.approval as object), approved: true },
            }
          : part,
      ),
    });
    const oneAnswered = answer(first, 'call_a');
    const partly = await send([user, oneAnswered], oneAnswered);
    expect(partly.error).toBeUndefined();
    // The run still waits for the other card: nothing more to say until it is answered.
    expect(partly.chunks.map((chunk) => chunk.type)).toEqual(['start']);
    const changedMind = await post(baseUrl, { id: 'chat-two', messages: [user, answered(first, false)] });
    expect(changedMind.status).toBe(409);
    const bothAnswered = answer(partly.message as UiMessage, 'call_b');
    const rest = await send([user, bothAnswered], bothAnswered);
    expect(rest.error).toBeUndefined();
    expect(toolPart(rest.message, 'cancel_order')).toMatchObject({ state: 'output-available' });
    expect(
      rest.message?.parts.filter(
        (part) => part.state === 'output-available' && part.type === 'tool-cancel_order',
      ),
    ).toHaveLength(2);
    expect(texts(rest.message, 'text')).toEqual(['两个订单都处理好了。']);
  }, 120_000);

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
});

describe('requests /v1/ai-sdk/chat refuses', () => {
  it('401 without a token, 400 for malformed bodies, 404 for another user’s chat, 409 while a card waits', async () => {
    server = await startTestServer();
    const baseUrl = server.server.url;
    const bob = await createOtherUser(server.databasePath, 'Bob');
    expect((await post(baseUrl, { id: 'c', messages: [userMessage('u', 'hi')] }, null)).status).toBe(401);
    expect((await rawGet(baseUrl, 'c', { authorization: '' })).status).toBe(401);

    const bad: [unknown, RegExp][] = [
      ['{not json', /not valid JSON/],
      [{}, /^id: /],
      [{ id: 'c', messages: [] }, /^messages: /],
      [{ id: 'c', messages: [{ role: 'user', parts: 'hi' }] }, /^messages\.0\.parts: /],
      [{ id: 'c', messages: [{ role: 'user', parts: [{ type: 'file', url: 'x' }] }] }, /no text part/],
      [
        { id: 'c', messages: [userMessage('u', 'hi')], trigger: 'regenerate-message' },
        /regenerate-message is not supported/,
      ],
      [
        { id: 'c', messages: [userMessage('u', 'hi')], tools: [{ name: 'cancel_order' }] },
        /name of a server tool/,
      ],
    ];
    for (const [body, message] of bad) {
      const response = await post(baseUrl, body);
      const json = (await response.json()) as { error: { code: string; message: string } };
      expect([response.status, json.error.message]).toEqual([400, expect.stringMatching(message)]);
    }

    const user = userMessage('u1', SEED);
    const first = await aiSdkClient({
      op: 'send',
      baseUrl,
      token: TEST_TOKEN,
      chatId: 'chat-a',
      messages: [user],
    });
    const runId = first.headers['x-runstream-run-id'] ?? '';
    const approval = answered(first.message as UiMessage, true);
    // Bob with Alice's chat id and her approval: his chat of that id is not hers.
    const bobs = await post(baseUrl, { id: 'chat-a', messages: [user, approval] }, bob);
    expect(bobs.status).toBe(404);
    expect((await rawGet(baseUrl, 'chat-a', { authorization: `Bearer ${bob}` })).status).toBe(204);
    const bobCancels = await fetch(`${baseUrl}/v1/runs/${runId}/cancel`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bob}` },
    });
    expect(bobCancels.status).toBe(404);
    expect((await rawGet(baseUrl, 'chat-a', { 'last-event-id': 'x' })).status).toBe(400);
    expect(await nativeRun(baseUrl, runId)).toMatchObject({ status: 'paused' });

    const meanwhile = await post(baseUrl, {
      id: 'chat-a',
      messages: [user, first.message, userMessage('u2', '在吗')],
    });
    expect(meanwhile.status).toBe(409);
    expect(((await meanwhile.json()) as { error: { code: string } }).error.code).toBe('confirmation_pending');
    // An assistant message that answers nothing the run waits for.
    const unanswered = await post(baseUrl, { id: 'chat-a', messages: [user, first.message] });
    expect(unanswered.status).toBe(400);
    // Alice's own approval still works after all that.
    const approved = await aiSdkClient({
      op: 'send',
      baseUrl,
      token: TEST_TOKEN,
      chatId: 'chat-a',
      messages: [user, approval],
      message: approval,
    });
    expect(toolPart(approved.message, 'cancel_order')).toMatchObject({ state: 'output-available' });
    // And the same approval again: the run no longer waits.
    expect((await post(baseUrl, { id: 'chat-a', messages: [user, approval] })).status).toBe(409);
  }, 120_000);
});

async function post(baseUrl: string, body: unknown, token: string | null = TEST_TOKEN, signal?: AbortSignal) {
  return fetch(`${baseUrl}/v1/ai-sdk/chat`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...(signal === undefined ? {} : { signal }),
  });
}

/** Read a streaming body until it holds `marker`; the text so far. */
async function readUntil(response: Response, marker: string): Promise<string> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!text.includes(marker)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  reader.releaseLock();
  return text;
}
