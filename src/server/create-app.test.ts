import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import type { Database } from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRunstreamClient, NotFoundError, UnauthorizedError } from '../client/index.ts';
import { type ChatStreamPart, ScriptedChatModel, textTurn, toolCallTurn } from '../models/index.ts';
import { fromMessage, toMessage } from '../protocol/index.ts';
import { RunManager, type Tool } from '../runtime/index.ts';
import { testAgent } from '../runtime/test-support/test-agent.ts';
import { openDatabase, SqliteRunStore } from '../store/index.ts';
import { createApp } from './create-app.ts';

let directory: string;
let database: Database;
let store: SqliteRunStore;
let close: () => Promise<void>;
let baseUrl: string;
let token: string;
let otherToken: string;
const executed: string[] = [];

const cancelOrder: Tool<{ orderId: string }, unknown> = {
  name: 'cancel_order',
  title: '取消订单',
  description: 'Cancel an unshipped order.',
  parameters: z.object({ orderId: z.string().regex(/^\d+$/) }),
  effect: 'write',
  async confirm(args) {
    return {
      title: '取消订单',
      description: `订单 ${args.orderId} · Apple Watch Series 12`,
      details: [{ label: '订单号', value: args.orderId }],
    };
  },
  async execute(args) {
    executed.push(args.orderId);
    return { orderId: args.orderId, status: '已取消' };
  },
};

async function start(
  turns: (ChatStreamPart[] | { parts: ChatStreamPart[]; delayMs?: number })[],
): Promise<void> {
  directory = mkdtempSync(join(tmpdir(), 'runstream-server-'));
  database = openDatabase(join(directory, 'runstream.db'));
  store = new SqliteRunStore(database);
  const alice = await store.createUser('alice');
  token = await store.issueToken(alice.id);
  otherToken = await store.issueToken((await store.createUser('mallory')).id);
  const runs = new RunManager({
    agents: [
      testAgent({
        model: new ScriptedChatModel(turns),
        tools: [cancelOrder],
        skills: [],
        instructions: '你是客服。',
      }),
    ],
    store,
  });
  const server = serve({ fetch: createApp({ store, runs }).fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise((resolve) => server.once('listening', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = async () => {
    await runs.close();
    await new Promise((resolve) => server.close(resolve));
    database.close();
  };
}

beforeEach(() => {
  executed.length = 0;
});

afterEach(async () => {
  await close();
  rmSync(directory, { recursive: true, force: true });
});

async function api(path: string, init: RequestInit & { bearer?: string | null } = {}) {
  const headers = new Headers(init.headers);
  if (init.bearer !== null) headers.set('authorization', `Bearer ${init.bearer ?? token}`);
  return fetch(`${baseUrl}${path}`, { ...init, headers });
}

async function newConversation(): Promise<string> {
  const response = await api('/v1/conversations', { method: 'POST', body: '{}' });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

describe('the HTTP API', () => {
  it('sends X-Content-Type-Options: nosniff on every response: JSON, errors and streams', async () => {
    await start([textTurn('好的')]);
    const conversationId = await newConversation();
    const responses = [
      await fetch(`${baseUrl}/health`),
      await api('/v1/conversations'),
      await api('/v1/conversations', { method: 'POST', body: '{}' }),
      await api('/v1/conversations', { bearer: null }),
      await api('/v1/conversations/nope'),
      await api('/v1/no-such-route'),
      await api(`/v1/conversations/${conversationId}/messages`, { method: 'POST', body: '{"text": ' }),
      await api(`/v1/conversations/${conversationId}/messages`, {
        method: 'POST',
        body: '{"text": "hi"}',
        headers: { accept: 'text/event-stream' },
      }),
    ];
    expect(responses.map((response) => response.status)).toEqual([200, 200, 201, 401, 404, 404, 400, 200]);
    for (const response of responses) {
      expect([response.url, response.status, response.headers.get('x-content-type-options')]).toEqual([
        response.url,
        response.status,
        'nosniff',
      ]);
      await response.text();
    }
  });

  it('pauses on a confirmation, survives a refresh, refuses a new message, and approves once', async () => {
    await start([
      toolCallTurn([{ name: 'cancel_order', arguments: { orderId: '88235' } }], {
        text: '找到你的Apple Watch订单了……我这就提交取消。',
        chunkSize: 3,
      }),
      textTurn('订单 88235 已取消，3378.00 元原路退回。', { chunkSize: 4 }),
    ]);
    const conversationId = await newConversation();
    const client = createRunstreamClient({ baseUrl, token, initialDelayMs: 5 });
    const run = client.sendMessage(conversationId, {
      text: '我买的那块表还没发货的话，帮我取消吧，不想要了。',
    });
    const live = await run.result();
    expect(live.status).toBe('paused');
    expect(live.blocks.map((block) => `${block.kind}:${block.status}`)).toEqual([
      'answer:done',
      'tool:awaiting_confirmation',
      'confirm:pending',
    ]);

    // A refresh: the persisted message equals the live view.
    const refreshed = (await (await api(`/v1/conversations/${conversationId}`)).json()) as {
      messages: { role: string; message?: unknown }[];
    };
    const assistant = refreshed.messages.find((message) => message.role === 'assistant');
    expect(assistant?.message).toEqual(toMessage(live));

    const blocked = await api(`/v1/conversations/${conversationId}/messages`, {
      method: 'POST',
      body: JSON.stringify({ text: '在吗？' }),
    });
    expect(blocked.status).toBe(409);
    expect(await blocked.json()).toEqual({
      error: {
        code: 'confirmation_pending',
        message: '上一步操作还在等你确认，请先确认或取消',
        runId: live.runId,
      },
    });

    const toolCallId = live.pause?.pending[0]?.toolCallId ?? '';
    const resumed = await client
      .decide(live.runId ?? '', toolCallId, 'approve', { state: fromMessage(toMessage(live)) })
      .result();
    expect(resumed.status).toBe('completed');
    expect(resumed.messageId).toBe(live.messageId);
    expect(resumed.blocks.map((block) => `${block.kind}:${block.status}`)).toEqual([
      'answer:done',
      'tool:done',
      'confirm:approved',
      'answer:done',
    ]);
    await expect(client.decide(live.runId ?? '', toolCallId, 'approve').result()).rejects.toMatchObject({
      status: 409,
      code: 'decision_conflict',
    });
    expect(executed).toEqual(['88235']);
    const after = (await (await api(`/v1/conversations/${conversationId}`)).json()) as {
      messages: { role: string; message?: unknown }[];
    };
    expect(after.messages.at(-1)?.message).toEqual(toMessage(resumed));
  });

  it('GET /v1/runs/{id} reports the usage persisted so far, and none when the model reported none', async () => {
    const first = { inputTokens: 1200, outputTokens: 90, reasoningTokens: 40, cachedInputTokens: 1024 };
    await start([
      toolCallTurn([{ name: 'cancel_order', arguments: { orderId: '88235' } }], { usage: first }),
      textTurn('订单 88235 已取消。', { usage: { inputTokens: 1400, outputTokens: 60 } }),
      textTurn('不客气。'),
    ]);
    const conversationId = await newConversation();
    const client = createRunstreamClient({ baseUrl, token, initialDelayMs: 5 });
    const paused = await client.sendMessage(conversationId, { text: '帮我取消订单 88235' }).result();
    const runId = paused.runId ?? '';
    expect(await client.getRun(runId)).toMatchObject({ status: 'paused', usage: first });
    const toolCallId = paused.pause?.pending[0]?.toolCallId ?? '';
    await client.decide(runId, toolCallId, 'approve').result();
    expect(await (await api(`/v1/runs/${runId}`)).json()).toEqual({
      id: runId,
      conversationId,
      messageId: paused.messageId,
      status: 'completed',
      lastSeq: expect.any(Number),
      usage: { inputTokens: 2600, outputTokens: 150, reasoningTokens: 40, cachedInputTokens: 1024 },
    });

    const unknown = await client.sendMessage(conversationId, { text: '谢谢' }).result();
    const view = (await (await api(`/v1/runs/${unknown.runId}`)).json()) as Record<string, unknown>;
    expect(view).toMatchObject({ status: 'completed' });
    expect(view).not.toHaveProperty('usage');
  });

  it('a dropped connection resumes with every event once; a stop keeps partial blocks as cancelled', async () => {
    await start([
      {
        parts: textTurn('这是一段会被停止的很长很长的回答，一个字一个字地出来。', { chunkSize: 1 }),
        delayMs: 15,
      },
    ]);
    const conversationId = await newConversation();
    const client = createRunstreamClient({ baseUrl, token, initialDelayMs: 5 });
    const controller = new AbortController();
    const first = client.sendMessage(conversationId, { text: '讲一个长故事' }, { signal: controller.signal });
    const seqs: number[] = [];
    await (async () => {
      for await (const update of first) {
        seqs.push(update.event.seq);
        if (update.event.seq === 6) controller.abort();
      }
    })().catch(() => undefined);
    const runId = first.runId ?? '';
    const followed = client.followRun(runId, { state: first.state });
    let stopped = false;
    for await (const update of followed) {
      seqs.push(update.event.seq);
      if (!stopped && update.event.seq === 12) {
        stopped = true;
        expect(await client.cancel(runId, 'user_stop')).toEqual({
          id: runId,
          status: 'cancelled',
          cancelReason: 'user_stop',
        });
      }
    }
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, index) => index + 1));
    expect(followed.state).toMatchObject({ status: 'cancelled', finishReason: 'user_stop' });
    expect(followed.state.blocks[0]).toMatchObject({ kind: 'answer', status: 'cancelled' });
    const run = (await (await api(`/v1/runs/${runId}`)).json()) as Record<string, unknown>;
    expect(run).toMatchObject({ id: runId, status: 'cancelled', cancelReason: 'user_stop' });
    // Finished and caught up: 204, so an EventSource stops reconnecting.
    const caughtUp = await api(`/v1/runs/${runId}/events`, {
      headers: { 'last-event-id': String(followed.lastSeq) },
    });
    expect(caughtUp.status).toBe(204);
  });

  it('refuses bad requests clearly', async () => {
    await start([textTurn('好的')]);
    const conversationId = await newConversation();
    expect((await api('/v1/conversations', { bearer: null })).status).toBe(401);
    expect((await api('/v1/conversations', { bearer: 'rs_wrong' })).status).toBe(401);
    const malformed = await api(`/v1/conversations/${conversationId}/messages`, {
      method: 'POST',
      body: '{"text": ',
    });
    expect([malformed.status, ((await malformed.json()) as { error: { code: string } }).error.code]).toEqual([
      400,
      'invalid_json',
    ]);
    const empty = await api(`/v1/conversations/${conversationId}/messages`, {
      method: 'POST',
      body: '{"text": "  "}',
    });
    expect(empty.status).toBe(400);
    const huge = await api(`/v1/conversations/${conversationId}/messages`, {
      method: 'POST',
      body: JSON.stringify({ text: 'x'.repeat(100_000) }),
    });
    expect(huge.status).toBe(413);
    // Without a Content-Length (chunked), the body is counted as it arrives and refused at the limit.
    const chunk = new TextEncoder().encode(`"${'x'.repeat(16 * 1024)}`);
    const streamed = await api(`/v1/conversations/${conversationId}/messages`, {
      method: 'POST',
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('{"text": '));
          for (let index = 0; index < 8; index += 1) controller.enqueue(chunk);
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect([streamed.status, ((await streamed.json()) as { error: { code: string } }).error.code]).toEqual([
      413,
      'payload_too_large',
    ]);
    const strangers = createRunstreamClient({ baseUrl, token: otherToken });
    await expect(strangers.sendMessage(conversationId, { text: 'hi' }).result()).rejects.toBeInstanceOf(
      NotFoundError,
    );
    const run = await createRunstreamClient({ baseUrl, token })
      .sendMessage(conversationId, { text: 'hi' })
      .result();
    await expect(strangers.followRun(run.runId ?? '').result()).rejects.toBeInstanceOf(NotFoundError);
    expect((await api(`/v1/runs/${run.runId}`, { bearer: otherToken })).status).toBe(404);
    await expect(
      createRunstreamClient({ baseUrl, token: 'nope' }).cancel(run.runId ?? ''),
    ).rejects.toBeInstanceOf(UnauthorizedError);
    // Cancelling a finished run changes nothing.
    expect(await createRunstreamClient({ baseUrl, token }).cancel(run.runId ?? '')).toEqual({
      id: run.runId,
      status: 'completed',
    });
  });

  it('turns tool arguments that fail their schema into a failed block over HTTP, and the run goes on', async () => {
    await start([
      toolCallTurn([{ name: 'cancel_order', arguments: { orderId: 'not-a-number' } }]),
      textTurn('订单号格式不对，请提供数字订单号。'),
    ]);
    const conversationId = await newConversation();
    const state = await createRunstreamClient({ baseUrl, token })
      .sendMessage(conversationId, { text: '取消订单 abc' })
      .result();
    expect(state.status).toBe('completed');
    expect(state.blocks[0]).toMatchObject({
      kind: 'tool',
      name: 'cancel_order',
      status: 'failed',
      error: { code: 'invalid_arguments' },
    });
    expect(state.blocks.some((block) => block.kind === 'confirm')).toBe(false);
    expect(state.blocks.at(-1)).toMatchObject({ kind: 'answer', text: '订单号格式不对，请提供数字订单号。' });
    expect(executed).toEqual([]);
  });
});
