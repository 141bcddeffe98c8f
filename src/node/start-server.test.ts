import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRunstreamClient } from '../client/index.ts';
import { createMessageState, fromMessage, type Message, reduceAll, toMessage } from '../protocol/index.ts';
import { startTestServer, type TestServer } from '../server/test-support/start-test-server.ts';
import { openDatabase, SqliteRunStore } from '../store/index.ts';
import type { StartedServer } from './start-server.ts';

let testServer: TestServer;
let server: StartedServer;
const SEED = '我买的那块表还没发货的话，帮我取消吧，不想要了。';

beforeEach(async () => {
  testServer = await startTestServer();
  server = testServer.server;
});

afterEach(() => testServer.close());

const shape = (message: Pick<Message, 'blocks'>) =>
  message.blocks.map((block) =>
    block.kind === 'tool' ? `tool:${block.name}:${block.status}` : `${block.kind}:${block.status}`,
  );

describe('npm start: the seed scenario over HTTP with the offline model', () => {
  it('thinks, loads the skill, queries, stops on the card; a refresh shows the same; approving cancels once', async () => {
    const client = createRunstreamClient({ baseUrl: server.url, token: 'demo-token' });
    const created = await fetch(`${server.url}/v1/conversations`, {
      method: 'POST',
      headers: { authorization: 'Bearer demo-token' },
      body: '{}',
    });
    const { id: conversationId } = (await created.json()) as { id: string };

    const live = await client.sendMessage(conversationId, { text: SEED }).result();
    expect(shape(live)).toEqual([
      'reasoning:done',
      'answer:done',
      'tool:load_skill:done',
      'reasoning:done',
      'tool:query_order:done',
      'reasoning:done',
      'answer:done',
      'tool:cancel_order:awaiting_confirmation',
      'confirm:pending',
    ]);
    expect(live.blocks[1]).toMatchObject({ text: '我先看下取消订单的具体办理流程。' });
    expect(live.blocks[6]).toMatchObject({
      text: expect.stringMatching(/^找到你的Apple Watch订单了.*我这就提交取消。$/s),
    });
    expect(live.blocks[8]).toMatchObject({ kind: 'confirm', description: expect.stringContaining('88235') });

    const refreshed = (await (
      await fetch(`${server.url}/v1/conversations/${conversationId}`, {
        headers: { authorization: 'Bearer demo-token' },
      })
    ).json()) as {
      messages: { role: string; message?: Message }[];
    };
    const persisted = refreshed.messages.find((message) => message.role === 'assistant')?.message;
    expect(persisted).toEqual(toMessage(live));

    const toolCallId = live.pause?.pending[0]?.toolCallId ?? '';
    const [approved, doubled] = await Promise.allSettled([
      client
        .decide(live.runId ?? '', toolCallId, 'approve', { state: fromMessage(toMessage(live)) })
        .result(),
      client.decide(live.runId ?? '', toolCallId, 'approve').result(),
    ]);
    expect(approved.status === 'fulfilled' || doubled.status === 'fulfilled').toBe(true);
    const finalState =
      approved.status === 'fulfilled'
        ? approved.value
        : doubled.status === 'fulfilled'
          ? doubled.value
          : undefined;
    const conflict =
      approved.status === 'rejected'
        ? approved.reason
        : doubled.status === 'rejected'
          ? doubled.reason
          : undefined;
    expect(conflict).toMatchObject({ status: 409, code: 'decision_conflict' });
    const after = (await (
      await fetch(`${server.url}/v1/conversations/${conversationId}`, {
        headers: { authorization: 'Bearer demo-token' },
      })
    ).json()) as {
      messages: { role: string; message?: Message }[];
    };
    const final = after.messages.at(-1)?.message as Message;
    expect(final.status).toBe('completed');
    expect(final.messageId).toBe(live.messageId);
    expect(shape(final).slice(7)).toEqual(['tool:cancel_order:done', 'confirm:approved', 'answer:done']);
    expect(finalState?.status ?? final.status).toBe('completed');
    // The order was cancelled exactly once: asking again shows it cancelled, not cancelled twice.
    const status = await client.sendMessage(conversationId, { text: '88235 现在什么状态' }).result();
    const query = status.blocks.find((block) => block.kind === 'tool' && block.name === 'query_order');
    expect(JSON.stringify(query?.kind === 'tool' ? query.result : null)).toContain('已取消');
  });
});

describe('npm start after a crash', () => {
  it('marks a run the crash left running as interrupted, with the error block, in the real SQLite file', async () => {
    await server.close();
    // What a crash leaves behind: a run still `running`, its message persisted mid-answer.
    const database = openDatabase(testServer.databasePath);
    const store = new SqliteRunStore(database);
    const conversation = await store.createConversation('usr_demo', '崩溃前的对话');
    await store.addUserMessage(conversation.id, '帮我取消订单');
    await store.createRun({
      id: 'run_crashed',
      conversationId: conversation.id,
      messageId: 'msg_crashed',
      userId: 'usr_demo',
      status: 'running',
      cancelReason: null,
      lastSeq: 3,
      leaseOwner: null,
      leaseExpiresAt: null,
    });
    const partial = reduceAll(createMessageState(), [
      {
        type: 'run.started',
        runId: 'run_crashed',
        seq: 1,
        at: 1,
        conversationId: conversation.id,
        messageId: 'msg_crashed',
      },
      { type: 'block.started', runId: 'run_crashed', seq: 2, at: 2, blockId: 'blk_1', kind: 'answer' },
      { type: 'block.delta', runId: 'run_crashed', seq: 3, at: 3, blockId: 'blk_1', text: '我先看下' },
    ]);
    await store.saveAssistantMessage(conversation.id, 'msg_crashed', 'run_crashed', toMessage(partial));
    database.close();

    server = await testServer.restart();
    const headers = { authorization: 'Bearer demo-token' };
    const run = (await (await fetch(`${server.url}/v1/runs/run_crashed`, { headers })).json()) as Record<
      string,
      unknown
    >;
    expect(run).toMatchObject({ status: 'interrupted', cancelReason: 'server_restart' });
    const view = (await (
      await fetch(`${server.url}/v1/conversations/${conversation.id}`, { headers })
    ).json()) as {
      messages: { role: string; message?: Message }[];
    };
    const message = view.messages.at(-1)?.message as Message;
    expect(shape(message)).toEqual(['answer:interrupted', 'error:done']);
    expect(message.blocks[1]).toMatchObject({ text: '本轮异常中断，请核对刚才提交的操作是否已经生效。' });
    // A new message in that conversation is accepted again.
    const next = await createRunstreamClient({ baseUrl: server.url, token: 'demo-token' })
      .sendMessage(conversation.id, { text: '88235 现在什么状态' })
      .result();
    expect(next.status).toBe('completed');
  });
});
