import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteOrderRepository } from '../../../examples/novashop/orders/sqlite-order-repository.ts';
import { openDatabase } from '../../store/index.ts';
import { startTestServer, TEST_TOKEN, type TestServer } from '../test-support/start-test-server.ts';
import {
  agentFor,
  eventsOf,
  parseAgUiSse,
  type RecordedRun,
  record,
  runstreamOf,
  secondUser,
} from './test-support/ag-ui-agent.ts';

/**
 * What another user, no token and malformed input get from /v1/ag-ui; then a NovaShop write
 * (cancel_order) with the offline demo model: the confirmation is an AG-UI interrupt on RUN_FINISHED,
 * the next run's `resume` entry is the owner's decision, and the write runs exactly once (the
 * approval comes last: it cancels the seed order the other tests ask about).
 */
const SEED = '我买的那块表还没发货的话，帮我取消吧，不想要了。';

let testServer: TestServer;
let url: string;

beforeAll(async () => {
  testServer = await startTestServer({ env: { RUNSTREAM_RATE_LIMIT: '0' } });
  url = testServer.server.url;
});

afterAll(async () => {
  await testServer.close();
});

async function orderStatus(orderId: string): Promise<string | undefined> {
  const database = openDatabase(testServer.databasePath);
  try {
    return (await new SqliteOrderRepository(database).getOrder('usr_demo', orderId))?.status;
  } finally {
    database.close();
  }
}

/** The audit log's entries of the run's cancel_order calls: one per execution or refusal. */
async function cancelOrderAudit(runId: string): Promise<{ outcome: string; face: string }[]> {
  const response = await fetch(`${url}/v1/tool-audit?run_id=${runId}`, {
    headers: { authorization: `Bearer ${TEST_TOKEN}` },
  });
  const body = (await response.json()) as { data: { name: string; outcome: string; face: string }[] };
  return body.data.filter((entry) => entry.name === 'cancel_order');
}

function post(body: unknown, token: string | null = TEST_TOKEN): Promise<Response> {
  return fetch(`${url}/v1/ag-ui`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

function runstreamRunId(run: RecordedRun): string {
  return runstreamOf(run).runId;
}

describe('what /v1/ag-ui refuses', () => {
  it('answers 401 without a token, and HttpAgent rejects with the status', async () => {
    const agent = agentFor(url, 'thread-anonymous', null);
    agent.addMessage({ id: 'user-1', role: 'user', content: '你好' });
    const run = await record(agent, { runId: 'agui-401' });
    expect(run.error?.status).toBe(401);
    expect(run.error?.payload).toMatchObject({ error: { code: 'unauthorized' } });
  });

  it("keeps another user's thread and run out of reach (404), and their thread id names a thread of their own", async () => {
    const bob = await secondUser(testServer, 'Bob');
    const alice = agentFor(url, 'thread-shared-name');
    alice.addMessage({ id: 'user-1', role: 'user', content: SEED });
    const paused = await record(alice, { runId: 'agui-alice-1' });
    const [interrupt] = alice.pendingInterrupts;
    const aliceRun = runstreamRunId(paused);

    // Bob answering Alice's interrupt on her thread id: he has no such thread.
    const resumeAsBob = await post(
      {
        threadId: 'thread-shared-name',
        runId: 'agui-bob-1',
        messages: [],
        resume: [{ interruptId: interrupt?.id, status: 'resolved', payload: { decision: 'approve' } }],
      },
      bob,
    );
    expect(resumeAsBob.status).toBe(404);
    const events = await fetch(`${url}/v1/ag-ui/runs/${aliceRun}/events`, {
      headers: { authorization: `Bearer ${bob}` },
    });
    expect(events.status).toBe(404);
    const cancel = await fetch(`${url}/v1/runs/${aliceRun}/cancel`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bob}` },
    });
    expect(cancel.status).toBe(404);

    // The same thread id from Bob is Bob's own thread: a run of his, not a message in Alice's.
    const bobAgent = agentFor(url, 'thread-shared-name', bob);
    bobAgent.addMessage({ id: 'user-1', role: 'user', content: '你好' });
    const bobRun = await record(bobAgent, { runId: 'agui-bob-2' });
    expect(bobRun.types.at(-1)).toBe('RUN_FINISHED');
    const bobConversation = runstreamOf(bobRun).conversationId;
    const aliceConversation = runstreamOf(paused).conversationId;
    expect(bobConversation).not.toBe(aliceConversation);
    // Alice's run still waits for her, untouched.
    expect(alice.state).toMatchObject({ runstream: { status: 'paused' } });
    const aliceStatus = await fetch(`${url}/v1/runs/${aliceRun}`, {
      headers: { authorization: `Bearer ${TEST_TOKEN}` },
    });
    expect(await aliceStatus.json()).toMatchObject({ status: 'paused' });
  });

  it('answers malformed input with 400 and a readable reason, and loses nothing', async () => {
    const notJson = await post('{"threadId": ');
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toMatchObject({ error: { code: 'invalid_json' } });

    const noThread = await post({ runId: 'r', messages: [] });
    expect(noThread.status).toBe(400);
    expect(await noThread.json()).toMatchObject({
      error: { code: 'invalid_request', message: expect.stringContaining('threadId') },
    });

    const badRole = await post({
      threadId: 't',
      runId: 'r',
      messages: [{ id: 'm', role: 'robot', content: 'x' }],
    });
    expect(badRole.status).toBe(400);

    const badTool = await post({
      threadId: 'thread-bad-tool',
      runId: 'r',
      messages: [{ id: 'm', role: 'user', content: '你好' }],
      tools: [{ name: 'query_order', description: 'a tool named like a server tool' }],
    });
    expect(badTool.status).toBe(400);
    expect(await badTool.json()).toMatchObject({ error: { code: 'invalid_request' } });

    // Nothing to run: HttpAgent sends an empty history.
    const empty = await record(agentFor(url, 'thread-empty'), { runId: 'agui-empty' });
    expect(empty.error?.status).toBe(400);

    // A resume whose payload is not a decision leaves the paused run waiting.
    const agent = agentFor(url, 'thread-bad-resume');
    agent.addMessage({ id: 'user-1', role: 'user', content: SEED });
    const paused = await record(agent, { runId: 'agui-bad-resume-1' });
    const [interrupt] = agent.pendingInterrupts;
    const badPayload = await post({
      threadId: 'thread-bad-resume',
      runId: 'agui-bad-resume-2',
      messages: [],
      resume: [{ interruptId: interrupt?.id, status: 'resolved', payload: { decision: 'maybe' } }],
    });
    expect(badPayload.status).toBe(400);
    const unknown = await post({
      threadId: 'thread-bad-resume',
      runId: 'agui-bad-resume-3',
      messages: [],
      resume: [{ interruptId: 'call_nope', status: 'resolved', payload: 'approve' }],
    });
    expect(unknown.status).toBe(400);
    const status = await fetch(`${url}/v1/runs/${runstreamRunId(paused)}`, {
      headers: { authorization: `Bearer ${TEST_TOKEN}` },
    });
    expect(await status.json()).toMatchObject({ status: 'paused' });
    expect(await cancelOrderAudit(runstreamRunId(paused))).toEqual([]);
  });
});

describe('a confirmation as an AG-UI interrupt', () => {
  it('ends the stream with the interrupt, and a rejection leaves the order as it was', async () => {
    const agent = agentFor(url, 'thread-reject');
    agent.addMessage({ id: 'user-1', role: 'user', content: SEED });
    const paused = await record(agent, { runId: 'agui-reject-1' });

    expect(paused.error).toBeUndefined();
    expect(paused.types.at(-1)).toBe('RUN_FINISHED');
    const [finished] = eventsOf(paused, 'RUN_FINISHED');
    const outcome = finished?.outcome as { type: string; interrupts: Record<string, unknown>[] };
    expect(outcome.type).toBe('interrupt');
    expect(outcome.interrupts).toHaveLength(1);
    const interrupt = outcome.interrupts[0] as Record<string, unknown>;
    expect(interrupt).toMatchObject({
      reason: 'confirmation',
      message: expect.stringContaining('88235'),
      metadata: { runstream: { toolName: 'cancel_order', args: { orderId: '88235' } } },
    });
    expect(interrupt.id).toBe(interrupt.toolCallId);
    // The write's call is on the client's messages already, its result still to come.
    const cancelCall = agent.messages.flatMap((message) =>
      message.role === 'assistant' ? (message.toolCalls ?? []) : [],
    );
    expect(cancelCall.map((call) => call.function.name)).toContain('cancel_order');
    expect(agent.pendingInterrupts.map((pending) => pending.id)).toEqual([interrupt.id]);
    expect(agent.state).toMatchObject({ runstream: { status: 'paused', pause: { reason: 'confirmation' } } });

    // A new message now is refused, as on every face: the decision comes first.
    const blocked = await post({
      threadId: 'thread-reject',
      runId: 'agui-reject-x',
      messages: [{ id: 'user-2', role: 'user', content: '算了' }],
    });
    expect(blocked.status).toBe(409);
    expect(await blocked.json()).toMatchObject({ error: { code: 'confirmation_pending' } });

    const rejected = await record(agent, {
      runId: 'agui-reject-2',
      resume: [{ interruptId: interrupt.id as string, status: 'resolved', payload: { decision: 'reject' } }],
    });
    expect(rejected.error).toBeUndefined();
    expect(rejected.types[0]).toBe('RUN_STARTED');
    expect(rejected.types.at(-1)).toBe('RUN_FINISHED');
    const [result] = eventsOf(rejected, 'TOOL_CALL_RESULT');
    expect(result).toMatchObject({ toolCallId: interrupt.toolCallId });
    expect(JSON.parse(result?.content as string)).toMatchObject({ status: 'rejected' });
    expect(eventsOf(rejected, 'RUN_FINISHED')[0]).toMatchObject({ outcome: { type: 'success' } });
    expect(agent.pendingInterrupts).toEqual([]);
    expect(agent.state).toMatchObject({ runstream: { status: 'completed' } });

    expect(await orderStatus('88235')).toBe('已支付待发货');
    expect(await cancelOrderAudit(runstreamRunId(paused))).toEqual([
      expect.objectContaining({ outcome: 'rejected', face: 'ag-ui' }),
    ]);
  });

  it('stops the paused run when its interrupt is cancelled with a new message, which starts the next run', async () => {
    const agent = agentFor(url, 'thread-cancel-interrupt');
    agent.addMessage({ id: 'user-1', role: 'user', content: SEED });
    const paused = await record(agent, { runId: 'agui-cancel-1' });
    const [interrupt] = agent.pendingInterrupts;
    agent.addMessage({ id: 'user-2', role: 'user', content: '算了，先不取消了。' });
    const next = await record(agent, {
      runId: 'agui-cancel-2',
      resume: [{ interruptId: interrupt?.id as string, status: 'cancelled' }],
    });

    expect(next.error).toBeUndefined();
    expect(next.types.at(-1)).toBe('RUN_FINISHED');
    expect(runstreamOf(next).runId).not.toBe(runstreamOf(paused).runId);
    expect(runstreamOf(next).conversationId).toBe(runstreamOf(paused).conversationId);
    expect(agent.pendingInterrupts).toEqual([]);
    const stopped = await fetch(`${url}/v1/runs/${runstreamOf(paused).runId}`, {
      headers: { authorization: `Bearer ${TEST_TOKEN}` },
    });
    expect(await stopped.json()).toMatchObject({ status: 'cancelled', cancelReason: 'interrupt_cancelled' });
    expect(await orderStatus('88235')).toBe('已支付待发货');
    expect(
      (await cancelOrderAudit(runstreamOf(paused).runId)).every((entry) => entry.outcome !== 'done'),
    ).toBe(true);
  });

  it('refuses a cancelled interrupt whose new message cannot start a run, and leaves the paused run waiting', async () => {
    const agent = agentFor(url, 'thread-cancel-bad-message');
    agent.addMessage({ id: 'user-1', role: 'user', content: SEED });
    const paused = await record(agent, { runId: 'agui-cancel-bad-1' });
    const [interrupt] = agent.pendingInterrupts;
    for (const message of [
      { id: 'user-2', role: 'user', content: '   ' },
      { id: 'user-3', role: 'user', content: 'x'.repeat(100_001) },
    ]) {
      const refused = await post({
        threadId: 'thread-cancel-bad-message',
        runId: 'agui-cancel-bad-2',
        messages: [{ id: 'user-1', role: 'user', content: SEED }, message],
        resume: [{ interruptId: interrupt?.id, status: 'cancelled' }],
      });
      expect(refused.status).toBe(400);
    }
    const run = await fetch(`${url}/v1/runs/${runstreamOf(paused).runId}`, {
      headers: { authorization: `Bearer ${TEST_TOKEN}` },
    });
    expect(await run.json()).toMatchObject({ status: 'paused' });
  });

  it('knows a message with an id longer than the store keeps as the one the paused run answers', async () => {
    const longId = `user-${'l'.repeat(150)}`;
    const agent = agentFor(url, 'thread-long-id');
    agent.addMessage({ id: longId, role: 'user', content: SEED });
    const paused = await record(agent, { runId: 'agui-long-id-1' });
    const [interrupt] = agent.pendingInterrupts;
    const response = await post({
      threadId: 'thread-long-id',
      runId: 'agui-long-id-2',
      messages: [{ id: longId, role: 'user', content: SEED }],
      resume: [{ interruptId: interrupt?.id, status: 'cancelled' }],
    });
    expect(response.status).toBe(200);
    // A rejection of the paused run's write, not a second run of the same message.
    expect(parseAgUiSse(await response.text()).at(-1)?.event).toMatchObject({ type: 'RUN_FINISHED' });
    expect(await cancelOrderAudit(runstreamOf(paused).runId)).toEqual([
      expect.objectContaining({ outcome: 'rejected' }),
    ]);
  });

  it('takes a cancelled interrupt without a new message as a rejection of the write', async () => {
    const agent = agentFor(url, 'thread-cancel-only');
    agent.addMessage({ id: 'user-1', role: 'user', content: SEED });
    const paused = await record(agent, { runId: 'agui-cancel-only-1' });
    const [interrupt] = agent.pendingInterrupts;
    // The history ends with the message the paused run answers (a client that keeps only its own).
    const response = await post({
      threadId: 'thread-cancel-only',
      runId: 'agui-cancel-only-2',
      messages: [{ id: 'user-1', role: 'user', content: SEED }],
      resume: [{ interruptId: interrupt?.id, status: 'cancelled' }],
    });
    expect(response.status).toBe(200);
    const result = parseAgUiSse(await response.text()).find(
      (frame) => frame.event.type === 'TOOL_CALL_RESULT',
    );
    expect(JSON.parse(result?.event.content as string)).toMatchObject({ status: 'rejected' });
    const run = await fetch(`${url}/v1/runs/${runstreamOf(paused).runId}`, {
      headers: { authorization: `Bearer ${TEST_TOKEN}` },
    });
    expect(await run.json()).toMatchObject({ status: 'completed' });
    expect(await cancelOrderAudit(runstreamOf(paused).runId)).toEqual([
      expect.objectContaining({ outcome: 'rejected' }),
    ]);
  });

  it('runs the write exactly once on approval, however often the resume is sent', async () => {
    const agent = agentFor(url, 'thread-approve');
    agent.addMessage({ id: 'user-1', role: 'user', content: SEED });
    const paused = await record(agent, { runId: 'agui-approve-1' });
    const [interrupt] = agent.pendingInterrupts;
    expect(interrupt?.reason).toBe('confirmation');
    const resume = [
      { interruptId: interrupt?.id as string, status: 'resolved' as const, payload: { decision: 'approve' } },
    ];

    const approved = await record(agent, { runId: 'agui-approve-2', resume });
    expect(approved.error).toBeUndefined();
    const [result] = eventsOf(approved, 'TOOL_CALL_RESULT');
    expect(result).toMatchObject({
      toolCallId: interrupt?.toolCallId,
      content: expect.stringContaining('已取消'),
    });
    expect(approved.types.slice(-4)).toEqual([
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'STATE_SNAPSHOT',
      'RUN_FINISHED',
    ]);
    // The result sits right after the assistant message that made the call.
    const index = agent.messages.findIndex((message) => message.id === result?.messageId);
    expect(agent.messages[index - 1]?.role).toBe('assistant');

    // A retried resume (a double click, a proxy's retry) decides nothing twice.
    const again = await post({ threadId: 'thread-approve', runId: 'agui-approve-3', messages: [], resume });
    expect(again.status).toBe(409);
    expect(await orderStatus('88235')).toBe('已取消');
    expect(await cancelOrderAudit(runstreamRunId(paused))).toEqual([
      expect.objectContaining({ outcome: 'done', face: 'ag-ui' }),
    ]);
  });
});
