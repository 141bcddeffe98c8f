import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type ChatMessage,
  ModelError,
  ScriptedChatModel,
  textTurn,
  toolCallTurn,
} from '../../models/index.ts';
import type { Block, ToolBlock } from '../../protocol/index.ts';
import { RunLog } from '../log/run-log.ts';
import { driveRun } from '../runs/drive-run.ts';
import { RunCancelled } from '../runs/run-cancelled.ts';
import { type AnyTool, type Tool, ToolError } from '../tools/tool.ts';
import { MAX_TOOL_RESULT_CHARS } from '../tools/tool-execution.ts';
import { Agent, type AgentOutcome } from './agent-loop.ts';
import { RUN_MESSAGES } from './run-messages.ts';
import type { Skill } from './skill.ts';

const MAX_ITERATIONS_HINT = RUN_MESSAGES['zh-CN'].maxStepsHint;

const context = { runId: 'run_1', conversationId: 'conv_1', userId: 'usr_1' };

function queryOrder(): Tool<{ orderId?: string; limit?: number }, unknown> & { calls: number } {
  const tool = {
    name: 'query_order',
    title: '订单查询',
    description: 'List the user’s orders.',
    parameters: z.object({
      orderId: z.string().optional(),
      limit: z.number().int().min(1).max(20).optional(),
    }),
    effect: 'read' as const,
    calls: 0,
    async execute(args: { orderId?: string; limit?: number }) {
      tool.calls += 1;
      return { orders: [{ orderId: args.orderId ?? '88235', status: '已支付待发货' }] };
    },
  };
  return tool;
}

function cancelOrder(): Tool<{ orderId: string }, unknown> & { executed: string[] } {
  const tool = {
    name: 'cancel_order',
    title: '取消订单',
    description: 'Cancel an unshipped order.',
    parameters: z.object({ orderId: z.string() }),
    effect: 'write' as const,
    requiresSkill: 'order-change',
    executed: [] as string[],
    async confirm(args: { orderId: string }) {
      if (args.orderId === 'shipped') throw new ToolError('not_cancellable', '已发货订单不能直接取消');
      return {
        title: '取消订单',
        description: `订单 ${args.orderId} · Apple Watch Series 12`,
        details: [{ label: '订单号', value: args.orderId }],
      };
    },
    async execute(args: { orderId: string }) {
      tool.executed.push(args.orderId);
      return { orderId: args.orderId, status: '已取消' };
    },
  };
  return tool;
}

const orderChange: Skill = {
  name: 'order-change',
  title: '订单变更手册',
  description: 'How to cancel or change an order by its status.',
  body: '# 订单变更\n\n待发货订单可以直接取消。',
  unlocksTools: ['cancel_order'],
};

function setUp(
  turns: ConstructorParameters<typeof ScriptedChatModel>[0],
  tools: AnyTool[],
  options: { maxIterations?: number } = {},
) {
  const model = new ScriptedChatModel(turns);
  const log = new RunLog('run_1');
  const controller = new AbortController();
  const agent = new Agent({
    model,
    tools,
    skills: [orderChange],
    log,
    context,
    signal: controller.signal,
    ...options,
  });
  log.append({ type: 'run.started', conversationId: 'conv_1', messageId: 'msg_1' });
  const transcript: ChatMessage[] = [
    { role: 'user', content: '我买的那块表还没发货的话，帮我取消吧，不想要了。' },
  ];
  const start = () => driveRun(log, controller.signal, () => agent.start(transcript));
  return { model, log, controller, agent, start };
}

const kinds = (blocks: readonly Block[]) =>
  blocks.map((block) =>
    block.kind === 'tool' ? `tool:${block.name}:${block.status}` : `${block.kind}:${block.status}`,
  );

describe('the agent loop', () => {
  it('streams reasoning and an answer as explicit blocks with timing, then completes', async () => {
    const { log, start } = setUp(
      [textTurn('你好，有什么可以帮你？', { reasoning: '用户在打招呼。', chunkSize: 2 })],
      [],
    );
    expect(await start()).toEqual({ status: 'completed' });
    expect(kinds(log.state.blocks)).toEqual(['reasoning:done', 'answer:done']);
    expect(log.state.blocks[1]).toMatchObject({ text: '你好，有什么可以帮你？' });
    expect(log.state.blocks.every((block) => block.endedAt !== null && block.durationMs !== null)).toBe(true);
    expect(log.state.status).toBe('completed');
    expect(log.state.anomalies).toEqual([]);
  });

  it('runs a read tool pending → running → done, feeds the result back, and answers', async () => {
    const query = queryOrder();
    const { log, model, start } = setUp(
      [
        toolCallTurn([{ name: 'query_order', arguments: '{"limit": 10}' }], {
          reasoning: '先查订单。',
          chunkSize: 3,
        }),
        textTurn('找到订单 88235。'),
      ],
      [query],
    );
    expect(await start()).toEqual({ status: 'completed' });
    const tool = log.state.blocks.find((block): block is ToolBlock => block.kind === 'tool');
    expect(tool).toMatchObject({
      name: 'query_order',
      title: '订单查询',
      status: 'done',
      args: { limit: 10 },
      argsText: '{"limit": 10}',
    });
    expect(tool?.durationMs).toBeTypeOf('number');
    expect(query.calls).toBe(1);
    const second = model.requests[1]?.messages.at(-1);
    expect(second).toEqual({
      role: 'tool',
      toolCallId: tool?.toolCallId,
      content: JSON.stringify({ orders: [{ orderId: '88235', status: '已支付待发货' }] }),
    });
    const statuses = log.state.blocks.length;
    expect(statuses).toBe(3);
    expect(log.state.anomalies).toEqual([]);
  });

  it('turns arguments that fail the schema into a failed block the model sees, not a crash', async () => {
    const { log, model, start } = setUp(
      [
        toolCallTurn([
          { name: 'query_order', arguments: { limit: 500 } },
          { name: 'query_order', arguments: '{not json' },
        ]),
        textTurn('参数有误，我重新查。'),
      ],
      [queryOrder()],
    );
    expect(await start()).toEqual({ status: 'completed' });
    const tools = log.state.blocks.filter((block): block is ToolBlock => block.kind === 'tool');
    expect(tools.map((block) => [block.status, block.error?.code])).toEqual([
      ['failed', 'invalid_arguments'],
      ['failed', 'invalid_arguments'],
    ]);
    const results = model.requests[1]?.messages.filter((message) => message.role === 'tool') ?? [];
    expect(results).toHaveLength(2);
    expect(results[0]?.role === 'tool' && JSON.parse(results[0].content).error.code).toBe(
      'invalid_arguments',
    );
  });

  it('keeps a write tool hidden until its skill is loaded, then pauses on a confirmation card', async () => {
    const cancel = cancelOrder();
    const { log, model, start } = setUp(
      [
        toolCallTurn([{ name: 'load_skill', arguments: { name: 'order-change' } }], {
          text: '我先看下取消订单的具体办理流程。',
        }),
        toolCallTurn([{ name: 'query_order', arguments: { limit: 10 } }]),
        toolCallTurn([{ name: 'cancel_order', arguments: { orderId: '88235' } }], {
          text: '找到你的Apple Watch订单了……我这就提交取消。',
        }),
      ],
      [queryOrder(), cancel],
    );
    const outcome = await start();
    expect(outcome.status).toBe('paused');
    expect(model.requests[0]?.tools?.map((tool) => tool.name)).toEqual(['load_skill', 'query_order']);
    expect(model.requests[1]?.tools?.map((tool) => tool.name)).toEqual([
      'load_skill',
      'query_order',
      'cancel_order',
    ]);
    expect(kinds(log.state.blocks)).toEqual([
      'answer:done',
      'tool:load_skill:done',
      'tool:query_order:done',
      'answer:done',
      'tool:cancel_order:awaiting_confirmation',
      'confirm:pending',
    ]);
    expect(log.state.blocks[5]).toMatchObject({ description: '订单 88235 · Apple Watch Series 12' });
    expect(log.state.status).toBe('paused');
    expect(log.state.pause?.pending).toEqual([
      { toolCallId: expect.any(String), name: 'cancel_order', args: { orderId: '88235' } },
    ]);
    expect(cancel.executed).toEqual([]);
  });

  it('approved: the tool runs once, run.resumed, and the same message continues', async () => {
    const cancel = cancelOrder();
    const { log, model, agent, controller, start } = setUp(
      [
        toolCallTurn([{ name: 'load_skill', arguments: { name: 'order-change' } }]),
        toolCallTurn([{ name: 'cancel_order', arguments: { orderId: '88235' } }]),
        textTurn('订单 88235 已取消，退款原路退回。'),
      ],
      [cancel],
    );
    const paused = (await start()) as Extract<AgentOutcome, { status: 'paused' }>;
    const seqBefore = log.lastSeq;
    let claims = 0;
    const outcome = await driveRun(log, controller.signal, () =>
      agent.resume(
        paused.checkpoint,
        new Map([[paused.checkpoint.pending[0]?.toolCallId ?? '', 'approve']]),
        async () => {
          claims += 1;
          return claims === 1;
        },
      ),
    );
    expect(outcome).toEqual({ status: 'completed' });
    expect(cancel.executed).toEqual(['88235']);
    expect(kinds(log.state.blocks)).toEqual([
      'tool:load_skill:done',
      'tool:cancel_order:done',
      'confirm:approved',
      'answer:done',
    ]);
    expect(log.state.messageId).toBe('msg_1');
    expect(log.state.status).toBe('completed');
    expect(
      log
        .since(seqBefore)
        .events.map((event) => event.type)
        .slice(0, 4),
    ).toEqual(['block.updated', 'block.ended', 'run.resumed', 'block.updated']);
    expect(model.requests[2]?.messages.at(-1)).toMatchObject({
      role: 'tool',
      content: JSON.stringify({ orderId: '88235', status: '已取消' }),
    });
    expect(log.state.anomalies).toEqual([]);
  });

  it('rejected: the tool block is rejected, the model is told, the run continues', async () => {
    const cancel = cancelOrder();
    const { log, model, agent, controller, start } = setUp(
      [
        toolCallTurn([{ name: 'load_skill', arguments: { name: 'order-change' } }]),
        toolCallTurn([{ name: 'cancel_order', arguments: { orderId: '88235' } }]),
        textTurn('好的，订单保留。'),
      ],
      [cancel],
    );
    const paused = (await start()) as Extract<AgentOutcome, { status: 'paused' }>;
    await driveRun(log, controller.signal, () =>
      agent.resume(
        paused.checkpoint,
        new Map([[paused.checkpoint.pending[0]?.toolCallId ?? '', 'reject']]),
        async () => true,
      ),
    );
    expect(cancel.executed).toEqual([]);
    expect(kinds(log.state.blocks)).toEqual([
      'tool:load_skill:done',
      'tool:cancel_order:rejected',
      'confirm:rejected',
      'answer:done',
    ]);
    expect(model.requests[2]?.messages.at(-1)).toMatchObject({
      role: 'tool',
      content: expect.stringContaining('rejected'),
    });
  });

  it('a write the tool refuses up front fails without a card', async () => {
    const { log, start } = setUp(
      [
        toolCallTurn([{ name: 'load_skill', arguments: { name: 'order-change' } }]),
        toolCallTurn([{ name: 'cancel_order', arguments: { orderId: 'shipped' } }]),
        textTurn('这个订单已发货，不能取消。'),
      ],
      [cancelOrder()],
    );
    expect(await start()).toEqual({ status: 'completed' });
    const cancel = log.state.blocks.find(
      (block): block is ToolBlock => block.kind === 'tool' && block.name === 'cancel_order',
    );
    expect(cancel).toMatchObject({
      status: 'failed',
      error: { code: 'not_cancellable', message: '已发货订单不能直接取消' },
    });
    expect(log.state.blocks.some((block) => block.kind === 'confirm')).toBe(false);
  });

  it('after max iterations: a hint, then one last turn without tools for a summary', async () => {
    const loop = Array.from({ length: 3 }, () => toolCallTurn([{ name: 'query_order', arguments: {} }]));
    const { log, model, start } = setUp([...loop, textTurn('目前查到订单 88235 待发货。')], [queryOrder()], {
      maxIterations: 3,
    });
    const hints: string[] = [];
    log.subscribe((event) => {
      if (event.type === 'run.hint') hints.push(event.text);
    });
    expect(await start()).toEqual({ status: 'completed' });
    expect(hints).toEqual([MAX_ITERATIONS_HINT]);
    expect(model.requests[3]?.tools).toEqual([]);
    expect(log.state.hint).toBeNull();
    expect(log.state.blocks.at(-1)).toMatchObject({ kind: 'answer', text: '目前查到订单 88235 待发货。' });
  });

  it('a model error mid-stream becomes an error block and run.finished{failed}', async () => {
    const { log, start } = setUp(
      [
        {
          parts: textTurn('我先看一下', { chunkSize: 1 }),
          failAt: 3,
          error: new ModelError('model_stream_broken', 'connection reset'),
        },
      ],
      [],
    );
    const outcome = await start();
    expect(outcome.status).toBe('failed');
    expect(kinds(log.state.blocks)).toEqual(['answer:interrupted', 'error:done']);
    expect(log.state.blocks[0]).toMatchObject({ text: '我先看' });
    expect(log.state.blocks[1]).toMatchObject({ text: expect.stringContaining('connection reset') });
    expect(log.state.status).toBe('failed');
    expect(log.state.error?.code).toBe('model_stream_broken');
    expect(log.state.anomalies).toEqual([]);
  });

  it('a stop aborts the model stream, keeps the partial blocks as cancelled, and records the reason', async () => {
    const { log, controller, start } = setUp(
      [{ parts: textTurn('这是一段很长的回答，会被中途停止。', { chunkSize: 1 }), delayMs: 10 }],
      [],
    );
    log.subscribe((event) => {
      if (event.type === 'block.delta' && event.seq === 6) controller.abort(new RunCancelled('user_stop'));
    });
    expect(await start()).toEqual({ status: 'cancelled', reason: 'user_stop' });
    expect(kinds(log.state.blocks)).toEqual(['answer:cancelled']);
    expect(log.state.blocks[0]).toMatchObject({ text: '这是一段' });
    expect(log.state).toMatchObject({ status: 'cancelled', finishReason: 'user_stop' });
    expect(log.state.anomalies).toEqual([]);
  });

  it('times a tool out and tells the model', async () => {
    const stuck: Tool<Record<string, never>, unknown> = {
      name: 'stuck',
      title: '卡住的工具',
      description: 'never answers',
      parameters: z.object({}),
      effect: 'read',
      timeoutMs: 30,
      execute: () => new Promise(() => undefined),
    };
    const { log, start } = setUp([toolCallTurn([{ name: 'stuck' }]), textTurn('工具超时了。')], [stuck]);
    expect(await start()).toEqual({ status: 'completed' });
    expect(log.state.blocks[0]).toMatchObject({
      kind: 'tool',
      status: 'failed',
      error: { code: 'tool_timeout' },
    });
  });

  it('fails a tool whose result is larger than a frame may carry, and tells the model', async () => {
    const huge: Tool<Record<string, never>, unknown> = {
      name: 'huge',
      title: '返回很大的工具',
      description: 'returns too much',
      parameters: z.object({}),
      effect: 'read',
      execute: async () => ({ log: 'x'.repeat(MAX_TOOL_RESULT_CHARS) }),
    };
    const { log, model, start } = setUp([toolCallTurn([{ name: 'huge' }]), textTurn('结果太大了。')], [huge]);
    expect(await start()).toEqual({ status: 'completed' });
    expect(log.state.blocks[0]).toMatchObject({
      kind: 'tool',
      status: 'failed',
      error: { code: 'tool_result_too_large' },
    });
    expect(log.state.blocks[0]).not.toHaveProperty('result');
    const told = model.requests[1]?.messages.find((message) => message.role === 'tool')?.content ?? '';
    expect(told.length).toBeLessThan(1000);
    expect(JSON.parse(told)).toMatchObject({ error: { code: 'tool_result_too_large' } });
  });

  it('runs several tool calls of one turn, each its own block, in order', async () => {
    const { log, model, start } = setUp(
      [
        toolCallTurn([
          { name: 'query_order', arguments: { orderId: 'a' } },
          { name: 'query_order', arguments: { orderId: 'b' } },
        ]),
        textTurn('两个订单都查到了。'),
      ],
      [queryOrder()],
    );
    await start();
    const tools = log.state.blocks.filter((block): block is ToolBlock => block.kind === 'tool');
    expect(tools.map((block) => [block.status, (block.args as { orderId: string }).orderId])).toEqual([
      ['done', 'a'],
      ['done', 'b'],
    ]);
    expect(model.requests[1]?.messages.filter((message) => message.role === 'tool')).toHaveLength(2);
  });
});
