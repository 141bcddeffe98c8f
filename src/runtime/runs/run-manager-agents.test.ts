import { beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type ChatModel, ScriptedChatModel, textTurn, toolCallTurn } from '../../models/index.ts';
import { MemoryRunStore, type RunStore } from '../../store/index.ts';
import type { ResolvedAgent } from '../agent/resolved-agent.ts';
import { RUN_MESSAGES, runMessagesFor } from '../agent/run-messages.ts';
import { recordingCancelOrder } from '../test-support/recording-cancel-order.ts';
import { testAgent } from '../test-support/test-agent.ts';
import type { Tool } from '../tools/tool.ts';
import type { ToolPolicy } from '../tools/tool-policy.ts';
import { RunManager } from './run-manager.ts';

// Several agents in one manager, the agent's own texts and approvals, and what a paused run does
// when its agent changed before the approval.

let store: RunStore;
let userId: string;

beforeEach(async () => {
  store = new MemoryRunStore();
  userId = (await store.createUser('shopper')).id;
});

/** A model that records the system prompt and the tool names of each request. */
function recordingModel(turns: ConstructorParameters<typeof ScriptedChatModel>[0]) {
  const scripted = new ScriptedChatModel(turns);
  const seen: { system: string; tools: string[]; toolResults: string[] }[] = [];
  const model: ChatModel = {
    name: 'recording',
    stream(request) {
      const system = request.messages.find((message) => message.role === 'system');
      seen.push({
        system: typeof system?.content === 'string' ? system.content : '',
        tools: (request.tools ?? []).map((tool) => tool.name),
        toolResults: request.messages.flatMap((message) =>
          message.role === 'tool' ? [String(message.content)] : [],
        ),
      });
      return scripted.stream(request);
    },
  };
  return { model, seen };
}

describe('a RunManager with several agents', () => {
  it("runs each conversation with its own agent's model and instructions; '' is the first", async () => {
    const shop = recordingModel([textTurn('商店的回答')]);
    const repair = recordingModel([textTurn('维修的回答')]);
    const runs = new RunManager({
      agents: [
        testAgent({ id: 'shop', model: shop.model, instructions: '你是商店客服。' }),
        testAgent({ id: 'repair', model: repair.model, instructions: '你是维修客服。', revision: 'r1' }),
      ],
      store,
    });
    const old = await store.createConversation(userId, '旧对话');
    const fixing = await store.createConversation(userId, '维修', { agentId: 'repair' });
    const first = await runs.startRun(userId, old.id, '你好');
    const second = await runs.startRun(userId, fixing.id, '你好');
    await runs.settled(first.runId);
    await runs.settled(second.runId);
    expect(shop.seen.map((turn) => turn.system)).toEqual(['你是商店客服。']);
    expect(repair.seen.map((turn) => turn.system)).toEqual(['你是维修客服。']);
    // Each run records the agent it ran and its revision.
    expect(await store.getRun(second.runId)).toMatchObject({ agentId: 'repair', agentRevision: 'r1' });
    expect(await store.getRun(first.runId)).toMatchObject({ agentId: 'shop', agentRevision: 'test' });
  });

  it('refuses an unknown agent, and agent ids that repeat', async () => {
    const model = new ScriptedChatModel([]);
    const runs = new RunManager({ agents: [testAgent({ id: 'shop', model })], store });
    expect(runs.agent().id).toBe('shop');
    expect(() => runs.agent('nope')).toThrow(expect.objectContaining({ code: 'unknown_agent' }));
    const orphan = await store.createConversation(userId, '孤儿', { agentId: 'gone' });
    await expect(runs.startRun(userId, orphan.id, '你好')).rejects.toMatchObject({ code: 'unknown_agent' });
    expect(() => new RunManager({ agents: [testAgent({ model }), testAgent({ model })], store })).toThrow(
      'unique',
    );
    expect(() => new RunManager({ agents: [], store })).toThrow('at least one');
  });

  it("speaks the agent's language: an English agent's rejection note and max-steps hint", async () => {
    const { tool } = recordingCancelOrder();
    const { model, seen } = recordingModel([
      toolCallTurn([{ name: 'cancel_order', arguments: { orderId: '1' } }]),
      textTurn('Not cancelled.'),
    ]);
    const english = testAgent({ id: 'en', model, tools: [tool], messages: runMessagesFor('en') });
    const runs = new RunManager({ agents: [english], store });
    const conversation = await store.createConversation(userId, 'c');
    const log = await runs.startRun(userId, conversation.id, 'cancel order 1');
    await runs.settled(log.runId);
    const toolCallId = log.state.pause?.pending[0]?.toolCallId ?? '';
    await expect(runs.startRun(userId, conversation.id, 'again')).rejects.toMatchObject({
      code: 'confirmation_pending',
      message: RUN_MESSAGES.en.confirmationPending,
    });
    await runs.decide(userId, log.runId, toolCallId, 'reject');
    await runs.settled(log.runId);
    expect(seen).toHaveLength(2);
    // The model read the English note for the rejected call; the person reads English errors.
    expect(seen[1]?.toolResults.join('')).toContain(RUN_MESSAGES.en.toolRejected);
  });
});

describe('approvals decided per call', () => {
  it('runs a write without a card when needsApproval says no, and asks when it says yes', async () => {
    const refunds: number[] = [];
    const refund: Tool<{ amount: number }, unknown> = {
      name: 'refund',
      title: '退款',
      description: 'Refund an amount.',
      parameters: z.object({ amount: z.number() }),
      effect: 'write',
      needsApproval: (args) => args.amount > 100,
      async execute(args) {
        refunds.push(args.amount);
        return { refunded: args.amount };
      },
    };
    const model = new ScriptedChatModel([
      toolCallTurn([{ name: 'refund', arguments: { amount: 50 } }]),
      toolCallTurn([{ name: 'refund', arguments: { amount: 500 } }]),
      textTurn('好的。'),
    ]);
    const runs = new RunManager({ agents: [testAgent({ model, tools: [refund] })], store });
    const conversation = await store.createConversation(userId, 'c');
    const log = await runs.startRun(userId, conversation.id, '退款');
    await runs.settled(log.runId);
    expect(refunds).toEqual([50]);
    expect(log.state.status).toBe('paused');
    expect(log.state.pause?.pending.map((call) => call.name)).toEqual(['refund']);
  });
});

describe('policies that refuse a tool outright', () => {
  it('keep it from the model, and still deny a call to it', async () => {
    const { tool, executed } = recordingCancelOrder();
    const denyList: ToolPolicy = {
      name: 'deny-list',
      offers: (name) => name !== 'cancel_order',
      check: (call) =>
        call.name === 'cancel_order' ? { action: 'deny', reason: 'disabled here' } : { action: 'allow' },
    };
    const { model, seen } = recordingModel([
      toolCallTurn([{ name: 'cancel_order', arguments: { orderId: '1' } }]),
      textTurn('做不到。'),
    ]);
    const runs = new RunManager({
      agents: [testAgent({ model, tools: [tool] })],
      store,
      policies: [denyList],
    });
    const conversation = await store.createConversation(userId, 'c');
    const log = await runs.startRun(userId, conversation.id, '取消订单 1');
    await runs.settled(log.runId);
    expect(seen[0]?.tools).toEqual([]);
    expect(executed).toEqual([]);
    expect(log.state.blocks.find((block) => block.kind === 'tool')).toMatchObject({ status: 'failed' });
  });
});

describe('an agent that changed while a run waited for approval', () => {
  async function pausedRun(before: ResolvedAgent) {
    const runs = new RunManager({ agents: [before], store });
    const conversation = await store.createConversation(userId, 'c');
    const log = await runs.startRun(userId, conversation.id, '取消订单 88235');
    await runs.settled(log.runId);
    await runs.close();
    return { log, toolCallId: log.state.pause?.pending[0]?.toolCallId ?? '' };
  }
  const turns = () => [
    toolCallTurn([{ name: 'cancel_order', arguments: { orderId: '88235' } }]),
    textTurn('已处理。'),
  ];

  it.each([
    ['removed', () => []],
    [
      'changed',
      () => {
        const changed = recordingCancelOrder();
        return [{ ...changed.tool, parameters: z.object({ orderId: z.string(), reason: z.string() }) }];
      },
    ],
  ])('a tool %s: the approval runs nothing and says why in an error block', async (how, toolsAfter) => {
    const { tool, executed } = recordingCancelOrder();
    const { log, toolCallId } = await pausedRun(
      testAgent({ model: new ScriptedChatModel(turns()), tools: [tool] }),
    );
    const after = new RunManager({
      agents: [
        testAgent({ model: new ScriptedChatModel([textTurn('好的。')]), tools: toolsAfter() as Tool[] }),
      ],
      store,
    });
    const resumed = await after.decide(userId, log.runId, toolCallId, 'approve');
    await after.settled(log.runId);
    expect(executed).toEqual([]);
    const blocks = resumed.state.blocks;
    expect(blocks.find((block) => block.kind === 'tool')).toMatchObject({ status: 'failed' });
    const error = blocks.find((block) => block.kind === 'error');
    expect(error?.kind === 'error' && error.text).toContain(`cancel_order ${how}`);
    expect(error?.kind === 'error' && error.text).toContain('配置在这一轮暂停后已经改变');
  });

  it('an unchanged tool runs as approved', async () => {
    const { tool, executed } = recordingCancelOrder();
    const { log, toolCallId } = await pausedRun(
      testAgent({ model: new ScriptedChatModel(turns()), tools: [tool] }),
    );
    const after = new RunManager({
      agents: [testAgent({ model: new ScriptedChatModel([textTurn('已取消。')]), tools: [tool] })],
      store,
    });
    await after.decide(userId, log.runId, toolCallId, 'approve');
    await after.settled(log.runId);
    expect(executed).toEqual(['88235']);
  });
});
