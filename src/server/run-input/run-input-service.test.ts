import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ChatModel, ScriptedChatModel, textTurn, toolCallTurn } from '../../models/index.ts';
import { type HostToolDefinition, RUN_MESSAGES, RunManager } from '../../runtime/index.ts';
import { recordingCancelOrder } from '../../runtime/test-support/recording-cancel-order.ts';
import { testAgent } from '../../runtime/test-support/test-agent.ts';
import { openDatabase, SqliteRunStore, type User } from '../../store/index.ts';
import { GatedChatModel } from '../ai-sdk/test-support/gated-chat-model.ts';
import { UserLimits } from '../user-limits.ts';
import { dialectConversationId } from './dialect-conversation.ts';
import { type FaceThread, RunInputService, type UserTurn } from './run-input-service.ts';

/**
 * The input service on a real SQLite file with a scripted model: how a face's request becomes a
 * decision, host results or a new run, and what it refuses, before the faces' own HTTP tests.
 */
const { tool: cancelOrder, executed } = recordingCancelOrder();
const readFile: HostToolDefinition = {
  name: 'read_local_file',
  description: 'Read a file on the user’s machine.',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};

let directory: string;
let database: Database;
let store: SqliteRunStore;
let runs: RunManager | undefined;
let ada: User;
let bob: User;

beforeEach(async () => {
  executed.length = 0;
  directory = mkdtempSync(join(tmpdir(), 'runstream-input-'));
  database = openDatabase(join(directory, 'runstream.db'));
  store = new SqliteRunStore(database);
  ada = await store.createUser('ada');
  bob = await store.createUser('bob');
});

afterEach(async () => {
  await runs?.close();
  runs = undefined;
  database.close();
  rmSync(directory, { recursive: true, force: true });
});

/** The service over two agents, `alpha` (the default, with `cancel_order`) and `beta`. */
function service(model: ChatModel, limits?: UserLimits): RunInputService {
  runs = new RunManager({
    agents: [
      testAgent({ id: 'alpha', model, tools: [cancelOrder] }),
      testAgent({ id: 'beta', model: new ScriptedChatModel([]) }),
    ],
    store,
  });
  return new RunInputService({ store, runs, limits });
}

function manager(): RunManager {
  if (runs === undefined) throw new Error('no service yet');
  return runs;
}

const thread = (threadId: string): FaceThread => ({ dialect: 'test-face', threadId });

function turn(text: string, options: UserTurn['options'] = {}): UserTurn {
  return { agentId: 'alpha', text, options: { face: 'ag-ui', ...options } };
}

/** A thread's first turn, settled: paused on what the scripted model called. */
async function pausedTurn(input: RunInputService, threadId: string, options: UserTurn['options'] = {}) {
  const started = await input.start(ada.id, { thread: thread(threadId) }, turn('帮我处理一下', options));
  await manager().settled(started.log.runId);
  return started;
}

async function refusal(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`expected a refusal, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );
}

const twoCancels = () =>
  new ScriptedChatModel([
    toolCallTurn([
      { id: 'call_a', name: 'cancel_order', arguments: { orderId: '1' } },
      { id: 'call_b', name: 'cancel_order', arguments: { orderId: '2' } },
    ]),
    textTurn('都处理好了。'),
  ]);

describe('RunInputService.start', () => {
  it('makes the thread’s conversation for its agent on the first turn and reuses it after', async () => {
    const input = service(new ScriptedChatModel([textTurn('你好！'), textTurn('还在。')]));
    const first = await input.start(ada.id, { thread: thread('t-1') }, turn('你好'));
    expect(first.afterSeq).toBe(0);
    expect(first.conversationId).toBe(dialectConversationId(ada.id, 'test-face', 't-1'));
    await manager().settled(first.log.runId);
    const second = await input.start(ada.id, { thread: thread('t-1') }, turn('在吗'));
    await manager().settled(second.log.runId);
    expect(second.conversationId).toBe(first.conversationId);
    expect(await store.getConversation(first.conversationId)).toMatchObject({
      userId: ada.id,
      agentId: 'alpha',
      title: '你好',
    });
    expect(second.log.state.status).toBe('completed');
    // Another user's thread of the same name is a conversation of their own.
    expect(await input.threadConversation(bob.id, thread('t-1'))).toBeUndefined();
  });

  it('starts in a conversation the face keeps, or a new one of the turn’s agent', async () => {
    const input = service(new ScriptedChatModel([textTurn('一'), textTurn('二')]));
    const fresh = await input.start(ada.id, { conversationId: undefined }, turn('第一个问题'));
    await manager().settled(fresh.log.runId);
    const again = await input.start(ada.id, { conversationId: fresh.conversationId }, turn('第二个问题'));
    expect(again.conversationId).toBe(fresh.conversationId);
    expect((await store.listConversations(ada.id)).map((conversation) => conversation.id)).toEqual([
      fresh.conversationId,
    ]);
  });

  it('refuses bad run options and a start over the cap before a conversation exists', async () => {
    const gated = new GatedChatModel(new ScriptedChatModel([textTurn(['慢', '慢', '说'])]), 1);
    const input = service(gated, new UserLimits({ maxRunningRuns: 1 }));
    const clash = await refusal(
      input.start(
        ada.id,
        { thread: thread('bad') },
        turn('你好', { hostTools: [{ ...readFile, name: 'cancel_order' }] }),
      ),
    );
    expect(clash).toMatchObject({ code: 'invalid_request' });
    const running = await input.start(ada.id, { thread: thread('busy') }, turn('先问一个'));
    await gated.reached;
    const capped = await refusal(input.start(ada.id, { thread: thread('second') }, turn('再问一个')));
    expect(capped).toMatchObject({ status: 429, code: 'too_many_runs' });
    expect(await input.threadConversation(ada.id, thread('bad'))).toBeUndefined();
    expect(await input.threadConversation(ada.id, thread('second'))).toBeUndefined();
    gated.open();
    await manager().settled(running.log.runId);
  });
});

describe('RunInputService.agentOf', () => {
  it('keeps a thread’s or a conversation’s agent and refuses another with agent_mismatch', async () => {
    const input = service(new ScriptedChatModel([textTurn('好的')]));
    expect((await input.agentOf(ada.id, { thread: thread('new') }, 'beta')).id).toBe('beta');
    expect((await input.agentOf(ada.id, { conversationId: undefined }, undefined)).id).toBe('alpha');
    const started = await input.start(ada.id, { thread: thread('kept') }, turn('你好'));
    await manager().settled(started.log.runId);
    expect((await input.agentOf(ada.id, { thread: thread('kept') }, undefined)).id).toBe('alpha');
    expect(await refusal(input.agentOf(ada.id, { thread: thread('kept') }, 'beta'))).toMatchObject({
      status: 400,
      code: 'agent_mismatch',
      details: { agentId: 'alpha' },
    });
    const chain = { conversationId: started.conversationId };
    expect(await refusal(input.agentOf(ada.id, chain, 'beta', { param: 'model' }))).toMatchObject({
      code: 'agent_mismatch',
      details: { agentId: 'alpha', param: 'model' },
    });
    // Another user's conversation is none of theirs.
    expect(await refusal(input.agentOf(bob.id, chain, undefined))).toMatchObject({
      status: 404,
      code: 'not_found',
    });
    expect(await refusal(input.agentOf(ada.id, { thread: thread('x') }, 'gamma'))).toMatchObject({
      code: 'unknown_agent',
    });
  });
});

describe('RunInputService.pausedRun', () => {
  it('refuses a thread the caller does not have, one with nothing waiting, and another message than the waiting run’s', async () => {
    const input = service(twoCancels());
    expect(await refusal(input.pausedRun(ada.id, thread('none')))).toMatchObject({
      status: 404,
      code: 'not_found',
      message: 'no such thread',
    });
    expect(
      await refusal(input.pausedRun(ada.id, thread('none'), { refusals: { noThread: 'no such chat' } })),
    ).toMatchObject({ message: 'no such chat' });
    expect(await input.waitingRun(ada.id, thread('none'))).toBe('missing');

    const { log } = await pausedTurn(input, 'cards');
    // Bob names the same thread: his own, which he does not have.
    expect(await refusal(input.pausedRun(bob.id, thread('cards')))).toMatchObject({ status: 404 });
    expect(await refusal(input.pausedRun(ada.id, thread('cards'), { reason: 'tool_result' }))).toMatchObject({
      status: 409,
      code: 'not_waiting_for_tool_results',
    });
    const messageId = (await store.getRun(log.runId))?.messageId;
    expect(
      await refusal(input.pausedRun(ada.id, thread('cards'), { messageId: 'msg_of_an_earlier_run' })),
    ).toMatchObject({ status: 409, code: 'run_finished', details: { messageId } });
    const waiting = await input.pausedRun(ada.id, thread('cards'), { reason: 'confirmation', messageId });
    expect(waiting.run.id).toBe(log.runId);
    expect(waiting.pause?.pending.map((call) => call.toolCallId)).toEqual(['call_a', 'call_b']);
    expect((await input.activeRun(ada.id, thread('cards')))?.id).toBe(log.runId);
  });

  it('says nothing waits on a thread whose run has finished', async () => {
    const input = service(new ScriptedChatModel([textTurn('好了')]));
    await pausedTurn(input, 'done');
    expect(await input.waitingRun(ada.id, thread('done'))).toBeUndefined();
    expect(await input.activeRun(ada.id, thread('done'))).toBeUndefined();
    expect(await refusal(input.pausedRun(ada.id, thread('done'), { reason: 'confirmation' }))).toMatchObject({
      status: 409,
      code: 'not_paused',
      message: 'nothing on this thread waits for a decision',
    });
  });
});

describe('RunInputService.decide', () => {
  it('every: refuses an answer for a call that does not wait, and a pause half answered; then resumes once', async () => {
    const input = service(twoCancels());
    const { log } = await pausedTurn(input, 'every');
    const pausedSeq = log.lastSeq;
    const waiting = await input.pausedRun(ada.id, thread('every'), { reason: 'confirmation' });
    const how = { coverage: 'every' as const, refusals: { notOpen: (id: string) => `resume: no ${id}` } };
    expect(
      await refusal(input.decide(ada.id, waiting, [{ toolCallId: 'call_x', decision: 'approve' }], how)),
    ).toMatchObject({ status: 400, message: 'resume: no call_x', details: { open: ['call_a', 'call_b'] } });
    expect(
      await refusal(input.decide(ada.id, waiting, [{ toolCallId: 'call_a', decision: 'approve' }], how)),
    ).toMatchObject({ status: 400, message: 'answer every open call', details: { missing: ['call_b'] } });
    // Nothing was decided by the refused requests.
    expect((await store.listToolCalls(log.runId)).map((call) => call.decision)).toEqual([null, null]);

    const mapped: number[] = [];
    const decided = await input.decide(
      ada.id,
      waiting,
      [
        { toolCallId: 'call_a', decision: 'approve' },
        { toolCallId: 'call_b', decision: 'reject', note: '不要这个' },
      ],
      { ...how, face: (faceLog) => mapped.push(faceLog.lastSeq) },
    );
    expect(decided.afterSeq).toBe(pausedSeq);
    expect(mapped).toEqual([pausedSeq]);
    await manager().settled(log.runId);
    expect(decided.log.state.status).toBe('completed');
    expect(decided.log.since(decided.afterSeq).events[0]?.seq).toBe(pausedSeq + 1);
    expect(executed).toEqual(['1']);
  });

  it('pending: takes the answers for calls that wait, skips a decision already taken, refuses a different one', async () => {
    const input = service(twoCancels());
    const { log } = await pausedTurn(input, 'pending');
    const how = { coverage: 'pending' as const };
    const first = await input.pausedRun(ada.id, thread('pending'));
    expect(
      await refusal(input.decide(ada.id, first, [{ toolCallId: 'call_old', decision: 'approve' }], how)),
    ).toMatchObject({
      status: 400,
      code: 'invalid_request',
      message: 'no decision for a call the run waits for',
      details: { pending: ['call_a', 'call_b'] },
    });
    // An answer to an earlier run's call comes along and is left; call_a is decided, the run waits on.
    await input.decide(
      ada.id,
      first,
      [
        { toolCallId: 'call_old', decision: 'reject' },
        { toolCallId: 'call_a', decision: 'approve' },
      ],
      how,
    );
    expect((await store.getRun(log.runId))?.status).toBe('paused');

    const second = await input.pausedRun(ada.id, thread('pending'));
    const conflict = await refusal(
      input.decide(
        ada.id,
        second,
        [
          { toolCallId: 'call_a', decision: 'reject' },
          { toolCallId: 'call_b', decision: 'approve' },
        ],
        how,
      ),
    );
    expect(conflict).toMatchObject({
      status: 409,
      code: 'decision_conflict',
      message: RUN_MESSAGES['zh-CN'].alreadyDecided,
      details: { decision: { decision: 'approve' } },
    });
    // Refused whole: call_b was not decided by it.
    expect((await store.getToolCall(log.runId, 'call_b'))?.decision).toBeNull();
    expect(
      await refusal(input.decide(ada.id, second, [{ toolCallId: 'call_a', decision: 'approve' }], how)),
    ).toMatchObject({ status: 400, details: { pending: ['call_b'] } });

    await input.decide(
      ada.id,
      second,
      [
        { toolCallId: 'call_a', decision: 'approve' },
        { toolCallId: 'call_b', decision: 'approve' },
      ],
      how,
    );
    await manager().settled(log.runId);
    expect(log.state.status).toBe('completed');
    expect(executed.sort()).toEqual(['1', '2']);
  });

  it('as-sent: a run named by id; the same decision again is reported as a retry, or refused', async () => {
    const input = service(
      new ScriptedChatModel([
        toolCallTurn([{ id: 'call_w', name: 'cancel_order', arguments: { orderId: '7' } }]),
        textTurn('已取消。'),
      ]),
    );
    const { log } = await pausedTurn(input, 'by-id');
    expect(await refusal(input.runOf(bob.id, log.runId))).toMatchObject({ code: 'not_found' });
    const decision = [{ toolCallId: 'call_w', decision: 'approve' as const }];
    const decided = await input.decide(ada.id, await input.runOf(ada.id, log.runId), decision, {
      coverage: 'as-sent',
    });
    expect(decided.retried).toBeUndefined();
    await manager().settled(log.runId);
    const finished = await input.runOf(ada.id, log.runId);
    expect(finished.pause).toBeNull();
    const retried = await input.decide(ada.id, finished, decision, {
      coverage: 'as-sent',
      retries: 'report',
    });
    expect(retried).toMatchObject({ retried: 'call_w', afterSeq: log.lastSeq });
    expect(await refusal(input.decide(ada.id, finished, decision, { coverage: 'as-sent' }))).toMatchObject({
      name: 'RunError',
      code: 'decision_conflict',
    });
    expect(
      await refusal(
        input.decide(ada.id, finished, [{ toolCallId: 'call_w', decision: 'reject' }], {
          coverage: 'as-sent',
          retries: 'report',
        }),
      ),
    ).toMatchObject({ code: 'decision_conflict' });
    expect(executed).toEqual(['7']);
  });
});

describe('RunInputService.submit', () => {
  const twoReads = () =>
    new ScriptedChatModel([
      toolCallTurn([
        { id: 'call_1', name: 'read_local_file', arguments: { path: 'a.md' } },
        { id: 'call_2', name: 'read_local_file', arguments: { path: 'b.md' } },
      ]),
      textTurn('两个文件都读完了。'),
    ]);

  it('pending: takes the results for calls that wait, keeps waiting until each has one, then resumes', async () => {
    const input = service(twoReads());
    const { log } = await pausedTurn(input, 'host', { hostTools: [readFile] });
    const pausedSeq = log.lastSeq;
    expect(await refusal(input.pausedRun(ada.id, thread('host'), { reason: 'confirmation' }))).toMatchObject({
      status: 409,
      code: 'not_paused',
    });
    const how = { coverage: 'pending' as const };
    const waiting = await input.pausedRun(ada.id, thread('host'), { reason: 'tool_result' });
    expect(
      await refusal(input.submit(ada.id, waiting, [{ toolCallId: 'call_9', output: '?' }], how)),
    ).toMatchObject({
      status: 400,
      message: 'no tool result for a call the run waits for',
      details: { pending: ['call_1', 'call_2'] },
    });
    const half = await input.submit(
      ada.id,
      waiting,
      [
        { toolCallId: 'call_1', output: 'A' },
        { toolCallId: 'call_9', output: 'not this run’s' },
      ],
      how,
    );
    expect(half).toMatchObject({ resumed: false, open: ['call_2'], afterSeq: pausedSeq });
    const rest = await input.submit(
      ada.id,
      await input.pausedRun(ada.id, thread('host'), { reason: 'tool_result' }),
      [
        { toolCallId: 'call_1', output: 'A' },
        { toolCallId: 'call_2', error: '文件不存在' },
      ],
      how,
    );
    expect(rest).toMatchObject({ resumed: true, open: [] });
    await manager().settled(log.runId);
    expect(rest.log.state.status).toBe('completed');
    expect((await store.listToolCalls(log.runId)).map((call) => call.hostResult)).toEqual([
      { output: 'A' },
      { error: '文件不存在' },
    ]);
  });

  it('as-sent: the runtime refuses a result for no waiting call, and a different result for an answered one', async () => {
    const input = service(twoReads());
    const { log } = await pausedTurn(input, 'host-id', { hostTools: [readFile] });
    const how = { coverage: 'as-sent' as const };
    const run = await input.runOf(ada.id, log.runId);
    expect(
      await refusal(input.submit(ada.id, run, [{ toolCallId: 'call_9', output: '?' }], how)),
    ).toMatchObject({ name: 'RunError', code: 'unknown_tool_call' });
    await input.submit(ada.id, run, [{ toolCallId: 'call_1', output: 'A' }], how);
    expect(
      await refusal(input.submit(ada.id, run, [{ toolCallId: 'call_1', output: 'B' }], how)),
    ).toMatchObject({ code: 'tool_result_conflict' });
    const done = await input.submit(ada.id, run, [{ toolCallId: 'call_2', output: 'C' }], how);
    expect(done.resumed).toBe(true);
    await manager().settled(log.runId);
  });
});
