import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, TEST_TOKEN, type TestServer } from '../test-support/start-test-server.ts';
import { aiSdkClient, type Chunk, type UiMessage, userMessage } from './test-support/ai-sdk-client.ts';

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

describe('the AI SDK client against /v1/ai-sdk/chat', () => {
  it('streams the NovaShop cancel as a UIMessage, pauses on a tool approval, and approving streams the rest', async () => {
    server = await startTestServer();
    const baseUrl = server.server.url;
    const user = userMessage('u1', SEED);
    const first = await aiSdkClient({ op: 'send', baseUrl, token: TEST_TOKEN, chatId: 'chat-approve', messages: [user] });
    expect(first.error).toBeUndefined();
    expect(first.status).toBe(200);
    expect(first.headers['x-vercel-ai-ui-message-stream']).toBe('v1');
    expect(first.headers['content-type']).toMatch(/^text\/event-stream/);
    const runId = first.headers['x-runstream-run-id'] ?? '';
    expect(runId).toMatch(/^run_/);
    expect(first.chunks[0]).toMatchObject({ type: 'start', messageMetadata: { runId } });
    expect(first.chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'tool-calls' });

    const message = first.message as UiMessage;
    expect(message.id).toBe((first.chunks[0] as Chunk).messageId);
    expect(message.metadata).toMatchObject({ runId });
    expect(texts(message, 'reasoning')).toContain('手册要求先查订单状态，再决定能不能直接取消。查最近10笔订单。');
    expect(texts(message, 'text')[0]).toBe('我先看下取消订单的具体办理流程。');
    expect(toolPart(message, 'load_skill')).toMatchObject({ state: 'output-available', input: { name: 'order-change' } });
    const cancel = toolPart(message, 'cancel_order');
    expect(cancel).toMatchObject({
      state: 'approval-requested',
      input: { orderId: '88235' },
      approval: { descriptor: { title: '取消订单' } },
    });

    const second = await aiSdkClient({
      op: 'send',
      baseUrl,
      token: TEST_TOKEN,
      chatId: 'chat-approve',
      messages: [user, answered(message, true)],
      message: answered(message, true),
    });
    expect(second.error).toBeUndefined();
    expect(second.chunks.map((chunk) => chunk.type).slice(0, 3)).toEqual(['start', 'tool-approval-response', 'start-step']);
    expect(second.chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'stop' });
    const done = second.message as UiMessage;
    expect(done.id).toBe(message.id);
    expect(toolPart(done, 'cancel_order')).toMatchObject({
      state: 'output-available',
      input: { orderId: '88235' },
      approval: { approved: true },
    });
    expect(texts(done, 'text').join('')).toContain('已为你取消订单 88235');
    const native = await fetch(`${baseUrl}/v1/runs/${runId}`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
    expect(await native.json()).toMatchObject({ status: 'completed' });
  }, 120_000);
});
