// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${NAME} references are what the MCP configuration expands.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunstreamClient } from '../client/index.ts';
import {
  type HttpOrderServiceHarness,
  httpOrderService,
  type OrderServiceHarness,
  stdioOrderService,
} from '../mcp/test-support/order-service-harness.ts';
import { ScriptedChatModel, textTurn, toolCallTurn } from '../models/index.ts';
import { StartupError } from './startup-error.ts';
import { startTestServer, TEST_TOKEN, type TestServer } from './test-support/start-test-server.ts';

/**
 * `startServer` with `RUNSTREAM_MCP_CONFIG`: the configured MCP servers' tools reach the model next
 * to the agent's own, run through the HTTP API (a read, a confirmed write), and close with the
 * server. Two servers offer the same tools here, so every one of them is prefixed with its server.
 */
describe('startServer with RUNSTREAM_MCP_CONFIG', () => {
  let directory: string;
  let stdio: OrderServiceHarness;
  let http: HttpOrderServiceHarness;
  let test: TestServer;
  const model = new ScriptedChatModel([
    toolCallTurn([{ id: 'call_e2e_list', name: 'orders__list_orders', arguments: { status: 'paid' } }]),
    textTurn('你有两个待发货订单。'),
    toolCallTurn([{ id: 'call_e2e_cancel', name: 'remote__cancel_order', arguments: { orderId: '1002' } }]),
    textTurn('已取消订单 1002。'),
  ]);

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'runstream-mcp-e2e-'));
    stdio = stdioOrderService();
    http = await httpOrderService({ headers: { authorization: 'Bearer ${ORDERS_TOKEN}' } });
    const configPath = join(directory, 'mcp.json');
    writeFileSync(configPath, JSON.stringify({ mcpServers: { orders: stdio.config, remote: http.config } }));
    test = await startTestServer({
      model,
      env: { RUNSTREAM_MCP_CONFIG: configPath, ORDERS_TOKEN: 'orders-secret' },
    });
  });

  afterAll(async () => {
    await test?.close();
    await stdio?.close();
    await http?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('offers the MCP tools next to the server’s, runs a read, and a write once approved, over HTTP', async () => {
    const client = createRunstreamClient({ baseUrl: test.server.url, token: TEST_TOKEN });
    const { id: conversationId } = await client.createConversation();
    const read = await client.sendMessage(conversationId, { text: '我有哪些待发货订单？' }).result();
    const offered = model.requests[0]?.tools?.map((tool) => tool.name) ?? [];
    expect(offered).toEqual(
      expect.arrayContaining([
        'query_order',
        'search_knowledge',
        'orders__list_orders',
        'remote__cancel_order',
      ]),
    );
    expect(read.blocks.find((block) => block.kind === 'tool')).toMatchObject({
      name: 'orders__list_orders',
      title: 'List orders',
      status: 'done',
      result: { structuredContent: { orders: [{ orderId: '1001' }, { orderId: '1002' }] } },
    });

    const paused = await client.sendMessage(conversationId, { text: '取消 1002' }).result();
    expect(paused.blocks.find((block) => block.kind === 'confirm')).toMatchObject({
      title: 'Cancel an order',
      // Labelled by the argument's schema title; no transport words, no raw argument name.
      details: [{ label: '订单号', value: '1002' }],
    });
    expect(http.journal().filter((entry) => entry.event === 'cancelled')).toEqual([]);
    const done = await client
      .decide(paused.runId ?? '', 'call_e2e_cancel', 'approve', { state: paused })
      .result();
    expect(done.blocks.find((block) => block.kind === 'tool')).toMatchObject({
      name: 'remote__cancel_order',
      status: 'done',
    });
    expect(http.journal().filter((entry) => entry.event === 'cancelled')).toEqual([
      { event: 'cancelled', orderId: '1002', userId: 'usr_demo' },
    ]);
    // The header's ${ORDERS_TOKEN} was expanded from the environment.
    expect(new Set(http.authorizations())).toEqual(new Set(['Bearer orders-secret']));
  });

  it('closes the MCP clients with the server: the stdio process exits', async () => {
    const started = stdio.journal().filter((entry) => entry.event === 'started');
    const pid = started.at(-1)?.event === 'started' ? (started.at(-1) as { pid: number }).pid : 0;
    expect(pid).toBeGreaterThan(0);
    expect(() => process.kill(pid, 0)).not.toThrow();
    await test.server.close();
    expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
  });
});

describe('the offline demo model with an MCP server (docs/integrations.md, no key)', () => {
  let stdio: OrderServiceHarness;
  let test: TestServer;

  beforeAll(async () => {
    stdio = stdioOrderService();
    test = await startTestServer({
      env: { RUNSTREAM_MCP_SERVERS: JSON.stringify({ mcpServers: { orders: stdio.config } }) },
    });
  });

  afterAll(async () => {
    await test?.close();
    await stdio?.close();
  });

  it('calls the MCP tool the message names, with the order number fitted, and writes once approved', async () => {
    const client = createRunstreamClient({ baseUrl: test.server.url, token: TEST_TOKEN });
    const { id: conversationId } = await client.createConversation();
    // `list_orders` keeps its own name; `cancel_order` meets the agent's own tool of that name, so
    // it is offered as `orders__cancel_order`.
    const listed = await client.sendMessage(conversationId, { text: '用 list_orders 列出我的订单' }).result();
    expect(listed.blocks.find((block) => block.kind === 'tool')).toMatchObject({
      name: 'list_orders',
      status: 'done',
    });
    const paused = await client
      .sendMessage(conversationId, { text: '用 orders__cancel_order 取消订单 1002' })
      .result();
    const call = paused.blocks.find((block) => block.kind === 'tool');
    expect(call).toMatchObject({ name: 'orders__cancel_order', args: { orderId: '1002' } });
    expect(paused.status).toBe('paused');
    const done = await client
      .decide(paused.runId ?? '', call?.kind === 'tool' ? call.toolCallId : '', 'approve', { state: paused })
      .result();
    expect(done.status).toBe('completed');
    expect(stdio.journal().filter((entry) => entry.event === 'cancelled')).toEqual([
      { event: 'cancelled', orderId: '1002', userId: 'usr_demo' },
    ]);
  });
});

describe('RUNSTREAM_DENY_TOOLS with an MCP tool’s name', () => {
  it('never offers the MCP tool, and refuses a call to it anyway before the service sees it', async () => {
    const stdio = stdioOrderService();
    const model = new ScriptedChatModel([
      toolCallTurn([{ id: 'call_denied', name: 'list_orders', arguments: {} }]),
      textTurn('这个工具在本服务上不可用。'),
    ]);
    const test = await startTestServer({
      model,
      env: {
        RUNSTREAM_MCP_SERVERS: JSON.stringify({ mcpServers: { orders: stdio.config } }),
        RUNSTREAM_DENY_TOOLS: 'list_orders',
      },
    });
    try {
      const client = createRunstreamClient({ baseUrl: test.server.url, token: TEST_TOKEN });
      const { id: conversationId } = await client.createConversation();
      const state = await client.sendMessage(conversationId, { text: '列出我的订单' }).result();
      const offered = model.requests[0]?.tools?.map((tool) => tool.name) ?? [];
      expect(offered).toContain('get_order');
      expect(offered).not.toContain('list_orders');
      expect(state.blocks.find((block) => block.kind === 'tool')).toMatchObject({
        name: 'list_orders',
        status: 'failed',
        error: { code: 'tool_denied' },
      });
      expect(stdio.journal().filter((entry) => entry.event === 'called')).toEqual([]);
      const audit = (await (
        await fetch(`${test.server.url}/v1/tool-audit`, {
          headers: { authorization: `Bearer ${TEST_TOKEN}` },
        })
      ).json()) as { data: { toolName?: string; name?: string; decision: string }[] };
      expect(audit.data).toEqual([expect.objectContaining({ decision: 'deny' })]);
    } finally {
      await test.close();
      await stdio.close();
    }
  });
});

describe('startServer with a bad MCP configuration', () => {
  it('refuses to start on malformed configuration, naming the setting and the server', async () => {
    const start = startTestServer({
      env: {
        RUNSTREAM_MCP_SERVERS: JSON.stringify({
          mcpServers: { orders: { command: 'node', url: 'http://h' } },
        }),
      },
    });
    await expect(start).rejects.toBeInstanceOf(StartupError);
    await expect(start).rejects.toThrow(
      /^RUNSTREAM_MCP_SERVERS is not a valid MCP configuration .*mcpServers\.orders/,
    );
  });

  it('refuses to start when a server cannot be reached, without showing its headers', async () => {
    const start = startTestServer({
      env: {
        RUNSTREAM_MCP_SERVERS: JSON.stringify({
          mcpServers: {
            remote: { url: 'http://127.0.0.1:9/mcp', headers: { authorization: 'Bearer sk-hidden' } },
            local: { command: '/nonexistent/mcp-server', env: { API_KEY: 'sk-hidden' } },
          },
        }),
      },
    });
    await expect(start).rejects.toBeInstanceOf(StartupError);
    await expect(start).rejects.toThrow(
      /^MCP server\(s\) could not be reached at start: remote: .+; local: spawn \/nonexistent\/mcp-server ENOENT$/,
    );
    await expect(start).rejects.not.toThrow(/sk-hidden/);
  });
});

describe('a server-wide MCP tool whose name an agent’s own MCP server offers too', () => {
  it('offers both: the agent’s own under its name, the server-wide one prefixed with its server', async () => {
    const own = stdioOrderService();
    const shared = stdioOrderService();
    const folder = mkdtempSync(join(tmpdir(), 'runstream-own-mcp-'));
    writeFileSync(join(folder, 'agent.json'), JSON.stringify({ id: 'desk', name: 'Desk' }));
    writeFileSync(join(folder, 'instructions.md'), '你是客服。\n');
    writeFileSync(join(folder, 'mcp.json'), JSON.stringify({ mcpServers: { shop: own.config } }));
    const model = new ScriptedChatModel([textTurn('好的。')]);
    const test = await startTestServer({
      model,
      agentDirectories: [folder],
      env: { RUNSTREAM_MCP_SERVERS: JSON.stringify({ mcpServers: { central: shared.config } }) },
    });
    try {
      const client = createRunstreamClient({ baseUrl: test.server.url, token: TEST_TOKEN });
      const { id } = await client.createConversation();
      await client.sendMessage(id, { text: '你好' }).result();
      const offered = model.requests[0]?.tools?.map((tool) => tool.name) ?? [];
      expect(offered).toEqual(
        expect.arrayContaining(['list_orders', 'central__list_orders', 'cancel_order']),
      );
      expect(offered).toContain('central__cancel_order');
    } finally {
      await test.close();
      await own.close();
      await shared.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
