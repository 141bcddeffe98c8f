import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ChatRequest, ScriptedChatModel, textTurn, toolCallTurn } from '../../models/index.ts';
import type { Block, LoggedRunEvent, ToolBlock } from '../../protocol/index.ts';
import { MemoryRunStore, openDatabase, type RunStore, SqliteRunStore } from '../../store/index.ts';
import type { RunLog } from '../log/run-log.ts';
import type { RunError } from '../runs/run-error.ts';
import { RunManager } from '../runs/run-manager.ts';
import { recordingCancelOrder } from '../test-support/recording-cancel-order.ts';
import { testAgent } from '../test-support/test-agent.ts';
import type { HostToolDefinition } from './host-tool.ts';

const readFile: HostToolDefinition = {
  name: 'read_local_file',
  description: 'Read a text file on the user’s machine.',
  parameters: {
    type: 'object',
    properties: { path: { type: 'string', minLength: 1 } },
    required: ['path'],
    additionalProperties: false,
  },
};
const localTime: HostToolDefinition = {
  name: 'local_time',
  description: 'The local time of the user’s machine.',
  parameters: { type: 'object', properties: { timezone: { type: 'string' } } },
};

const { tool: cancelOrder, executed } = recordingCancelOrder();

/** A store and a way to open it again as a new process would (for SQLite, a new connection). */
interface StoreFixture {
  store: RunStore;
  reopen(): RunStore;
  close(): void;
}

const STORES: { name: string; create: () => StoreFixture }[] = [
  {
    name: 'MemoryRunStore',
    create: () => {
      const store = new MemoryRunStore();
      return { store, reopen: () => store, close: () => {} };
    },
  },
  {
    name: 'SqliteRunStore on a file',
    create: () => {
      const directory = mkdtempSync(join(tmpdir(), 'runstream-host-'));
      const path = join(directory, 'runstream.db');
      const databases = [openDatabase(path)];
      return {
        store: new SqliteRunStore(databases[0] as ReturnType<typeof openDatabase>),
        reopen: () => {
          const database = openDatabase(path);
          databases.push(database);
          return new SqliteRunStore(database);
        },
        close: () => {
          for (const database of databases) database.close();
          rmSync(directory, { recursive: true, force: true });
        },
      };
    },
  },
];

async function expectRunError(promise: Promise<unknown>, code: string): Promise<RunError> {
  const error = (await promise.then(
    (value) => {
      throw new Error(`expected RunError ${code}, got ${JSON.stringify(value)}`);
    },
    (caught: unknown) => caught,
  )) as RunError;
  expect(error).toMatchObject({ name: 'RunError', code });
  return error;
}

const kinds = (blocks: readonly Block[]) =>
  blocks.map((block) =>
    block.kind === 'tool' ? `tool:${block.name}:${block.status}` : `${block.kind}:${block.status}`,
  );

const toolBlock = (log: RunLog, toolCallId: string) =>
  log.state.blocks.find(
    (block): block is ToolBlock => block.kind === 'tool' && block.toolCallId === toolCallId,
  );

const toolMessages = (request: ChatRequest | undefined) =>
  request?.messages.filter((message) => message.role === 'tool') ?? [];

describe.each(STORES)('host tools with $name', ({ create }) => {
  let fixture: StoreFixture;
  let store: RunStore;
  let userId: string;
  let conversationId: string;

  beforeEach(async () => {
    executed.length = 0;
    fixture = create();
    store = fixture.store;
    userId = (await store.createUser('host')).id;
    conversationId = (await store.createConversation(userId, 'host tools')).id;
  });
  afterEach(() => fixture.close());

  function manager(model: ScriptedChatModel, runStore: RunStore = store): RunManager {
    return new RunManager({
      agents: [testAgent({ model, tools: [cancelOrder], skills: [], instructions: '你是助手。' })],
      store: runStore,
    });
  }

  async function startPaused(
    model: ScriptedChatModel,
    hostTools: HostToolDefinition[] = [readFile, localTime],
  ): Promise<{ runs: RunManager; log: RunLog; pausedSeq: number }> {
    const runs = manager(model);
    const log = await runs.startRun(userId, conversationId, '看看 README 写了什么', undefined, {
      hostTools,
      face: 'responses',
    });
    await runs.settled(log.runId);
    return { runs, log, pausedSeq: log.lastSeq };
  }

  it('one host call: the run pauses for its result, then the model goes on on the same log', async () => {
    const model = new ScriptedChatModel([
      toolCallTurn([{ id: 'call_read', name: 'read_local_file', arguments: { path: 'README.md' } }], {
        text: '我先读一下这个文件。',
      }),
      textTurn('README 一共 3 行。'),
    ]);
    const { runs, log, pausedSeq } = await startPaused(model);
    expect(model.requests[0]?.tools?.map((tool) => tool.name)).toEqual([
      'cancel_order',
      'read_local_file',
      'local_time',
    ]);
    expect(model.requests[0]?.tools?.[1]?.parameters).toEqual(readFile.parameters);
    expect(log.state.status).toBe('paused');
    expect(log.state.pause).toEqual({
      reason: 'tool_result',
      pending: [{ toolCallId: 'call_read', name: 'read_local_file', args: { path: 'README.md' } }],
    });
    expect(toolBlock(log, 'call_read')).toMatchObject({
      status: 'pending',
      args: { path: 'README.md' },
      endedAt: null,
    });
    expect(await store.getRun(log.runId)).toMatchObject({ status: 'paused', lastSeq: pausedSeq });
    expect(await store.listToolCalls(log.runId)).toMatchObject([
      { toolCallId: 'call_read', effect: 'host', status: 'pending', args: { path: 'README.md' } },
    ]);

    const submitted = await runs.submitToolResults(userId, log.runId, [
      { toolCallId: 'call_read', output: '{"lines": 3, "title": "runstream"}' },
    ]);
    expect(submitted).toEqual({ log, resumed: true });
    await runs.settled(log.runId);
    expect(log.state.status).toBe('completed');
    const started = log.since(0).events[0];
    expect(started?.type === 'run.started' && started.messageId).toBe(log.state.messageId);
    expect(log.since(0).events.filter((event) => event.type === 'run.started')).toHaveLength(1);
    const after = log.since(pausedSeq).events;
    expect(after[0]?.seq).toBe(pausedSeq + 1);
    expect(after.map((event) => event.type).slice(0, 3)).toEqual([
      'block.updated',
      'block.ended',
      'run.resumed',
    ]);
    expect(after[2]).toMatchObject({
      type: 'run.resumed',
      reason: 'tool_result',
      toolCallIds: ['call_read'],
    });
    expect(toolBlock(log, 'call_read')).toMatchObject({
      status: 'done',
      result: { lines: 3, title: 'runstream' },
    });
    expect(kinds(log.state.blocks)).toEqual(['answer:done', 'tool:read_local_file:done', 'answer:done']);
    expect(model.requests[1]?.messages.at(-1)).toEqual({
      role: 'tool',
      toolCallId: 'call_read',
      content: '{"lines": 3, "title": "runstream"}',
    });
    expect(log.state.anomalies).toEqual([]);
    expect(await store.getRun(log.runId)).toMatchObject({ status: 'completed', lastSeq: log.lastSeq });
    expect(await store.getToolCall(log.runId, 'call_read')).toMatchObject({
      status: 'done',
      result: { lines: 3, title: 'runstream' },
      hostResult: { output: '{"lines": 3, "title": "runstream"}' },
    });
    const messages = await store.listMessages(conversationId);
    const assistant = messages.at(-1);
    expect(assistant?.role === 'assistant' && assistant.message.status).toBe('completed');
  });

  it('two host calls of one turn wait together; a missing result keeps the run waiting', async () => {
    const model = new ScriptedChatModel([
      toolCallTurn([
        { id: 'call_read', name: 'read_local_file', arguments: { path: 'notes.txt' } },
        { id: 'call_time', name: 'local_time', arguments: {} },
      ]),
      textTurn('文件是空的，现在是上午十点。'),
    ]);
    const { runs, log, pausedSeq } = await startPaused(model);
    expect(log.state.pause?.pending.map((call) => call.toolCallId)).toEqual(['call_read', 'call_time']);
    const paused = log.since(0).events.filter((event) => event.type === 'run.paused');
    expect(paused).toHaveLength(1);

    expect(
      await runs.submitToolResults(userId, log.runId, [{ toolCallId: 'call_time', output: '10:00' }]),
    ).toEqual({ log, resumed: false });
    await runs.settled(log.runId);
    expect(log.lastSeq).toBe(pausedSeq);
    expect(log.state.status).toBe('paused');
    expect(await store.getRun(log.runId)).toMatchObject({ status: 'paused' });
    expect(model.requests).toHaveLength(1);
    // The same result again is a no-op, not an error.
    expect(
      await runs.submitToolResults(userId, log.runId, [{ toolCallId: 'call_time', output: '10:00' }]),
    ).toEqual({ log, resumed: false });

    const done = await runs.submitToolResults(userId, log.runId, [
      { toolCallId: 'call_time', output: '10:00' },
      { toolCallId: 'call_read', output: '' },
    ]);
    expect(done.resumed).toBe(true);
    await runs.settled(log.runId);
    expect(log.state.status).toBe('completed');
    expect(log.since(0).events.filter((event) => event.type === 'run.resumed')).toEqual([
      expect.objectContaining({ reason: 'tool_result', toolCallIds: ['call_read', 'call_time'] }),
    ]);
    expect(toolMessages(model.requests[1])).toEqual([
      { role: 'tool', toolCallId: 'call_read', content: '' },
      { role: 'tool', toolCallId: 'call_time', content: '10:00' },
    ]);
    expect(toolBlock(log, 'call_read')?.result).toBe('');
    expect(toolBlock(log, 'call_time')?.result).toBe('10:00');
    // A retry after the run moved on is still a no-op.
    expect(
      await runs.submitToolResults(userId, log.runId, [{ toolCallId: 'call_read', output: '' }]),
    ).toEqual({ log, resumed: false });
    expect(model.requests).toHaveLength(2);
    expect(log.state.anomalies).toEqual([]);
  });

  it('a different result for an answered call is a conflict; unknown ids are refused; all or nothing', async () => {
    const model = new ScriptedChatModel([
      toolCallTurn([
        { id: 'call_read', name: 'read_local_file', arguments: { path: 'a.txt' } },
        { id: 'call_time', name: 'local_time', arguments: {} },
      ]),
      textTurn('好的。'),
    ]);
    const { runs, log } = await startPaused(model);
    await runs.submitToolResults(userId, log.runId, [{ toolCallId: 'call_time', output: '10:00' }]);
    const conflict = await expectRunError(
      runs.submitToolResults(userId, log.runId, [{ toolCallId: 'call_time', output: '11:00' }]),
      'tool_result_conflict',
    );
    expect(conflict.details).toMatchObject({ toolCallId: 'call_time', result: { output: '10:00' } });
    await expectRunError(
      runs.submitToolResults(userId, log.runId, [{ toolCallId: 'call_time', error: 'no clock' }]),
      'tool_result_conflict',
    );
    // A valid result next to an unknown id: nothing is stored.
    const unknown = await expectRunError(
      runs.submitToolResults(userId, log.runId, [
        { toolCallId: 'call_read', output: 'x' },
        { toolCallId: 'call_nope', output: 'y' },
      ]),
      'unknown_tool_call',
    );
    expect(unknown.details).toEqual({ toolCallId: 'call_nope' });
    // Nor next to a conflicting one.
    await expectRunError(
      runs.submitToolResults(userId, log.runId, [
        { toolCallId: 'call_read', output: 'x' },
        { toolCallId: 'call_time', output: '12:00' },
      ]),
      'tool_result_conflict',
    );
    expect((await store.getToolCall(log.runId, 'call_read'))?.hostResult).toBeUndefined();
    expect(log.state.status).toBe('paused');
    // Malformed submissions are refused whole, too.
    for (const results of [
      [],
      [{ toolCallId: 'call_read' }],
      [{ toolCallId: 'call_read', output: 'x', error: 'y' }],
      [{ toolCallId: 'call_read', output: { text: 'x' } }],
      [
        { toolCallId: 'call_read', output: 'x' },
        { toolCallId: 'call_read', output: 'z' },
      ],
      [{ output: 'x' }],
    ]) {
      await expectRunError(
        runs.submitToolResults(
          userId,
          log.runId,
          results as unknown as { toolCallId: string; output: string }[],
        ),
        'invalid_request',
      );
    }
    expect((await store.getToolCall(log.runId, 'call_read'))?.hostResult).toBeUndefined();
    // A server tool call is not a host call either.
    const stranger = (await store.createUser('stranger')).id;
    await expectRunError(
      runs.submitToolResults(stranger, log.runId, [{ toolCallId: 'call_read', output: 'x' }]),
      'not_found',
    );
    expect(
      (await runs.submitToolResults(userId, log.runId, [{ toolCallId: 'call_read', output: 'x' }])).resumed,
    ).toBe(true);
    await runs.settled(log.runId);
    expect(log.state.status).toBe('completed');
  });

  it('a stop while waiting cancels the run and its tool blocks; a result afterwards is refused', async () => {
    const model = new ScriptedChatModel([
      toolCallTurn([
        { id: 'call_read', name: 'read_local_file', arguments: { path: 'a.txt' } },
        { id: 'call_time', name: 'local_time', arguments: {} },
      ]),
    ]);
    const { runs, log } = await startPaused(model);
    await runs.submitToolResults(userId, log.runId, [{ toolCallId: 'call_time', output: '10:00' }]);
    expect(await runs.cancel(userId, log.runId, 'host_gave_up')).toMatchObject({
      status: 'cancelled',
      cancelReason: 'host_gave_up',
    });
    expect(log.state).toMatchObject({ status: 'cancelled', finishReason: 'host_gave_up', anomalies: [] });
    expect(toolBlock(log, 'call_read')).toMatchObject({ status: 'cancelled', endedAt: expect.any(Number) });
    expect(toolBlock(log, 'call_time')).toMatchObject({ status: 'cancelled' });
    const refused = await expectRunError(
      runs.submitToolResults(userId, log.runId, [{ toolCallId: 'call_read', output: 'late' }]),
      'run_finished',
    );
    expect(refused.details).toEqual({ status: 'cancelled' });
    // The result given before the stop is still the same result: a retry of it is a no-op.
    expect(
      await runs.submitToolResults(userId, log.runId, [{ toolCallId: 'call_time', output: '10:00' }]),
    ).toEqual({ log, resumed: false });
    expect((await store.getToolCall(log.runId, 'call_read'))?.hostResult).toBeUndefined();
    expect(model.requests).toHaveLength(1);
  });

  it('arguments that fail the JSON Schema fail the block, and the model sees why', async () => {
    const model = new ScriptedChatModel([
      toolCallTurn([
        { id: 'call_bad', name: 'read_local_file', arguments: { path: '' } },
        { id: 'call_extra', name: 'read_local_file', arguments: { path: 'a', mode: 'rw' } },
        { id: 'call_json', name: 'read_local_file', arguments: '{"path": ' },
      ]),
      textTurn('参数不对，我不读了。'),
    ]);
    const runs = manager(model);
    const log = await runs.startRun(userId, conversationId, '读文件', undefined, { hostTools: [readFile] });
    await runs.settled(log.runId);
    expect(log.state.status).toBe('completed');
    expect(
      ['call_bad', 'call_extra', 'call_json'].map((id) => [
        toolBlock(log, id)?.status,
        toolBlock(log, id)?.error?.code,
      ]),
    ).toEqual([
      ['failed', 'invalid_arguments'],
      ['failed', 'invalid_arguments'],
      ['failed', 'invalid_arguments'],
    ]);
    expect(toolBlock(log, 'call_bad')?.args).toEqual({ path: '' });
    const seen = toolMessages(model.requests[1]);
    expect(seen).toHaveLength(3);
    expect(seen[0]?.role === 'tool' && JSON.parse(seen[0].content).error.code).toBe('invalid_arguments');
    expect(log.since(0).events.some((event) => event.type === 'run.paused')).toBe(false);
    expect(await store.listToolCalls(log.runId)).toEqual([]);
  });

  it('a host error fails the block with host_tool_failed, and the model reads it', async () => {
    const model = new ScriptedChatModel([
      toolCallTurn([
        { id: 'call_read', name: 'read_local_file', arguments: { path: 'missing.txt' } },
        { id: 'call_time', name: 'local_time', arguments: {} },
      ]),
      textTurn('文件不存在。'),
    ]);
    const { runs, log } = await startPaused(model);
    await runs.submitToolResults(userId, log.runId, [
      { toolCallId: 'call_read', error: 'ENOENT: no such file' },
      { toolCallId: 'call_time', output: 'not json {' },
    ]);
    await runs.settled(log.runId);
    expect(toolBlock(log, 'call_read')).toMatchObject({
      status: 'failed',
      error: { code: 'host_tool_failed', message: 'ENOENT: no such file' },
    });
    expect(toolBlock(log, 'call_time')).toMatchObject({ status: 'done', result: 'not json {' });
    expect(toolMessages(model.requests[1])).toEqual([
      {
        role: 'tool',
        toolCallId: 'call_read',
        content: JSON.stringify({ error: { code: 'host_tool_failed', message: 'ENOENT: no such file' } }),
      },
      { role: 'tool', toolCallId: 'call_time', content: 'not json {' },
    ]);
    expect(await store.getToolCall(log.runId, 'call_read')).toMatchObject({
      status: 'failed',
      error: { code: 'host_tool_failed', message: 'ENOENT: no such file' },
    });
  });

  it('a write and a host call in one turn: the confirmation first, then the host result', async () => {
    const model = new ScriptedChatModel([
      toolCallTurn([
        { id: 'call_cancel', name: 'cancel_order', arguments: { orderId: '88235' } },
        { id: 'call_read', name: 'read_local_file', arguments: { path: 'receipt.txt' } },
      ]),
      textTurn('订单已取消，收据也读到了。'),
    ]);
    const { runs, log } = await startPaused(model);
    expect(log.state.pause).toEqual({
      reason: 'confirmation',
      pending: [{ toolCallId: 'call_cancel', name: 'cancel_order', args: { orderId: '88235' } }],
    });
    expect(toolBlock(log, 'call_read')).toMatchObject({ status: 'pending', args: { path: 'receipt.txt' } });
    // Waiting for the decision: a host result is refused (nothing stored), and so is a new message.
    const early = await expectRunError(
      runs.submitToolResults(userId, log.runId, [{ toolCallId: 'call_read', output: 'receipt' }]),
      'not_waiting_for_tool_results',
    );
    expect(early.details).toEqual({ status: 'paused', reason: 'confirmation' });
    expect((await store.getToolCall(log.runId, 'call_read'))?.hostResult).toBeUndefined();
    await expectRunError(runs.startRun(userId, conversationId, '在吗'), 'confirmation_pending');

    await runs.decide(userId, log.runId, 'call_cancel', 'approve');
    await runs.settled(log.runId);
    expect(executed).toEqual(['88235']);
    expect(log.state.pause).toEqual({
      reason: 'tool_result',
      pending: [{ toolCallId: 'call_read', name: 'read_local_file', args: { path: 'receipt.txt' } }],
    });
    expect(await store.getRun(log.runId)).toMatchObject({ status: 'paused' });
    const refused = await expectRunError(
      runs.startRun(userId, conversationId, '在吗'),
      'tool_results_pending',
    );
    expect(refused.details).toEqual({ runId: log.runId });
    expect(model.requests).toHaveLength(1);

    await runs.submitToolResults(userId, log.runId, [{ toolCallId: 'call_read', output: 'receipt #1' }]);
    await runs.settled(log.runId);
    expect(log.state.status).toBe('completed');
    expect(executed).toEqual(['88235']);
    const lifecycle = log
      .since(0)
      .events.filter((event) => event.type === 'run.paused' || event.type === 'run.resumed')
      .map((event) => `${event.type}:${(event as Extract<LoggedRunEvent, { reason: unknown }>).reason}`);
    expect(lifecycle).toEqual([
      'run.paused:confirmation',
      'run.resumed:confirmation',
      'run.paused:tool_result',
      'run.resumed:tool_result',
    ]);
    expect(toolMessages(model.requests[1])).toEqual([
      {
        role: 'tool',
        toolCallId: 'call_cancel',
        content: JSON.stringify({ orderId: '88235', status: '已取消' }),
      },
      { role: 'tool', toolCallId: 'call_read', content: 'receipt #1' },
    ]);
    expect(kinds(log.state.blocks)).toEqual([
      'tool:cancel_order:done',
      'tool:read_local_file:done',
      'confirm:approved',
      'answer:done',
    ]);
    expect(log.state.anomalies).toEqual([]);
  });

  it('a stop while a write and a host call wait cancels both', async () => {
    const model = new ScriptedChatModel([
      toolCallTurn([
        { id: 'call_cancel', name: 'cancel_order', arguments: { orderId: '88235' } },
        { id: 'call_read', name: 'read_local_file', arguments: { path: 'receipt.txt' } },
      ]),
    ]);
    const { runs, log } = await startPaused(model);
    await runs.cancel(userId, log.runId);
    expect(kinds(log.state.blocks)).toEqual([
      'tool:cancel_order:cancelled',
      'tool:read_local_file:cancelled',
      'confirm:expired',
    ]);
    await expectRunError(runs.decide(userId, log.runId, 'call_cancel', 'approve'), 'run_finished');
    await expectRunError(
      runs.submitToolResults(userId, log.runId, [{ toolCallId: 'call_read', output: 'x' }]),
      'run_finished',
    );
    expect(executed).toEqual([]);
  });

  it('a run waiting for tool results survives a restart and resumes from its checkpoint', async () => {
    const before = manager(
      new ScriptedChatModel([
        toolCallTurn([{ id: 'call_read', name: 'read_local_file', arguments: { path: 'a.txt' } }], {
          text: '我读一下。',
        }),
      ]),
    );
    const log = await before.startRun(userId, conversationId, '读 a.txt', undefined, {
      hostTools: [readFile],
      instructions: '回答要简短。',
      traceId: 'trace-restart',
      face: 'responses',
    });
    await before.settled(log.runId);
    const pausedSeq = log.lastSeq;

    // A new process on the same file: the old one is gone without closing anything.
    const model = new ScriptedChatModel([textTurn('a.txt 是空的。')]);
    const after = manager(model, fixture.reopen());
    expect(await after.recoverInterruptedRuns()).toBe(0);
    expect(await after.getRun(userId, log.runId)).toMatchObject({ status: 'paused' });
    const { log: resumed, resumed: didResume } = await after.submitToolResults(userId, log.runId, [
      { toolCallId: 'call_read', output: '' },
    ]);
    expect(didResume).toBe(true);
    expect(resumed).not.toBe(log);
    await after.settled(log.runId);
    expect(resumed.state.status).toBe('completed');
    expect(resumed.state.messageId).toBe(log.state.messageId);
    expect(resumed.since(pausedSeq).events[0]?.seq).toBe(pausedSeq + 1);
    expect(kinds(resumed.state.blocks)).toEqual(['answer:done', 'tool:read_local_file:done', 'answer:done']);
    // The host tools and the instructions came back with the checkpoint.
    expect(model.requests[0]?.tools?.map((tool) => tool.name)).toEqual(['cancel_order', 'read_local_file']);
    expect(model.requests[0]?.messages[0]).toEqual({ role: 'system', content: '你是助手。\n\n回答要简短。' });
    expect(model.requests[0]?.messages.at(-1)).toEqual({
      role: 'tool',
      toolCallId: 'call_read',
      content: '',
    });
    expect(resumed.state.anomalies).toEqual([]);
    const messages = await store.listMessages(conversationId);
    const assistant = messages.at(-1);
    expect(assistant?.role === 'assistant' && assistant.message.status).toBe('completed');
    expect(await store.getRun(log.runId)).toMatchObject({ status: 'completed', lastSeq: resumed.lastSeq });
  });

  it('racing submissions resume the run once', async () => {
    const model = new ScriptedChatModel([
      toolCallTurn([
        { id: 'call_read', name: 'read_local_file', arguments: { path: 'a.txt' } },
        { id: 'call_time', name: 'local_time', arguments: {} },
      ]),
      textTurn('好了。'),
      textTurn('不该有第三次调用。'),
    ]);
    const { runs, log } = await startPaused(model);
    const all = [
      { toolCallId: 'call_read', output: 'A' },
      { toolCallId: 'call_time', output: '10:00' },
    ];
    const outcomes = await Promise.all([
      runs.submitToolResults(userId, log.runId, [{ toolCallId: 'call_read', output: 'A' }]),
      runs.submitToolResults(userId, log.runId, [{ toolCallId: 'call_time', output: '10:00' }]),
      runs.submitToolResults(userId, log.runId, all),
      runs.submitToolResults(userId, log.runId, all),
    ]);
    expect(outcomes.filter((outcome) => outcome.resumed)).toHaveLength(1);
    await runs.settled(log.runId);
    expect(model.requests).toHaveLength(2);
    expect(log.since(0).events.filter((event) => event.type === 'run.resumed')).toHaveLength(1);
    expect(log.state).toMatchObject({ status: 'completed', anomalies: [] });
  });

  it('a retry finishes a resume that a crash cut short after the results were stored', async () => {
    const { log } = await startPaused(
      new ScriptedChatModel([
        toolCallTurn([{ id: 'call_read', name: 'read_local_file', arguments: { path: 'a.txt' } }]),
      ]),
    );
    // The old process stored the result, then died before the run moved on.
    await store.recordToolResult(log.runId, 'call_read', { output: 'A' });
    const model = new ScriptedChatModel([textTurn('读到了 A。')]);
    const after = manager(model, fixture.reopen());
    const retried = await after.submitToolResults(userId, log.runId, [
      { toolCallId: 'call_read', output: 'A' },
    ]);
    expect(retried.resumed).toBe(true);
    await after.settled(log.runId);
    expect(retried.log.state.status).toBe('completed');
    expect(model.requests[0]?.messages.at(-1)).toEqual({
      role: 'tool',
      toolCallId: 'call_read',
      content: 'A',
    });
  });

  it('refuses host tools that collide with server tools, repeat, or are malformed, storing nothing', async () => {
    const runs = manager(new ScriptedChatModel([]));
    const attempts: unknown[] = [
      [{ ...readFile, name: 'cancel_order' }],
      [{ ...readFile, name: 'load_skill' }],
      [readFile, { ...localTime, name: 'read_local_file' }],
      [{ ...readFile, name: 'read file' }],
      [{ ...readFile, name: '' }],
      [{ name: 'x', description: 'x', parameters: 'object' }],
      [{ name: 'x', parameters: {} }],
      'read_local_file',
    ];
    for (const hostTools of attempts) {
      await expectRunError(
        runs.startRun(userId, conversationId, 'hi', undefined, {
          hostTools: hostTools as HostToolDefinition[],
        }),
        'invalid_request',
      );
    }
    for (const options of [
      { traceId: '' },
      { traceId: 'x'.repeat(201) },
      { face: 'web' },
      { instructions: 7 },
    ]) {
      await expectRunError(
        runs.startRun(userId, conversationId, 'hi', undefined, options as never),
        'invalid_request',
      );
    }
    expect(await store.listMessages(conversationId)).toEqual([]);
    expect(await store.findActiveRun(conversationId)).toBeUndefined();
  });

  it('existing callers: a run without options has no host tools and the plain system prompt', async () => {
    const model = new ScriptedChatModel([textTurn('你好')]);
    const runs = manager(model);
    const log = await runs.startRun(userId, conversationId, 'hi');
    await runs.settled(log.runId);
    expect(model.requests[0]?.tools?.map((tool) => tool.name)).toEqual(['cancel_order']);
    expect(model.requests[0]?.messages[0]).toEqual({ role: 'system', content: '你是助手。' });
    expect(log.since(0).events[0]).not.toHaveProperty('traceId');
    await expectRunError(
      runs.submitToolResults(userId, log.runId, [{ toolCallId: 'call_x', output: 'x' }]),
      'unknown_tool_call',
    );
  });
});
