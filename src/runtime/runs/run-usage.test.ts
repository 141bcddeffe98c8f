import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type ChatModel,
  type ChatStreamPart,
  ScriptedChatModel,
  type TokenUsage,
  textTurn,
  toolCallTurn,
} from '../../models/index.ts';
import type { LoggedRunEvent, RunFinishedEvent, StepFinishedEvent } from '../../protocol/index.ts';
import { MemoryRunStore, openDatabase, type RunStore, SqliteRunStore } from '../../store/index.ts';
import type { RunLog } from '../log/run-log.ts';
import { recordingCancelOrder } from '../test-support/recording-cancel-order.ts';
import { testAgent } from '../test-support/test-agent.ts';
import type { AnyTool, Tool } from '../tools/tool.ts';
import { RunManager } from './run-manager.ts';

/**
 * Token usage through the real runtime: each model call's `step.finished`, the run's total on
 * `run.finished`, and the persisted message's `usage`, across pauses, restarts and stops. A provider
 * that reports nothing leaves usage absent everywhere, never zeros.
 */

const FIRST: TokenUsage = {
  inputTokens: 1200,
  outputTokens: 90,
  reasoningTokens: 40,
  cachedInputTokens: 1024,
};
const SECOND: TokenUsage = { inputTokens: 1400, outputTokens: 60, cachedInputTokens: 1152 };
const FIRST_AND_SECOND: TokenUsage = {
  inputTokens: 2600,
  outputTokens: 150,
  reasoningTokens: 40,
  cachedInputTokens: 2176,
};

const { tool: cancelOrder, executed } = recordingCancelOrder();

/** A read tool that runs until the run is stopped, and says when it started. */
function slowQuery(): Tool<Record<string, never>, unknown> & { started: Promise<void> } {
  let started!: () => void;
  const startedPromise = new Promise<void>((resolve) => {
    started = resolve;
  });
  return {
    name: 'query_order',
    title: '订单查询',
    description: 'List the orders.',
    parameters: z.object({}),
    effect: 'read',
    started: startedPromise,
    execute(_args, context) {
      started();
      return new Promise((_resolve, reject) => {
        context.signal.addEventListener('abort', () => reject(context.signal.reason), { once: true });
      });
    },
  };
}

const queryOrder: Tool<Record<string, never>, unknown> = {
  name: 'query_order',
  title: '订单查询',
  description: 'List the orders.',
  parameters: z.object({}),
  effect: 'read',
  async execute() {
    return { orders: [{ orderId: '88235', status: '已支付待发货' }] };
  },
};

let store: RunStore;
let userId: string;
let conversationId: string;

beforeEach(async () => {
  executed.length = 0;
  store = new MemoryRunStore();
  userId = (await store.createUser('shopper')).id;
  conversationId = (await store.createConversation(userId, '用量')).id;
});

function manager(model: ChatModel, tools: AnyTool[] = [cancelOrder], on = store): RunManager {
  return new RunManager({
    agents: [testAgent({ model, tools, skills: [], instructions: '你是 NovaShop 客服。' })],
    store: on,
  });
}

/** The events this copy of the log holds (one continued from a persisted message starts after it). */
const eventsOf = (log: RunLog): LoggedRunEvent[] => log.since(log.oldestSeq - 1).events;
const stepsOf = (log: RunLog) =>
  eventsOf(log).filter((event): event is StepFinishedEvent => event.type === 'step.finished');
const finishedOf = (log: RunLog) =>
  eventsOf(log).find((event): event is RunFinishedEvent => event.type === 'run.finished');

/** Drop the fields every logged event has, to compare what an event says. */
function said<Event extends LoggedRunEvent>(event: Event | undefined) {
  if (event === undefined) return undefined;
  const { runId: _runId, seq: _seq, at: _at, ...rest } = event;
  return rest;
}

async function storedUsage(log: RunLog): Promise<TokenUsage | null | undefined> {
  const run = await store.getRun(log.runId);
  return (await store.getAssistantMessage(run?.messageId ?? ''))?.usage;
}

const cancelTurn = (usage?: TokenUsage) =>
  toolCallTurn([{ name: 'cancel_order', arguments: { orderId: '88235' } }], {
    text: '我这就提交取消。',
    ...(usage === undefined ? {} : { usage }),
  });

describe('token usage in the runtime', () => {
  it('logs a step.finished per model call with its usage and reason, and the sum on run.finished', async () => {
    const lengthTurn: ChatStreamPart[] = [
      { type: 'text-delta', text: '订单还没发货' },
      { type: 'finish', reason: 'length', usage: { inputTokens: 1500, outputTokens: 4 } },
    ];
    const runs = manager(
      new ScriptedChatModel([
        toolCallTurn([{ name: 'query_order' }], { usage: FIRST }),
        textTurn('查到了。', { usage: SECOND }),
      ]),
      [queryOrder],
    );
    const log = await runs.startRun(userId, conversationId, '我的订单呢');
    await runs.settled(log.runId);
    expect(stepsOf(log).map(said)).toEqual([
      { type: 'step.finished', step: 1, finishReason: 'tool_calls', usage: FIRST },
      { type: 'step.finished', step: 2, finishReason: 'stop', usage: SECOND },
    ]);
    // A step ends after its blocks, before its tools run.
    const types = eventsOf(log).map((event) => event.type);
    expect(types.indexOf('step.finished')).toBeLessThan(
      eventsOf(log).findIndex((event) => event.type === 'block.updated'),
    );
    expect(said(finishedOf(log))).toEqual({
      type: 'run.finished',
      status: 'completed',
      usage: FIRST_AND_SECOND,
    });
    expect(log.state.usage).toEqual(FIRST_AND_SECOND);
    expect(await storedUsage(log)).toEqual(FIRST_AND_SECOND);

    // A turn cut at the token limit says so.
    const other = (await store.createConversation(userId, '长')).id;
    const cut = manager(new ScriptedChatModel([lengthTurn]));
    const cutLog = await cut.startRun(userId, other, '讲讲');
    await cut.settled(cutLog.runId);
    expect(stepsOf(cutLog).map(said)).toEqual([
      {
        type: 'step.finished',
        step: 1,
        finishReason: 'length',
        usage: { inputTokens: 1500, outputTokens: 4 },
      },
    ]);
    expect(finishedOf(cutLog)?.usage).toEqual({ inputTokens: 1500, outputTokens: 4 });
    // …and the person reading it is told, in a block that a refresh keeps.
    expect(cutLog.state.status).toBe('completed');
    expect(cutLog.state.blocks.map((block) => [block.kind, 'text' in block ? block.text : ''])).toEqual([
      ['answer', '订单还没发货'],
      ['error', '回答达到了模型单次输出的长度上限，后面的内容没有生成。'],
    ]);
  });

  it('sums the stretches before and after a confirmation, numbering steps across the pause', async () => {
    const runs = manager(new ScriptedChatModel([cancelTurn(FIRST), textTurn('已取消。', { usage: SECOND })]));
    const log = await runs.startRun(userId, conversationId, '帮我取消订单');
    await runs.settled(log.runId);
    expect(log.state.status).toBe('paused');
    // The paused message already carries what the first stretch cost.
    expect(await storedUsage(log)).toEqual(FIRST);
    const toolCallId = log.state.pause?.pending[0]?.toolCallId ?? '';
    await runs.decide(userId, log.runId, toolCallId, 'approve');
    await runs.settled(log.runId);
    expect(executed).toEqual(['88235']);
    expect(stepsOf(log).map((event) => [event.step, event.finishReason, event.usage])).toEqual([
      [1, 'tool_calls', FIRST],
      [2, 'stop', SECOND],
    ]);
    expect(finishedOf(log)?.usage).toEqual(FIRST_AND_SECOND);
    expect(await storedUsage(log)).toEqual(FIRST_AND_SECOND);
  });

  it('still counts the stretch before a restart: the persisted message feeds the resumed log', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'runstream-usage-'));
    const path = join(directory, 'runstream.db');
    const first = openDatabase(path);
    const second = openDatabase(path);
    try {
      const before = new SqliteRunStore(first);
      const user = (await before.createUser('sqlite')).id;
      const conversation = (await before.createConversation(user, '重启')).id;
      const paused = manager(new ScriptedChatModel([cancelTurn(FIRST)]), [cancelOrder], before);
      const log = await paused.startRun(user, conversation, '帮我取消订单');
      await paused.settled(log.runId);
      const toolCallId = log.state.pause?.pending[0]?.toolCallId ?? '';

      // A new process on the same file: nothing of the first one's memory.
      const after = new SqliteRunStore(second);
      const restarted = manager(
        new ScriptedChatModel([textTurn('已取消。', { usage: SECOND })]),
        [cancelOrder],
        after,
      );
      const resumed = await restarted.decide(user, log.runId, toolCallId, 'approve');
      await restarted.settled(log.runId);
      expect(resumed).not.toBe(log);
      expect(resumed.state.status).toBe('completed');
      // The step count goes on from the checkpoint, the total from the persisted message.
      expect(stepsOf(resumed).map((event) => [event.step, event.usage])).toEqual([[2, SECOND]]);
      expect(finishedOf(resumed)?.usage).toEqual(FIRST_AND_SECOND);
      const run = await after.getRun(log.runId);
      expect((await after.getAssistantMessage(run?.messageId ?? ''))?.usage).toEqual(FIRST_AND_SECOND);
      await restarted.close();
      await paused.close();
    } finally {
      first.close();
      second.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('has no usage anywhere when the model reports none (absent, not zeros)', async () => {
    const runs = manager(
      new ScriptedChatModel([toolCallTurn([{ name: 'query_order' }]), textTurn('查到了。')]),
      [queryOrder],
    );
    const log = await runs.startRun(userId, conversationId, '我的订单呢');
    await runs.settled(log.runId);
    expect(stepsOf(log).map(said)).toEqual([
      { type: 'step.finished', step: 1, finishReason: 'tool_calls' },
      { type: 'step.finished', step: 2, finishReason: 'stop' },
    ]);
    expect(finishedOf(log)).not.toHaveProperty('usage');
    expect(log.state.usage).toBeNull();
    expect(await storedUsage(log)).toBeNull();
  });

  it('counts only the steps that reported, when a provider reports for some calls only', async () => {
    const runs = manager(
      new ScriptedChatModel([
        toolCallTurn([{ name: 'query_order' }]),
        textTurn('查到了。', { usage: SECOND }),
      ]),
      [queryOrder],
    );
    const log = await runs.startRun(userId, conversationId, '我的订单呢');
    await runs.settled(log.runId);
    expect(finishedOf(log)?.usage).toEqual(SECOND);
  });

  it('a run stopped while its tool runs keeps the usage of the steps that finished', async () => {
    const tool = slowQuery();
    const runs = manager(new ScriptedChatModel([toolCallTurn([{ name: 'query_order' }], { usage: FIRST })]), [
      tool,
    ]);
    const log = await runs.startRun(userId, conversationId, '我的订单呢');
    await tool.started;
    expect(await runs.cancel(userId, log.runId, 'user_stop')).toMatchObject({ status: 'cancelled' });
    expect(said(finishedOf(log))).toEqual({
      type: 'run.finished',
      status: 'cancelled',
      reason: 'user_stop',
      usage: FIRST,
    });
    expect(await storedUsage(log)).toEqual(FIRST);
  });

  it('a paused run stopped, or one a crash left running, ends with the usage so far', async () => {
    const runs = manager(new ScriptedChatModel([cancelTurn(FIRST)]));
    const log = await runs.startRun(userId, conversationId, '帮我取消订单');
    await runs.settled(log.runId);
    await runs.cancel(userId, log.runId);
    expect(finishedOf(log)).toMatchObject({ status: 'cancelled', usage: FIRST });

    const tool = slowQuery();
    const other = (await store.createConversation(userId, '崩溃')).id;
    const crashed = manager(
      new ScriptedChatModel([toolCallTurn([{ name: 'query_order' }], { usage: SECOND })]),
      [tool],
    );
    const running = await crashed.startRun(userId, other, '我的订单呢');
    await tool.started;
    // Its usage reached the store with the tool's arguments, a block boundary, before the crash.
    await expect.poll(() => storedUsage(running)).toEqual(SECOND);
    // A new process finds the run its predecessor left running.
    const restarted = manager(new ScriptedChatModel([]));
    expect(await restarted.recoverInterruptedRuns()).toBe(1);
    const ended = await restarted.logOf(userId, running.runId);
    expect(finishedOf(ended)).toMatchObject({ status: 'interrupted', usage: SECOND });
    expect(await storedUsage(ended)).toEqual(SECOND);
    await crashed.close();
  });
});
