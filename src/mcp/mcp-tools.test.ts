import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type ChatRequest, ScriptedChatModel, textTurn, toolCallTurn } from '../models/index.ts';
import type { ConfirmBlock, ToolBlock } from '../protocol/index.ts';
import { type RunLog, RunManager } from '../runtime/index.ts';
import { testAgent } from '../runtime/test-support/test-agent.ts';
import { MemoryRunStore } from '../store/index.ts';
import { type McpToolSource, openMcpTools } from './mcp-tool-source.ts';
import {
  httpOrderService,
  type OrderServiceHarness,
  stdioOrderService,
} from './test-support/order-service-harness.ts';

/**
 * MCP tools through the real runtime: a `RunManager` whose scripted model calls the tools of a real
 * MCP order service (built with the official SDK), over stdio (a child process) and over
 * Streamable HTTP, and what the service saw of each call.
 */
const transports: [string, () => Promise<OrderServiceHarness>][] = [
  ['stdio', async () => stdioOrderService()],
  ['Streamable HTTP', () => httpOrderService()],
];

const toolBlock = (log: RunLog, toolCallId: string) =>
  log.state.blocks.find(
    (block): block is ToolBlock => block.kind === 'tool' && block.toolCallId === toolCallId,
  );
const confirmBlock = (log: RunLog, toolCallId: string) =>
  log.state.blocks.find(
    (block): block is ConfirmBlock => block.kind === 'confirm' && block.toolCallId === toolCallId,
  );
const lastToolMessage = (request: ChatRequest | undefined) =>
  request?.messages.filter((message) => message.role === 'tool').at(-1)?.content;

describe.each(transports)('MCP tools over %s', (_transport, startService) => {
  let service: OrderServiceHarness;
  let source: McpToolSource;
  let store: MemoryRunStore;
  let userId: string;
  let conversationId: string;
  const logLines: Record<string, unknown>[] = [];

  /** The calls (with their `_meta`) of one tool call that reached the service. */
  const calledWith = (toolCallId: string) =>
    service
      .journal()
      .filter((entry) => entry.event === 'called' && entry.meta['runstream/toolCallId'] === toolCallId);

  beforeAll(async () => {
    service = await startService();
    source = await openMcpTools(new Map([['orders', service.config]]), {
      log: (line) => logLines.push(line),
      reservedNames: ['query_order'],
    });
  });

  afterAll(async () => {
    await source?.close();
    await service?.close();
  });

  beforeEach(async () => {
    store = new MemoryRunStore();
    userId = (await store.createUser('mcp')).id;
    conversationId = (await store.createConversation(userId, 'mcp')).id;
  });

  function manager(model: ScriptedChatModel): RunManager {
    return new RunManager({
      store,
      agents: [testAgent({ model, tools: source.tools, instructions: '客服' })],
    });
  }

  it('offers every tool by its own name with its title, effect and JSON Schema', async () => {
    const byName = new Map(source.tools.map((tool) => [tool.name, tool]));
    expect([...byName.keys()].sort()).toEqual(['cancel_order', 'get_order', 'list_orders', 'slow_export']);
    expect(byName.get('list_orders')).toMatchObject({ title: 'List orders', effect: 'read' });
    expect(byName.get('cancel_order')).toMatchObject({ title: 'Cancel an order', effect: 'write' });
    const model = new ScriptedChatModel([textTurn('你好')]);
    const runs = manager(model);
    const log = await runs.startRun(userId, conversationId, '你好');
    await runs.settled(log.runId);
    const offered = model.requests[0]?.tools?.find((tool) => tool.name === 'cancel_order');
    expect(offered?.description).toBe('Cancel a paid order that has not shipped.');
    expect(offered?.parameters).toMatchObject({
      type: 'object',
      properties: { orderId: { type: 'string', pattern: '^\\d+$' } },
      required: ['orderId'],
    });
    expect(offered?.parameters).not.toHaveProperty('$schema');
  });

  it('a read tool runs at once: its text and structured content on the block and for the model, its _meta naming the owner', async () => {
    const model = new ScriptedChatModel([
      toolCallTurn([{ id: 'call_list', name: 'list_orders', arguments: { status: 'shipped' } }]),
      textTurn('你有一个已发货的订单。'),
    ]);
    const runs = manager(model);
    const log = await runs.startRun(userId, conversationId, '我的订单', undefined, {
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    });
    await runs.settled(log.runId);
    expect(log.state.status).toBe('completed');
    const shipped = [{ orderId: '1003', item: 'Orbit 机械键盘', status: 'shipped' }];
    expect(toolBlock(log, 'call_list')).toMatchObject({
      status: 'done',
      title: 'List orders',
      result: { text: JSON.stringify(shipped), structuredContent: { orders: shipped } },
    });
    expect(JSON.parse(lastToolMessage(model.requests[1]) ?? '')).toEqual({
      text: JSON.stringify(shipped),
      structuredContent: { orders: shipped },
    });
    const [call] = calledWith('call_list');
    expect(call).toMatchObject({ tool: 'list_orders', args: { status: 'shipped' } });
    expect(call?.event === 'called' && call.meta).toMatchObject({
      'runstream/userId': userId,
      'runstream/runId': log.runId,
      'runstream/traceId': '4bf92f3577b34da6a3ce929d0e0e4736',
      traceparent: expect.stringMatching(/^00-4bf92f3577b34da6a3ce929d0e0e4736-[\da-f]{16}-01$/),
    });
  });

  it('a write tool shows a card with the tool, server and arguments; approved, it runs exactly once', async () => {
    const model = new ScriptedChatModel([
      toolCallTurn([
        {
          id: 'call_cancel',
          name: 'cancel_order',
          arguments: { orderId: '1001', reason: '不想要了' },
        },
      ]),
      textTurn('订单 1001 已取消。'),
    ]);
    const runs = manager(model);
    const log = await runs.startRun(userId, conversationId, '取消 1001');
    await runs.settled(log.runId);
    expect(log.state.pause?.reason).toBe('confirmation');
    expect(calledWith('call_cancel')).toEqual([]);
    // The card speaks of the action and its object: no transport words, no raw argument names.
    expect(confirmBlock(log, 'call_cancel')).toMatchObject({
      status: 'pending',
      title: 'Cancel an order',
      description: 'Cancel a paid order that has not shipped.',
      details: [
        { label: '订单号', value: '1001' },
        { label: '取消原因', value: '不想要了' },
      ],
    });
    expect(JSON.stringify(confirmBlock(log, 'call_cancel'))).not.toMatch(/MCP|orders|orderId|reason/);
    await runs.decide(userId, log.runId, 'call_cancel', 'approve');
    await runs.settled(log.runId);
    // A second approval of the same card runs nothing.
    await runs.decide(userId, log.runId, 'call_cancel', 'approve').catch(() => undefined);
    await runs.settled(log.runId);
    expect(log.state.status).toBe('completed');
    expect(toolBlock(log, 'call_cancel')).toMatchObject({
      status: 'done',
      result: { structuredContent: { orderId: '1001', status: 'cancelled' } },
    });
    expect(calledWith('call_cancel')).toHaveLength(1);
    const effects = service
      .journal()
      .filter((entry) => entry.event === 'cancelled' && entry.orderId === '1001');
    expect(effects).toEqual([{ event: 'cancelled', orderId: '1001', userId }]);
  });

  it('a rejected write never reaches the service', async () => {
    const model = new ScriptedChatModel([
      toolCallTurn([{ id: 'call_keep', name: 'cancel_order', arguments: { orderId: '1002' } }]),
      textTurn('好的，不取消。'),
    ]);
    const runs = manager(model);
    const log = await runs.startRun(userId, conversationId, '取消 1002');
    await runs.settled(log.runId);
    await runs.decide(userId, log.runId, 'call_keep', 'reject');
    await runs.settled(log.runId);
    expect(log.state.status).toBe('completed');
    expect(toolBlock(log, 'call_keep')?.status).toBe('rejected');
    expect(calledWith('call_keep')).toEqual([]);
    expect(service.journal().some((entry) => entry.event === 'cancelled' && entry.orderId === '1002')).toBe(
      false,
    );
  });

  it('arguments failing the JSON Schema fail the block; no card, and the service is never called', async () => {
    const model = new ScriptedChatModel([
      toolCallTurn([{ id: 'call_bad', name: 'cancel_order', arguments: { orderId: 'abc' } }]),
      textTurn('订单号不对。'),
    ]);
    const runs = manager(model);
    const log = await runs.startRun(userId, conversationId, '取消 abc');
    await runs.settled(log.runId);
    expect(log.state.status).toBe('completed');
    expect(toolBlock(log, 'call_bad')).toMatchObject({
      status: 'failed',
      error: { code: 'invalid_arguments' },
    });
    expect(confirmBlock(log, 'call_bad')).toBeUndefined();
    expect(calledWith('call_bad')).toEqual([]);
  });

  it('an isError result is a failed block whose message the model reads', async () => {
    const model = new ScriptedChatModel([
      toolCallTurn([{ id: 'call_missing', name: 'get_order', arguments: { orderId: '9999' } }]),
      textTurn('没有这个订单。'),
    ]);
    const runs = manager(model);
    const log = await runs.startRun(userId, conversationId, '查 9999');
    await runs.settled(log.runId);
    expect(toolBlock(log, 'call_missing')).toMatchObject({
      status: 'failed',
      error: { code: 'mcp_tool_error', message: 'order 9999 not found' },
    });
    expect(JSON.parse(lastToolMessage(model.requests[1]) ?? '')).toEqual({
      error: { code: 'mcp_tool_error', message: 'order 9999 not found' },
    });
    expect(calledWith('call_missing')).toHaveLength(1);
  });

  it('stopping the run during a call cancels it on the service (notifications/cancelled reaches extra.signal)', async () => {
    const model = new ScriptedChatModel([
      toolCallTurn([{ id: 'call_export', name: 'slow_export', arguments: {} }]),
    ]);
    const runs = manager(model);
    const aborted = () => service.journal().filter((entry) => entry.event === 'aborted').length;
    const abortedBefore = aborted();
    const log = await runs.startRun(userId, conversationId, '导出订单');
    await vi.waitFor(() => expect(calledWith('call_export')).toHaveLength(1), { timeout: 10_000 });
    await runs.cancel(userId, log.runId, 'user_stop');
    await runs.settled(log.runId);
    expect(log.state.status).toBe('cancelled');
    expect(toolBlock(log, 'call_export')?.status).toBe('cancelled');
    await vi.waitFor(() => expect(aborted()).toBe(abortedBefore + 1), { timeout: 10_000 });
  });

  it('the service going away mid-call fails that call clearly; the next call reconnects', async () => {
    const model = new ScriptedChatModel([
      toolCallTurn([{ id: 'call_cut', name: 'slow_export', arguments: {} }]),
      textTurn('导出失败了。'),
      toolCallTurn([{ id: 'call_back', name: 'get_order', arguments: { orderId: '1003' } }]),
      textTurn('订单 1003 已发货。'),
    ]);
    const runs = manager(model);
    const first = await runs.startRun(userId, conversationId, '导出订单');
    await vi.waitFor(() => expect(calledWith('call_cut')).toHaveLength(1), { timeout: 10_000 });
    await service.crash();
    await runs.settled(first.runId);
    expect(first.state.status).toBe('completed');
    expect(toolBlock(first, 'call_cut')).toMatchObject({
      status: 'failed',
      error: { code: 'mcp_unavailable', message: expect.stringContaining('服务 orders 连接中断') },
    });
    await service.revive();
    const second = await runs.startRun(userId, conversationId, '查 1003');
    await runs.settled(second.runId);
    expect(toolBlock(second, 'call_back')).toMatchObject({
      status: 'done',
      result: { text: expect.stringContaining('"orderId":"1003"') },
    });
    expect(calledWith('call_back')).toHaveLength(1);
  });

  it('a service restarted between calls: the next call opens a new connection and works', async () => {
    const lost = () => logLines.filter((line) => String(line.message).includes('connection lost')).length;
    const lostBefore = lost();
    await service.crash();
    // The client notices the process exit (stdio) or its event stream ending (HTTP).
    await vi.waitFor(() => expect(lost()).toBe(lostBefore + 1), { timeout: 10_000 });
    await service.revive();
    const model = new ScriptedChatModel([
      toolCallTurn([{ id: 'call_again', name: 'get_order', arguments: { orderId: '1002' } }]),
      textTurn('订单 1002 待发货。'),
    ]);
    const runs = manager(model);
    const log = await runs.startRun(userId, conversationId, '查 1002');
    await runs.settled(log.runId);
    expect(toolBlock(log, 'call_again')).toMatchObject({ status: 'done' });
    expect(calledWith('call_again')).toHaveLength(1);
  });
});

describe('MCP server options and sessions', () => {
  it('a server that stays down: the call on the lost session may have run, the next one was not sent', async () => {
    const service = await httpOrderService({}, { standaloneSse: false });
    const source = await openMcpTools(new Map([['orders', service.config]]), { log: () => undefined });
    try {
      await service.crash();
      const store = new MemoryRunStore();
      const userId = (await store.createUser('mcp')).id;
      const conversationId = (await store.createConversation(userId, 'mcp')).id;
      const model = new ScriptedChatModel([
        toolCallTurn([{ id: 'call_down_1', name: 'get_order', arguments: { orderId: '1001' } }]),
        toolCallTurn([{ id: 'call_down_2', name: 'get_order', arguments: { orderId: '1001' } }]),
        textTurn('订单服务暂时不可用。'),
      ]);
      const runs = new RunManager({
        store,
        agents: [testAgent({ model, tools: source.tools, instructions: '客服' })],
      });
      const log = await runs.startRun(userId, conversationId, '查 1001');
      await runs.settled(log.runId);
      expect(toolBlock(log, 'call_down_1')).toMatchObject({
        status: 'failed',
        error: { code: 'mcp_unavailable', message: expect.stringContaining('是否生效未知') },
      });
      expect(toolBlock(log, 'call_down_2')).toMatchObject({
        status: 'failed',
        error: {
          code: 'mcp_unavailable',
          message: expect.stringMatching(/^服务 orders 无法连接.*本次调用未执行$/),
        },
      });
    } finally {
      await source.close();
      await service.close();
    }
  });

  it('alwaysConfirm: even a read-only tool waits for the owner’s confirmation', async () => {
    const service = await httpOrderService({ alwaysConfirm: true });
    const source = await openMcpTools(new Map([['orders', service.config]]), { log: () => undefined });
    try {
      const list = source.tools.find((tool) => tool.name === 'list_orders');
      expect(list?.effect).toBe('write');
      const store = new MemoryRunStore();
      const userId = (await store.createUser('mcp')).id;
      const conversationId = (await store.createConversation(userId, 'mcp')).id;
      const model = new ScriptedChatModel([
        toolCallTurn([{ id: 'call_guarded', name: 'list_orders', arguments: {} }]),
      ]);
      const runs = new RunManager({
        store,
        agents: [testAgent({ model, tools: source.tools, instructions: '客服' })],
      });
      const log = await runs.startRun(userId, conversationId, '我的订单');
      await runs.settled(log.runId);
      expect(log.state.pause?.reason).toBe('confirmation');
      expect(confirmBlock(log, 'call_guarded')).toMatchObject({
        title: 'List orders',
        description: 'List the orders, optionally only those with a status.',
        details: [],
      });
      expect(service.journal().filter((entry) => entry.event === 'called')).toEqual([]);
      await runs.cancel(userId, log.runId);
    } finally {
      await source.close();
      await service.close();
    }
  });

  it('a session the server no longer knows (404) is replaced and the call sent once on the new one', async () => {
    const service = await httpOrderService({}, { standaloneSse: false });
    const source = await openMcpTools(new Map([['orders', service.config]]), { log: () => undefined });
    try {
      service.forgetSessions();
      const store = new MemoryRunStore();
      const userId = (await store.createUser('mcp')).id;
      const conversationId = (await store.createConversation(userId, 'mcp')).id;
      const model = new ScriptedChatModel([
        toolCallTurn([{ id: 'call_404', name: 'get_order', arguments: { orderId: '1001' } }]),
        textTurn('好的。'),
      ]);
      const runs = new RunManager({
        store,
        agents: [testAgent({ model, tools: source.tools, instructions: '客服' })],
      });
      const log = await runs.startRun(userId, conversationId, '查 1001');
      await runs.settled(log.runId);
      expect(toolBlock(log, 'call_404')).toMatchObject({ status: 'done' });
      expect(
        service
          .journal()
          .filter((entry) => entry.event === 'called' && entry.meta['runstream/toolCallId'] === 'call_404'),
      ).toHaveLength(1);
      expect(service.sessionsRefused()).toBe(1);
    } finally {
      await source.close();
      await service.close();
    }
  });
});

describe('MCP tool timeouts', () => {
  it('a call past the server’s timeoutMs fails as tool_timeout and is cancelled on the service', async () => {
    const service = await httpOrderService({ timeoutMs: 300 });
    const source = await openMcpTools(new Map([['orders', service.config]]), { log: () => undefined });
    try {
      const store = new MemoryRunStore();
      const userId = (await store.createUser('mcp')).id;
      const conversationId = (await store.createConversation(userId, 'mcp')).id;
      const model = new ScriptedChatModel([
        toolCallTurn([{ id: 'call_slow', name: 'slow_export', arguments: {} }]),
        textTurn('导出超时了。'),
      ]);
      const runs = new RunManager({
        store,
        agents: [testAgent({ model, tools: source.tools, instructions: '客服' })],
      });
      const log = await runs.startRun(userId, conversationId, '导出');
      await runs.settled(log.runId);
      expect(toolBlock(log, 'call_slow')).toMatchObject({
        status: 'failed',
        error: { code: 'tool_timeout' },
      });
      await vi.waitFor(
        () => expect(service.journal().filter((entry) => entry.event === 'aborted')).toHaveLength(1),
        { timeout: 10_000 },
      );
    } finally {
      await source.close();
      await service.close();
    }
  });
});
