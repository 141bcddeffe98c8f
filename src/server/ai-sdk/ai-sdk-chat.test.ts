import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedChatModel, textTurn, toolCallTurn } from '../../models/index.ts';
import { startTestServer, TEST_TOKEN, type TestServer } from '../test-support/start-test-server.ts';
import {
  aiSdkClient,
  answered,
  type Chunk,
  nativeRun,
  post,
  rawGet,
  SEED,
  texts,
  toolPart,
  type UiMessage,
  userMessage,
} from './test-support/ai-sdk-client.ts';

/**
 * `/v1/ai-sdk/chat` read by the AI SDK's own client (`ai` 7 on Node 22, see interop/): a real server
 * on an ephemeral port, a real SQLite file, the offline NovaShop model. The transport validates every
 * chunk against the SDK's schema, and `readUIMessageStream` builds the message as `useChat` does.
 */

let server: TestServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

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
    const caughtUp = await rawGet(baseUrl, 'chat-approve', { 'last-event-id': `${runId}:${paused.lastSeq}` });
    expect(caughtUp.status).toBe(204);
    // One event short (a bare seq: the run under way): only the frames of that last event, the pause.
    const tail = await (
      await rawGet(baseUrl, 'chat-approve', { 'last-event-id': String(paused.lastSeq - 1) })
    ).text();
    expect(tail).toBe(
      `data: {"type":"finish-step"}\n\nid: ${runId}:${paused.lastSeq}\ndata: {"type":"finish","finishReason":"tool-calls"}\n\ndata: [DONE]\n\n`,
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

describe('confirmations on /v1/ai-sdk/chat', () => {
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
    // The run still waits for the other card: nothing more to say until it is answered, but that
    // the message still waits for tool calls, as at the pause.
    expect(partly.chunks.map((chunk) => chunk.type)).toEqual(['start', 'finish']);
    expect(partly.chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'tool-calls' });
    expect(partly.valid).toBe(true);
    expect(toolPart(partly.message, 'cancel_order')).toMatchObject({ state: 'approval-responded' });
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
});

describe('token usage on /v1/ai-sdk/chat', () => {
  it('gives the message metadata the run’s usage, and the continuation the total after approval', async () => {
    const model = new ScriptedChatModel([
      toolCallTurn([{ name: 'load_skill', arguments: { name: 'order-change' }, id: 'call_skill' }], {
        usage: { inputTokens: 800, outputTokens: 20, cachedInputTokens: 512 },
      }),
      toolCallTurn([{ name: 'cancel_order', arguments: { orderId: '88235' }, id: 'call_cancel' }], {
        usage: { inputTokens: 1000, outputTokens: 40, reasoningTokens: 16 },
      }),
      textTurn('订单 88235 已取消。', { usage: { inputTokens: 1100, outputTokens: 10 } }),
    ]);
    server = await startTestServer({ model });
    const baseUrl = server.server.url;
    const user = userMessage('u1', '取消 88235');
    const first = await aiSdkClient({
      op: 'send',
      baseUrl,
      token: TEST_TOKEN,
      chatId: 'chat-usage',
      messages: [user],
    });
    expect(first.error).toBeUndefined();
    expect(first.valid).toBe(true);
    const waiting = first.message as UiMessage;
    expect(waiting.metadata).toMatchObject({
      runId: expect.stringMatching(/^run_/),
      usage: {
        inputTokens: 1800,
        inputTokenDetails: { noCacheTokens: 1288, cacheReadTokens: 512 },
        outputTokens: 60,
        outputTokenDetails: { textTokens: 44, reasoningTokens: 16 },
        totalTokens: 1860,
      },
    });
    const approval = answered(waiting, true);
    const second = await aiSdkClient({
      op: 'send',
      baseUrl,
      token: TEST_TOKEN,
      chatId: 'chat-usage',
      messages: [user, approval],
      message: approval,
    });
    expect(second.error).toBeUndefined();
    expect(second.chunks.at(-1)).toEqual({
      type: 'finish',
      finishReason: 'stop',
      messageMetadata: {
        usage: {
          inputTokens: 2900,
          inputTokenDetails: { noCacheTokens: 2388, cacheReadTokens: 512 },
          outputTokens: 70,
          outputTokenDetails: { textTokens: 54, reasoningTokens: 16 },
          totalTokens: 2970,
        },
      },
    });
    expect((second.message as UiMessage).metadata).toMatchObject({ usage: { totalTokens: 2970 } });
  }, 120_000);
});
