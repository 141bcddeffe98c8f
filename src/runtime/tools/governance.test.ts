import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type ChatRequest, ScriptedChatModel, textTurn, toolCallTurn } from '../../models/index.ts';
import type { ToolBlock } from '../../protocol/index.ts';
import {
  MemoryRunStore,
  MemoryToolAuditLog,
  openDatabase,
  type RunStore,
  SqliteRunStore,
  SqliteToolAuditLog,
  type ToolAuditEntry,
  type ToolAuditLog,
} from '../../store/index.ts';
import type { Skill } from '../agent/skill.ts';
import type { RunLog } from '../log/run-log.ts';
import { RunManager } from '../runs/run-manager.ts';
import type { RunManagerOptions } from '../runs/run-manager-options.ts';
import { testAgent } from '../test-support/test-agent.ts';
import type { HostToolDefinition } from './host-tool.ts';
import { type Tool, type ToolContext, ToolError } from './tool.ts';
import type { ToolCallInfo, ToolPolicy } from './tool-policy.ts';

const readFile: HostToolDefinition = {
  name: 'read_local_file',
  description: 'Read a text file on the user’s machine.',
  parameters: {
    type: 'object',
    properties: { path: { type: 'string', minLength: 1 } },
    required: ['path'],
  },
};

const orderChange: Skill = {
  name: 'order-change',
  title: '订单变更手册',
  description: 'How to cancel an order.',
  body: '# 订单变更',
  unlocksTools: [],
};

interface Calls {
  query: { args: unknown; context: ToolContext }[];
  cards: unknown[];
  cancelled: unknown[];
}

function tools(calls: Calls): Tool<never, unknown>[] {
  const queryOrder: Tool<{ orderId?: string; limit?: number }, unknown> = {
    name: 'query_order',
    title: '订单查询',
    description: 'List orders.',
    parameters: z.object({
      orderId: z.string().optional(),
      limit: z.number().int().min(1).max(20).optional(),
    }),
    effect: 'read',
    async execute(args, context) {
      calls.query.push({ args, context });
      return { orders: [{ orderId: args.orderId ?? '88235' }] };
    },
  };
  const cancelOrder: Tool<{ orderId: string }, unknown> = {
    name: 'cancel_order',
    title: '取消订单',
    description: 'Cancel an order.',
    parameters: z.object({ orderId: z.string().regex(/^\d+$/) }),
    effect: 'write',
    async confirm(args) {
      calls.cards.push(args);
      return { title: '取消订单', description: `订单 ${args.orderId}`, details: [] };
    },
    async execute(args) {
      calls.cancelled.push(args);
      return { orderId: args.orderId, status: '已取消' };
    },
  };
  const refuse: Tool<Record<string, never>, unknown> = {
    name: 'track_parcel',
    title: '物流查询',
    description: 'Track a parcel.',
    parameters: z.object({}),
    effect: 'read',
    async execute() {
      throw new ToolError('carrier_down', '物流公司接口不可用');
    },
  };
  const slow: Tool<Record<string, never>, unknown> = {
    name: 'slow_report',
    title: '慢报表',
    description: 'Takes long.',
    parameters: z.object({}),
    effect: 'read',
    timeoutMs: 20,
    execute: () => new Promise(() => undefined),
  };
  const hanging: Tool<Record<string, never>, unknown> = {
    name: 'hanging_lookup',
    title: '很慢的查询',
    description: 'Never answers within a test.',
    parameters: z.object({}),
    effect: 'read',
    timeoutMs: 60_000,
    execute: () => new Promise(() => undefined),
  };
  return [queryOrder, cancelOrder, refuse, slow, hanging] as Tool<never, unknown>[];
}

const toolMessages = (request: ChatRequest | undefined) =>
  request?.messages.filter((message) => message.role === 'tool') ?? [];

const toolBlock = (log: RunLog, toolCallId: string) =>
  log.state.blocks.find(
    (block): block is ToolBlock => block.kind === 'tool' && block.toolCallId === toolCallId,
  );

let store: RunStore;
let audit: MemoryToolAuditLog;
let calls: Calls;
let userId: string;
let conversationId: string;

beforeEach(async () => {
  store = new MemoryRunStore();
  audit = new MemoryToolAuditLog();
  calls = { query: [], cards: [], cancelled: [] };
  userId = (await store.createUser('governed')).id;
  conversationId = (await store.createConversation(userId, 'governance')).id;
});

function manager(model: ScriptedChatModel, options: Partial<RunManagerOptions> = {}): RunManager {
  return new RunManager({
    agents: [testAgent({ model, tools: tools(calls), skills: [orderChange], instructions: '客服' })],
    store,
    audit,
    ...options,
  });
}

/** The run's audit entries, oldest first. */
async function entries(runId: string, log: ToolAuditLog = audit): Promise<ToolAuditEntry[]> {
  return (await log.list({ userId, runId })).reverse();
}

describe('tool policies', () => {
  it('see every call (server, load_skill, host) with its caller and trace id, and allow it', async () => {
    const seen: ToolCallInfo[] = [];
    const watcher: ToolPolicy = {
      name: 'watcher',
      check(call) {
        seen.push(call);
        return { action: 'allow' };
      },
    };
    const model = new ScriptedChatModel([
      toolCallTurn([
        { id: 'call_skill', name: 'load_skill', arguments: { name: 'order-change' } },
        { id: 'call_query', name: 'query_order', arguments: { limit: 3 } },
        { id: 'call_read', name: 'read_local_file', arguments: { path: 'a.txt' } },
      ]),
      textTurn('好了。'),
    ]);
    const runs = manager(model, { policies: [watcher] });
    const log = await runs.startRun(userId, conversationId, '查一下', undefined, {
      hostTools: [readFile],
      traceId: 'trace-allow',
      face: 'responses',
    });
    await runs.settled(log.runId);
    expect(log.since(0).events[0]).toMatchObject({ type: 'run.started', traceId: 'trace-allow' });
    expect(log.state.pause?.reason).toBe('tool_result');
    const common = { runId: log.runId, conversationId, userId, traceId: 'trace-allow', face: 'responses' };
    expect(seen).toEqual([
      {
        ...common,
        toolCallId: 'call_skill',
        name: 'load_skill',
        args: { name: 'order-change' },
        executor: 'server',
        effect: 'read',
      },
      {
        ...common,
        toolCallId: 'call_query',
        name: 'query_order',
        args: { limit: 3 },
        executor: 'server',
        effect: 'read',
      },
      {
        ...common,
        toolCallId: 'call_read',
        name: 'read_local_file',
        args: { path: 'a.txt' },
        executor: 'host',
        effect: 'host',
      },
    ]);
    expect(calls.query.map((call) => call.context.traceId)).toEqual(['trace-allow']);
    await runs.submitToolResults(userId, log.runId, [{ toolCallId: 'call_read', output: 'A' }]);
    await runs.settled(log.runId);
    expect(log.state.status).toBe('completed');
    const audited = await entries(log.runId);
    expect(audited.map((entry) => [entry.toolCallId, entry.decision, entry.outcome])).toEqual([
      ['call_skill', 'allow', 'done'],
      ['call_query', 'allow', 'done'],
      ['call_read', 'allow', 'done'],
    ]);
    expect(audited[2]).toEqual({
      at: expect.any(Number),
      ...common,
      toolCallId: 'call_read',
      name: 'read_local_file',
      executor: 'host',
      effect: 'host',
      args: { path: 'a.txt' },
      decision: 'allow',
      outcome: 'done',
      durationMs: expect.any(Number),
    });
  });

  it('deny: a failed tool_denied block the model reads; the tool, its card and later policies never run', async () => {
    let later = 0;
    const policies: ToolPolicy[] = [
      {
        name: 'no-cancellations',
        check: (call) =>
          call.effect === 'write'
            ? { action: 'deny', reason: '演示环境不允许取消订单' }
            : { action: 'allow' },
      },
      {
        name: 'later',
        check() {
          later += 1;
          return { action: 'allow' };
        },
      },
    ];
    const model = new ScriptedChatModel([
      toolCallTurn([{ id: 'call_cancel', name: 'cancel_order', arguments: { orderId: '88235' } }]),
      textTurn('抱歉，这里不能取消订单。'),
    ]);
    const runs = manager(model, { policies });
    const log = await runs.startRun(userId, conversationId, '取消订单', undefined, { traceId: 'trace-deny' });
    await runs.settled(log.runId);
    expect(log.state.status).toBe('completed');
    expect(toolBlock(log, 'call_cancel')).toMatchObject({
      status: 'failed',
      args: { orderId: '88235' },
      error: { code: 'tool_denied', message: '演示环境不允许取消订单' },
    });
    expect(log.state.blocks.some((block) => block.kind === 'confirm')).toBe(false);
    expect(calls.cards).toEqual([]);
    expect(calls.cancelled).toEqual([]);
    expect(later).toBe(0);
    expect(toolMessages(model.requests[1])).toEqual([
      {
        role: 'tool',
        toolCallId: 'call_cancel',
        content: JSON.stringify({ error: { code: 'tool_denied', message: '演示环境不允许取消订单' } }),
      },
    ]);
    expect(await entries(log.runId)).toEqual([
      expect.objectContaining({
        toolCallId: 'call_cancel',
        traceId: 'trace-deny',
        face: 'chat',
        executor: 'server',
        effect: 'write',
        args: { orderId: '88235' },
        decision: 'deny',
        policy: 'no-cancellations',
        reason: '演示环境不允许取消订单',
        outcome: 'denied',
      }),
    ]);
  });

  it('rewrite: validated again, and the tool, the card and the host see the rewritten arguments', async () => {
    const seenByLater: unknown[] = [];
    const policies: ToolPolicy[] = [
      {
        name: 'cap-limits',
        check: (call) =>
          call.name === 'query_order'
            ? { action: 'rewrite', args: { ...(call.args as object), limit: 5 }, reason: 'limit capped at 5' }
            : { action: 'allow' },
      },
      {
        name: 'sandbox-paths',
        check(call) {
          seenByLater.push(call.args);
          if (call.name === 'read_local_file')
            return { action: 'rewrite', args: { path: `sandbox/${(call.args as { path: string }).path}` } };
          if (call.name === 'cancel_order')
            return {
              action: 'rewrite',
              args: { orderId: (call.args as { orderId: string }).orderId.slice(-5) },
            };
          return { action: 'allow' };
        },
      },
    ];
    const model = new ScriptedChatModel([
      toolCallTurn([
        { id: 'call_query', name: 'query_order', arguments: { limit: 20 } },
        { id: 'call_cancel', name: 'cancel_order', arguments: { orderId: '000088235' } },
        { id: 'call_read', name: 'read_local_file', arguments: { path: 'a.txt' } },
      ]),
      textTurn('好的。'),
    ]);
    const runs = manager(model, { policies });
    const log = await runs.startRun(userId, conversationId, '查询并取消', undefined, {
      hostTools: [readFile],
    });
    await runs.settled(log.runId);
    expect(seenByLater).toEqual([{ limit: 5 }, { orderId: '000088235' }, { path: 'a.txt' }]);
    expect(calls.query.map((call) => call.args)).toEqual([{ limit: 5 }]);
    expect(toolBlock(log, 'call_query')?.args).toEqual({ limit: 5 });
    expect(calls.cards).toEqual([{ orderId: '88235' }]);
    expect(log.state.pause?.pending).toEqual([
      { toolCallId: 'call_cancel', name: 'cancel_order', args: { orderId: '88235' } },
    ]);
    await runs.decide(userId, log.runId, 'call_cancel', 'approve');
    await runs.settled(log.runId);
    expect(calls.cancelled).toEqual([{ orderId: '88235' }]);
    expect(log.state.pause?.pending).toEqual([
      { toolCallId: 'call_read', name: 'read_local_file', args: { path: 'sandbox/a.txt' } },
    ]);
    await runs.submitToolResults(userId, log.runId, [{ toolCallId: 'call_read', output: 'A' }]);
    await runs.settled(log.runId);
    expect(log.state.status).toBe('completed');
    const audited = await entries(log.runId);
    expect(audited.map((entry) => [entry.toolCallId, entry.decision, entry.policy, entry.outcome])).toEqual([
      ['call_query', 'rewrite', 'cap-limits', 'done'],
      ['call_cancel', 'rewrite', 'sandbox-paths', 'done'],
      ['call_read', 'rewrite', 'sandbox-paths', 'done'],
    ]);
    expect(audited[0]).toMatchObject({
      args: { limit: 5 },
      originalArgs: { limit: 20 },
      reason: 'limit capped at 5',
    });
    expect(audited[1]).toMatchObject({ args: { orderId: '88235' }, originalArgs: { orderId: '000088235' } });
    expect(audited[2]).toMatchObject({ args: { path: 'sandbox/a.txt' }, originalArgs: { path: 'a.txt' } });
  });

  it('a rewrite the schema refuses fails the call; a policy that throws denies it', async () => {
    const policies: ToolPolicy[] = [
      {
        name: 'broken-rewrite',
        check: (call) =>
          call.name === 'query_order' ? { action: 'rewrite', args: { limit: 'many' } } : { action: 'allow' },
      },
      {
        name: 'flaky',
        check(call) {
          if (call.name === 'cancel_order') throw new Error('policy service unreachable');
          return { action: 'allow' };
        },
      },
    ];
    const model = new ScriptedChatModel([
      toolCallTurn([
        { id: 'call_query', name: 'query_order', arguments: { limit: 2 } },
        { id: 'call_cancel', name: 'cancel_order', arguments: { orderId: '88235' } },
      ]),
      textTurn('都没成功。'),
    ]);
    const runs = manager(model, { policies });
    const log = await runs.startRun(userId, conversationId, '查询并取消');
    await runs.settled(log.runId);
    expect(log.state.status).toBe('completed');
    expect(calls.query).toEqual([]);
    expect(calls.cards).toEqual([]);
    expect(toolBlock(log, 'call_query')).toMatchObject({
      status: 'failed',
      args: { limit: 2 },
      error: { code: 'policy_rewrite_invalid', message: expect.stringContaining('broken-rewrite') },
    });
    expect(toolBlock(log, 'call_cancel')).toMatchObject({
      status: 'failed',
      error: { code: 'tool_denied', message: expect.stringContaining('policy service unreachable') },
    });
    const audited = await entries(log.runId);
    expect(audited.map((entry) => [entry.decision, entry.policy, entry.outcome])).toEqual([
      ['rewrite', 'broken-rewrite', 'failed'],
      ['deny', 'flaky', 'denied'],
    ]);
    expect(audited[0]?.error).toMatch(/^policy_rewrite_invalid: /);
  });
});

describe('the tool audit log', () => {
  it('records failed, timed-out, invalid and rejected calls, with durations and the trace id', async () => {
    const model = new ScriptedChatModel([
      toolCallTurn([
        { id: 'call_track', name: 'track_parcel' },
        { id: 'call_slow', name: 'slow_report' },
        { id: 'call_bad', name: 'query_order', arguments: { limit: 500 } },
        { id: 'call_none', name: 'no_such_tool' },
        { id: 'call_cancel', name: 'cancel_order', arguments: { orderId: '88235' } },
      ]),
      textTurn('好的，不取消。'),
    ]);
    const runs = manager(model);
    const log = await runs.startRun(userId, conversationId, '试试', undefined, { traceId: 'trace-audit' });
    await runs.settled(log.runId);
    await runs.decide(userId, log.runId, 'call_cancel', 'reject');
    await runs.settled(log.runId);
    const audited = await entries(log.runId);
    expect(audited.map((entry) => [entry.toolCallId, entry.outcome, entry.error])).toEqual([
      ['call_track', 'failed', 'carrier_down: 物流公司接口不可用'],
      ['call_slow', 'timeout', expect.stringMatching(/^tool_timeout: /)],
      ['call_bad', 'failed', expect.stringMatching(/^invalid_arguments: /)],
      ['call_none', 'failed', expect.stringMatching(/^unknown_tool: /)],
      ['call_cancel', 'rejected', undefined],
    ]);
    expect(audited.every((entry) => entry.traceId === 'trace-audit' && entry.decision === 'allow')).toBe(
      true,
    );
    expect(audited[1]?.durationMs).toBeGreaterThanOrEqual(15);
    expect(audited[2]?.args).toEqual({ limit: 500 });
  });

  it('records calls open at a stop as cancelled: a running tool, a pending card, a pending host call', async () => {
    const live = manager(
      new ScriptedChatModel([toolCallTurn([{ id: 'call_hang', name: 'hanging_lookup' }])]),
    );
    const first = await live.startRun(userId, conversationId, '查');
    await new Promise<void>((resolve) => {
      const leave = first.subscribe((event) => {
        if (event.type === 'block.updated' && 'status' in event && event.status === 'running') {
          leave();
          resolve();
        }
      });
    });
    await live.cancel(userId, first.runId, 'user_stop');
    expect(await entries(first.runId)).toEqual([
      expect.objectContaining({
        toolCallId: 'call_hang',
        outcome: 'cancelled',
        error: 'run_cancelled: user_stop',
      }),
    ]);

    const model = new ScriptedChatModel([
      toolCallTurn([
        { id: 'call_cancel', name: 'cancel_order', arguments: { orderId: '88235' } },
        { id: 'call_read', name: 'read_local_file', arguments: { path: 'a.txt' } },
      ]),
    ]);
    const runs = manager(model);
    const log = await runs.startRun(userId, conversationId, '取消并读', undefined, {
      hostTools: [readFile],
      traceId: 'trace-stop',
    });
    await runs.settled(log.runId);
    expect(await entries(log.runId)).toEqual([]);
    await runs.cancel(userId, log.runId, 'host_gave_up');
    const audited = await entries(log.runId);
    expect(audited.map((entry) => [entry.toolCallId, entry.executor, entry.outcome, entry.error])).toEqual([
      ['call_cancel', 'server', 'cancelled', 'run_cancelled: host_gave_up'],
      ['call_read', 'host', 'cancelled', 'run_cancelled: host_gave_up'],
    ]);
    expect(audited.every((entry) => entry.traceId === 'trace-stop')).toBe(true);
    expect(await store.getToolCall(log.runId, 'call_read')).toMatchObject({ status: 'cancelled' });
  });

  it('records a host error as failed and an approved write as done', async () => {
    const model = new ScriptedChatModel([
      toolCallTurn([
        { id: 'call_cancel', name: 'cancel_order', arguments: { orderId: '88235' } },
        { id: 'call_read', name: 'read_local_file', arguments: { path: 'a.txt' } },
      ]),
      textTurn('好的。'),
    ]);
    const runs = manager(model);
    const log = await runs.startRun(userId, conversationId, '取消并读', undefined, { hostTools: [readFile] });
    await runs.settled(log.runId);
    await runs.decide(userId, log.runId, 'call_cancel', 'approve');
    await runs.settled(log.runId);
    await runs.submitToolResults(userId, log.runId, [{ toolCallId: 'call_read', error: 'EACCES' }]);
    await runs.settled(log.runId);
    expect((await entries(log.runId)).map((entry) => [entry.toolCallId, entry.outcome, entry.error])).toEqual(
      [
        ['call_cancel', 'done', undefined],
        ['call_read', 'failed', 'host_tool_failed: EACCES'],
      ],
    );
  });

  it('a failing audit log never fails the run: the error goes to onPersistenceError', async () => {
    const failures: { runId: string; error: unknown }[] = [];
    const broken: ToolAuditLog = {
      record: async () => {
        throw new Error('disk full');
      },
      list: async () => [],
    };
    const model = new ScriptedChatModel([
      toolCallTurn([{ id: 'call_query', name: 'query_order', arguments: {} }]),
      textTurn('查到了。'),
    ]);
    const runs = manager(model, {
      audit: broken,
      onPersistenceError: (runId, error) => failures.push({ runId, error }),
    });
    const log = await runs.startRun(userId, conversationId, '查');
    await runs.settled(log.runId);
    expect(log.state.status).toBe('completed');
    expect(failures).toEqual([
      { runId: log.runId, error: expect.objectContaining({ message: 'disk full' }) },
    ]);
  });

  it('writes to SQLite next to the run store, and a restarted manager keeps the trace id', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'runstream-governance-'));
    const path = join(directory, 'runstream.db');
    const first = openDatabase(path);
    const second = openDatabase(path);
    try {
      const sqliteStore = new SqliteRunStore(first);
      const user = (await sqliteStore.createUser('sqlite')).id;
      const conversation = (await sqliteStore.createConversation(user, 'audit')).id;
      const before = new RunManager({
        agents: [
          testAgent({
            model: new ScriptedChatModel([
              toolCallTurn([
                { id: 'call_query', name: 'query_order', arguments: {} },
                { id: 'call_read', name: 'read_local_file', arguments: { path: 'a.txt' } },
              ]),
            ]),
            tools: tools(calls),
            skills: [],
            instructions: '客服',
          }),
        ],
        store: sqliteStore,
        audit: new SqliteToolAuditLog(first),
      });
      const log = await before.startRun(user, conversation, '查', undefined, {
        hostTools: [readFile],
        traceId: 'trace-sqlite',
        face: 'responses',
      });
      await before.settled(log.runId);

      const afterAudit = new SqliteToolAuditLog(second);
      const after = new RunManager({
        agents: [
          testAgent({
            model: new ScriptedChatModel([textTurn('好了。')]),
            tools: tools(calls),
            skills: [],
            instructions: '客服',
          }),
        ],
        store: new SqliteRunStore(second),
        audit: afterAudit,
      });
      await after.submitToolResults(user, log.runId, [{ toolCallId: 'call_read', output: 'A' }]);
      await after.settled(log.runId);
      const audited = (await afterAudit.list({ userId: user, runId: log.runId })).reverse();
      expect(
        audited.map((entry) => [entry.toolCallId, entry.executor, entry.outcome, entry.traceId, entry.face]),
      ).toEqual([
        ['call_query', 'server', 'done', 'trace-sqlite', 'responses'],
        ['call_read', 'host', 'done', 'trace-sqlite', 'responses'],
      ]);
    } finally {
      first.close();
      second.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
