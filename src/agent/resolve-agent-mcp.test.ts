import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEntry } from '../mcp/test-support/order-service.ts';
import { ORDER_SERVICE_MAIN, REPOSITORY_ROOT } from '../mcp/test-support/order-service-harness.ts';
import { ScriptedChatModel, textTurn, toolCallTurn } from '../models/index.ts';
import type { ConfirmBlock, ToolBlock } from '../protocol/index.ts';
import { RunManager, type ToolContext } from '../runtime/index.ts';
import { MemoryRunStore } from '../store/index.ts';
import { AgentDefinitionError } from './agent-definition-error.ts';
import { loadAgent } from './load-agent.ts';
import { type ResolvedAgentHandle, resolveAgent } from './resolve-agent.ts';

/**
 * An agent folder whose mcp.json starts the test order service (a real MCP server over stdio, in a
 * child process) the way a team would write it: `node ./mcp/server.mjs`, run in the folder. Its tools
 * keep their own names next to the folder's own tools, the folder's settings and skills apply to
 * them, and a write's card speaks of the action, never of MCP or raw argument names.
 */
const TSX_LOADER = pathToFileURL(join(REPOSITORY_ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function agentFolder(files: Record<string, string>): string {
  const folder = mkdtempSync(join(tmpdir(), 'runstream-agent-mcp-'));
  folders.push(folder);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(folder, path)), { recursive: true });
    writeFileSync(join(folder, path), text);
  }
  return folder;
}

const context: ToolContext = {
  runId: 'run_1',
  conversationId: 'conv_1',
  userId: 'usr_1',
  toolCallId: 'call_1',
  signal: new AbortController().signal,
};

function ordersFolder(extra: Record<string, string> = {}): { folder: string; journal: () => JournalEntry[] } {
  const folder = agentFolder({
    'agent.json': JSON.stringify(
      {
        id: 'orders',
        name: 'Orders',
        tools: { list_orders: { title: '我的订单' }, slow_export: { needsApproval: true } },
      },
      null,
      2,
    ),
    'instructions.md': '你是订单助手。',
    'skills/order-change/SKILL.md':
      '---\nname: order-change\ndescription: 取消订单前先读\ntools: [cancel_order]\n---\n已发货的订单不能取消。\n',
    // The folder's own tool of a name the server also offers: the server's becomes orders__get_order.
    'tools/get-order.mjs':
      "export default { name: 'get_order', description: 'The local copy.', inputSchema: { type: 'object' }, readOnly: true, execute: () => 'local' };\n",
    'mcp/server.mjs': `import ${JSON.stringify(pathToFileURL(ORDER_SERVICE_MAIN).href)};\n`,
    'mcp.json': JSON.stringify({
      mcpServers: {
        orders: {
          command: 'node',
          args: ['--import', TSX_LOADER, './mcp/server.mjs'],
          env: { ORDER_SERVICE_JOURNAL: 'journal.jsonl' },
        },
      },
    }),
    'journal.jsonl': '',
    ...extra,
  });
  const journal = () =>
    readFileSync(join(folder, 'journal.jsonl'), 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as JournalEntry);
  return { folder, journal };
}

describe('resolveAgent with an MCP server over stdio, from an agent folder', () => {
  let handle: ResolvedAgentHandle;
  let journal: () => JournalEntry[];

  beforeAll(async () => {
    const orders = ordersFolder();
    journal = orders.journal;
    handle = await resolveAgent(await loadAgent(orders.folder), { model: new ScriptedChatModel([]) });
  });

  afterAll(async () => {
    await handle?.close();
  });

  it('offers the MCP tools by their own names, a colliding one as <server>__<tool>, with the settings applied', () => {
    const tools = handle.agent.tools.map((tool) => [tool.name, tool.title, tool.effect, tool.requiresSkill]);
    expect(tools).toEqual([
      ['get_order', 'get_order', 'read', undefined],
      ['list_orders', '我的订单', 'read', undefined],
      ['orders__get_order', 'Get an order', 'read', undefined],
      ['cancel_order', 'Cancel an order', 'write', 'order-change'],
      ['slow_export', 'Export all orders', 'write', undefined],
    ]);
    expect(handle.agent.skills).toEqual([
      {
        name: 'order-change',
        title: 'order-change',
        description: '取消订单前先读',
        body: '已发货的订单不能取消。',
        unlocksTools: ['cancel_order'],
      },
    ]);
  });

  it('a write’s card has the tool’s title and description and its arguments by their labels', async () => {
    const cancel = handle.agent.tools.find((tool) => tool.name === 'cancel_order');
    const card = await cancel?.confirm?.({ orderId: '1001', reason: '不想要了' }, context);
    expect(card).toEqual({
      title: 'Cancel an order',
      description: 'Cancel a paid order that has not shipped.',
      details: [
        { label: '订单号', value: '1001' },
        { label: '取消原因', value: '不想要了' },
      ],
    });
    const slow = handle.agent.tools.find((tool) => tool.name === 'slow_export');
    expect(await slow?.confirm?.({}, context)).toEqual({
      title: 'Export all orders',
      description: 'Export every order as CSV. Takes a long time.',
      details: [],
    });
  });

  it('runs through the runtime: the card pauses the run, approval calls the server once', async () => {
    const store = new MemoryRunStore();
    const userId = (await store.createUser('agent')).id;
    const conversationId = (await store.createConversation(userId, 'agent')).id;
    const model = new ScriptedChatModel([
      toolCallTurn([{ id: 'call_skill', name: 'load_skill', arguments: { name: 'order-change' } }]),
      toolCallTurn([{ id: 'call_cancel', name: 'cancel_order', arguments: { orderId: '1002' } }]),
      textTurn('订单 1002 已取消。'),
    ]);
    const runs = new RunManager({ store, agents: [{ ...handle.agent, model }] });
    try {
      const log = await runs.startRun(userId, conversationId, '取消 1002');
      await runs.settled(log.runId);
      expect(log.state.pause?.reason).toBe('confirmation');
      const confirm = log.state.blocks.find(
        (block): block is ConfirmBlock => block.kind === 'confirm' && block.toolCallId === 'call_cancel',
      );
      expect(confirm).toMatchObject({
        title: 'Cancel an order',
        details: [{ label: '订单号', value: '1002' }],
      });
      expect(JSON.stringify(confirm)).not.toMatch(/MCP|orderId/);
      await runs.decide(userId, log.runId, 'call_cancel', 'approve');
      await runs.settled(log.runId);
      expect(log.state.status).toBe('completed');
      const block = log.state.blocks.find(
        (candidate): candidate is ToolBlock =>
          candidate.kind === 'tool' && candidate.toolCallId === 'call_cancel',
      );
      expect(block).toMatchObject({ name: 'cancel_order', status: 'done' });
      expect(journal().filter((entry) => entry.event === 'cancelled')).toEqual([
        { event: 'cancelled', orderId: '1002', userId },
      ]);
    } finally {
      await runs.close();
    }
  });
});

describe('resolveAgent with MCP problems', () => {
  it('a skill unlocking a tool the server does not offer names the SKILL.md and its line', async () => {
    const { folder } = ordersFolder({
      'skills/order-change/SKILL.md':
        '---\nname: order-change\ndescription: d\ntools:\n  - refund_order\n---\n',
    });
    const error = await resolveAgent(await loadAgent(folder), { model: new ScriptedChatModel([]) }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(AgentDefinitionError);
    expect(error).toMatchObject({ file: join(folder, 'skills', 'order-change', 'SKILL.md'), line: 4 });
    expect((error as AgentDefinitionError).reason).toMatch(
      /^skill order-change unlocks refund_order, a tool that does not exist/,
    );
  });

  it('settings for a tool no server offers name agent.json and the line', async () => {
    const { folder } = ordersFolder({
      'agent.json':
        '{\n  "id": "orders",\n  "name": "Orders",\n  "tools": {\n    "refund": { "title": "退款" }\n  }\n}\n',
    });
    const error = await resolveAgent(await loadAgent(folder), { model: new ScriptedChatModel([]) }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({ file: join(folder, 'agent.json'), line: 5 });
  });

  it('an unreachable server fails with mcp.json and the server’s line', async () => {
    const folder = agentFolder({
      'agent.json': '{"id": "broken", "name": "Broken"}',
      'instructions.md': 'x',
      'mcp.json': '{\n  "mcpServers": {\n    "gone": { "command": "./no-such-server" }\n  }\n}\n',
    });
    const error = await resolveAgent(await loadAgent(folder), { model: new ScriptedChatModel([]) }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(AgentDefinitionError);
    expect(error).toMatchObject({ file: join(folder, 'mcp.json'), line: 3 });
    expect((error as Error).message).toContain(`gone: spawn ${join(folder, 'no-such-server')} ENOENT`);
  });
});
