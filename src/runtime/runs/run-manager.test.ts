import { beforeEach, describe, expect, it } from 'vitest';
import { type ChatModel, ScriptedChatModel, textTurn, toolCallTurn } from '../../models/index.ts';
import { toMessage } from '../../protocol/index.ts';
import { MemoryRunStore, type RunStore } from '../../store/index.ts';
import { RUN_MESSAGES } from '../agent/run-messages.ts';
import type { Skill } from '../agent/skill.ts';
import { recordingCancelOrder } from '../test-support/recording-cancel-order.ts';
import { testAgent } from '../test-support/test-agent.ts';
import type { Tool } from '../tools/tool.ts';
import type { RunError } from './run-error.ts';
import { RunManager } from './run-manager.ts';

const { confirmationPending: CONFIRMATION_PENDING_MESSAGE, interrupted: INTERRUPTED_MESSAGE } =
  RUN_MESSAGES['zh-CN'];

const { tool: cancelOrder, executed } = recordingCancelOrder();
const skills: Skill[] = [];

let store: RunStore;
let userId: string;
let conversationId: string;

beforeEach(async () => {
  executed.length = 0;
  store = new MemoryRunStore();
  userId = (await store.createUser('shopper')).id;
  conversationId = (await store.createConversation(userId, '取消订单')).id;
});

function manager(model: ChatModel): RunManager {
  return new RunManager({
    agents: [testAgent({ model, tools: [cancelOrder], skills, instructions: '你是 NovaShop 客服。' })],
    store,
  });
}

const pausingTurns = () => [
  toolCallTurn([{ name: 'cancel_order', arguments: { orderId: '88235' } }], { text: '我这就提交取消。' }),
  textTurn('订单 88235 已取消。'),
];

async function expectRunError(promise: Promise<unknown>, code: string): Promise<RunError> {
  const error = (await promise.catch((caught: unknown) => caught)) as RunError;
  expect(error).toMatchObject({ name: 'RunError', code });
  return error;
}

describe('RunManager', () => {
  it('runs in the background and persists the same message the log reduces', async () => {
    const runs = manager(new ScriptedChatModel([textTurn('你好！', { reasoning: '打招呼。' })]));
    const log = await runs.startRun(userId, conversationId, '你好');
    await runs.settled(log.runId);
    const run = await runs.getRun(userId, log.runId);
    expect(run).toMatchObject({ status: 'completed', lastSeq: log.lastSeq });
    const messages = await store.listMessages(conversationId);
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    const assistant = messages[1];
    expect(assistant?.role === 'assistant' && assistant.message).toEqual(toMessage(log.state));
  });

  it('pauses on a write, refuses a new message with confirmation_pending, and resumes once on approval', async () => {
    const model = new ScriptedChatModel(pausingTurns());
    const runs = manager(model);
    const log = await runs.startRun(userId, conversationId, '帮我取消订单');
    await runs.settled(log.runId);
    expect(await runs.getRun(userId, log.runId)).toMatchObject({ status: 'paused' });
    const toolCallId = log.state.pause?.pending[0]?.toolCallId ?? '';
    const refused = await expectRunError(
      runs.startRun(userId, conversationId, '在吗'),
      'confirmation_pending',
    );
    expect(refused.message).toBe(CONFIRMATION_PENDING_MESSAGE);

    const [first, second] = await Promise.allSettled([
      runs.decide(userId, log.runId, toolCallId, 'approve'),
      runs.decide(userId, log.runId, toolCallId, 'approve'),
    ]);
    expect([first.status, second.status].sort()).toEqual(['fulfilled', 'rejected']);
    await runs.settled(log.runId);
    expect(executed).toEqual(['88235']);
    expect(log.state.status).toBe('completed');
    expect(log.state.blocks.map((block) => `${block.kind}:${block.status}`)).toEqual([
      'answer:done',
      'tool:done',
      'confirm:approved',
      'answer:done',
    ]);
    const again = await expectRunError(
      runs.decide(userId, log.runId, toolCallId, 'reject'),
      'decision_conflict',
    );
    expect(again.details).toMatchObject({ decision: { decision: 'approve' } });
    // The call's row ends as its block did: not left `running` after its execution.
    expect(await store.listToolCalls(log.runId)).toMatchObject([
      { toolCallId, status: 'done', result: { orderId: '88235' }, decision: { decision: 'approve' } },
    ]);
  });

  it('ends the rows of a rejected write and of an approved write that failed with their blocks', async () => {
    const failing: Tool<{ orderId: string }, unknown> = {
      ...cancelOrder,
      name: 'refund_order',
      async execute() {
        throw new Error('支付网关拒绝退款');
      },
    };
    const runs = new RunManager({
      agents: [
        testAgent({
          model: new ScriptedChatModel([
            toolCallTurn([
              { name: 'cancel_order', arguments: { orderId: '88235' } },
              { name: 'refund_order', arguments: { orderId: '88235' } },
            ]),
            textTurn('取消被拒绝，退款失败了。'),
          ]),
          tools: [cancelOrder, failing],
          skills,
          instructions: '你是 NovaShop 客服。',
        }),
      ],
      store,
    });
    const log = await runs.startRun(userId, conversationId, '取消并退款');
    await runs.settled(log.runId);
    const [cancel, refund] = log.state.pause?.pending ?? [];
    await runs.decide(userId, log.runId, cancel?.toolCallId ?? '', 'reject');
    await runs.decide(userId, log.runId, refund?.toolCallId ?? '', 'approve');
    await runs.settled(log.runId);
    expect(log.state.status).toBe('completed');
    expect(await store.listToolCalls(log.runId)).toMatchObject([
      { name: 'cancel_order', status: 'rejected' },
      { name: 'refund_order', status: 'failed', error: { code: 'tool_failed', message: '支付网关拒绝退款' } },
    ]);
    expect(executed).toEqual([]);
  });

  it('resumes a paused run after a restart, from the persisted checkpoint', async () => {
    const before = manager(new ScriptedChatModel(pausingTurns().slice(0, 1)));
    const log = await before.startRun(userId, conversationId, '帮我取消订单');
    await before.settled(log.runId);
    const toolCallId = log.state.pause?.pending[0]?.toolCallId ?? '';

    const after = manager(new ScriptedChatModel([textTurn('订单 88235 已取消。')]));
    const resumed = await after.decide(userId, log.runId, toolCallId, 'approve');
    await after.settled(log.runId);
    expect(executed).toEqual(['88235']);
    expect(resumed.state.status).toBe('completed');
    expect(resumed.state.lastSeq).toBeGreaterThan(log.lastSeq);
    expect(resumed.state.blocks.at(-1)).toMatchObject({ kind: 'answer', text: '订单 88235 已取消。' });
  });

  it('a stop keeps the partial blocks, persists cancelled with its reason, and is idempotent', async () => {
    const runs = manager(
      new ScriptedChatModel([{ parts: textTurn('这是一段很长的回答。', { chunkSize: 1 }), delayMs: 20 }]),
    );
    const log = await runs.startRun(userId, conversationId, '讲讲退货');
    await new Promise<void>((resolve) => {
      const leave = log.subscribe((event) => {
        if (
          event.type === 'block.delta' &&
          log.state.blocks[0]?.kind === 'answer' &&
          log.state.blocks[0].text.length >= 3
        ) {
          leave();
          resolve();
        }
      });
    });
    const run = await runs.cancel(userId, log.runId, 'user_stop');
    expect(run).toMatchObject({ status: 'cancelled', cancelReason: 'user_stop' });
    const messages = await store.listMessages(conversationId);
    const assistant = messages.at(-1);
    expect(assistant?.role === 'assistant' && assistant.message.blocks[0]).toMatchObject({
      kind: 'answer',
      status: 'cancelled',
    });
    expect(assistant?.role === 'assistant' && assistant.message.finishReason).toBe('user_stop');
    expect(await runs.cancel(userId, log.runId, 'another')).toMatchObject({
      status: 'cancelled',
      cancelReason: 'user_stop',
    });
  });

  it('stopping a paused run expires its card; a decision afterwards is refused', async () => {
    const runs = manager(new ScriptedChatModel(pausingTurns()));
    const log = await runs.startRun(userId, conversationId, '帮我取消订单');
    await runs.settled(log.runId);
    const toolCallId = log.state.pause?.pending[0]?.toolCallId ?? '';
    await runs.cancel(userId, log.runId);
    expect(log.state.blocks.find((block) => block.kind === 'confirm')).toMatchObject({ status: 'expired' });
    expect(log.state.blocks.find((block) => block.kind === 'tool')).toMatchObject({ status: 'cancelled' });
    await expectRunError(runs.decide(userId, log.runId, toolCallId, 'approve'), 'run_finished');
    expect(executed).toEqual([]);
  });

  it("answers another user's run and conversation as not found", async () => {
    const runs = manager(new ScriptedChatModel([textTurn('好的')]));
    const log = await runs.startRun(userId, conversationId, 'hi');
    await runs.settled(log.runId);
    const stranger = (await store.createUser('stranger')).id;
    await expectRunError(runs.getRun(stranger, log.runId), 'not_found');
    await expectRunError(runs.cancel(stranger, log.runId), 'not_found');
    await expectRunError(runs.logOf(stranger, log.runId), 'not_found');
    await expectRunError(runs.startRun(stranger, conversationId, 'hi'), 'not_found');
  });

  it('marks a run a crash left running as interrupted, with an error block that says so', async () => {
    const runs = manager(
      new ScriptedChatModel([{ parts: textTurn('处理中', { chunkSize: 1 }), delayMs: 10_000 }]),
    );
    const log = await runs.startRun(userId, conversationId, '帮我处理');
    await new Promise((resolve) => setTimeout(resolve, 20));
    // A new process: the old one died without ending the run.
    const restarted = manager(new ScriptedChatModel([]));
    expect(await restarted.recoverInterruptedRuns()).toBe(1);
    expect(await store.getRun(log.runId)).toMatchObject({
      status: 'interrupted',
      cancelReason: 'server_restart',
    });
    const messages = await store.listMessages(conversationId);
    const assistant = messages.at(-1);
    expect(assistant?.role === 'assistant' && assistant.message.status).toBe('interrupted');
    expect(assistant?.role === 'assistant' && assistant.message.blocks.at(-1)).toMatchObject({
      kind: 'error',
      text: INTERRUPTED_MESSAGE,
    });
    await runs.close();
  });

  it('an approval racing a stop: one of them wins, never both (no write after a stop)', async () => {
    const runs = manager(new ScriptedChatModel(pausingTurns()));
    const log = await runs.startRun(userId, conversationId, '帮我取消订单');
    await runs.settled(log.runId);
    const toolCallId = log.state.pause?.pending[0]?.toolCallId ?? '';
    await Promise.allSettled([
      runs.decide(userId, log.runId, toolCallId, 'approve'),
      runs.cancel(userId, log.runId),
    ]);
    await runs.settled(log.runId);
    const finished = log.since(0).events.filter((event) => event.type === 'run.finished');
    expect(finished).toHaveLength(1);
    expect(log.state.anomalies).toEqual([]);
    const status = (await store.getRun(log.runId))?.status;
    expect(executed).toEqual(status === 'cancelled' ? [] : ['88235']);
    expect(status === 'completed' || status === 'cancelled').toBe(true);
  });

  it('two pending writes approved at once resume the run once', async () => {
    const model = new ScriptedChatModel([
      toolCallTurn([
        { name: 'cancel_order', arguments: { orderId: '1' } },
        { name: 'cancel_order', arguments: { orderId: '2' } },
      ]),
      textTurn('两个订单都已取消。'),
      textTurn('不该有第三次调用。'),
    ]);
    const runs = manager(model);
    const log = await runs.startRun(userId, conversationId, '两个都取消');
    await runs.settled(log.runId);
    const [first, second] = log.state.pause?.pending.map((call) => call.toolCallId) ?? [];
    await Promise.all([
      runs.decide(userId, log.runId, first ?? '', 'approve'),
      runs.decide(userId, log.runId, second ?? '', 'approve'),
    ]);
    await runs.settled(log.runId);
    expect(model.requests).toHaveLength(2);
    expect(executed.sort()).toEqual(['1', '2']);
    expect(log.since(0).events.filter((event) => event.type === 'run.resumed')).toHaveLength(1);
    expect(log.state).toMatchObject({ status: 'completed', anomalies: [] });
  });

  it('a stop while the confirmation card is being prepared ends the run cancelled, not paused', async () => {
    const slowCard: typeof cancelOrder = {
      ...cancelOrder,
      async confirm(args) {
        await new Promise((resolve) => setTimeout(resolve, 80));
        return { title: '取消订单', description: `订单 ${args.orderId}`, details: [] };
      },
    };
    const runs = new RunManager({
      agents: [
        testAgent({
          model: new ScriptedChatModel(pausingTurns()),
          tools: [slowCard],
          skills,
          instructions: '客服',
        }),
      ],
      store,
    });
    const log = await runs.startRun(userId, conversationId, '帮我取消订单');
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(await runs.cancel(userId, log.runId)).toMatchObject({
      status: 'cancelled',
      cancelReason: 'user_stop',
    });
    expect(log.state.status).toBe('cancelled');
    expect(executed).toEqual([]);
  });
});
