import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const SERVER = fileURLToPath(new URL('./homefix-server.mjs', import.meta.url));
const USER_ID_META = 'runstream/userId';

interface RepairOrder {
  orderId: string;
  appliance: string;
  status: string;
  appointmentStart: string;
  cancelReason?: string;
  cancellationFeeYuan?: number;
}

let dataDir: string;
const clients: Client[] = [];

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'homefix-test-'));
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  rmSync(dataDir, { recursive: true, force: true });
});

/** The real server as runstream starts it: a child process over stdio, data in the test's folder. */
async function connect(): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SERVER],
    env: { PATH: process.env.PATH ?? '', HOMEFIX_DATA_DIR: dataDir },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'homefix-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

async function call(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  userId?: string,
): Promise<CallToolResult> {
  return (await client.callTool({
    name,
    arguments: args,
    ...(userId === undefined ? {} : { _meta: { [USER_ID_META]: userId } }),
  })) as CallToolResult;
}

function textOf(result: CallToolResult): string {
  return result.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
}

function ordersOf(result: CallToolResult): RepairOrder[] {
  expect(result.isError).not.toBe(true);
  return (result.structuredContent as { orders: RepairOrder[] }).orders;
}

function orderOf(result: CallToolResult): RepairOrder {
  expect(result.isError).not.toBe(true);
  return (result.structuredContent as { order: RepairOrder }).order;
}

function record(): unknown {
  return JSON.parse(readFileSync(join(dataDir, 'calls.json'), 'utf8'));
}

describe('homefix MCP server', () => {
  it('lists a read-only query tool and a write cancel tool whose arguments carry Chinese titles', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['cancel_repair', 'query_repair']);

    const query = tools.find((tool) => tool.name === 'query_repair');
    expect(query?.title).toBe('查询维修单');
    expect(query?.annotations?.readOnlyHint).toBe(true);
    expect(query?.inputSchema.required ?? []).toEqual([]);
    expect(query?.inputSchema.properties?.orderId).toMatchObject({
      type: 'string',
      pattern: '^R-\\d{4}$',
      title: '维修单号',
    });

    const cancel = tools.find((tool) => tool.name === 'cancel_repair');
    expect(cancel?.title).toBe('取消维修单');
    expect(cancel?.annotations?.readOnlyHint).toBe(false);
    expect(cancel?.inputSchema.required).toEqual(['orderId']);
    expect(cancel?.inputSchema.properties?.orderId).toMatchObject({
      type: 'string',
      pattern: '^R-\\d{4}$',
      title: '维修单号',
    });
    expect(cancel?.inputSchema.properties?.reason).toMatchObject({ type: 'string', title: '取消原因' });
  });

  it('answers the seeded orders, one by number, and refuses an unknown number', async () => {
    const client = await connect();
    const orders = ordersOf(await call(client, 'query_repair', {}, 'user-a'));
    expect(orders.map((order) => [order.orderId, order.appliance, order.status])).toEqual([
      ['R-1001', '洗衣机', '待上门'],
      ['R-1002', '空调', '维修中'],
      ['R-1003', '冰箱', '已完成'],
      ['R-1004', '热水器', '待派单'],
    ]);
    // The 待上门 slot lies ahead, far enough that cancelling it now is free.
    const r1001 = orders[0];
    expect(Date.parse(r1001?.appointmentStart ?? '')).toBeGreaterThan(Date.now() + 2 * 60 * 60 * 1000);

    const one = await call(client, 'query_repair', { orderId: 'R-1001' }, 'user-a');
    expect(orderOf(one)).toMatchObject({ orderId: 'R-1001', appliance: '洗衣机', status: '待上门' });
    expect(JSON.parse(textOf(one))).toMatchObject({ order: { orderId: 'R-1001' } });

    const unknown = await call(client, 'query_repair', { orderId: 'R-9999' }, 'user-a');
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toContain('没有找到维修单 R-9999');
  });

  it('cancels for the user in _meta only, refuses orders that are 维修中 or 已完成, and records the one call', async () => {
    const client = await connect();
    const cancelled = await call(
      client,
      'cancel_repair',
      { orderId: 'R-1001', reason: '已自行修好' },
      'user-a',
    );
    expect(cancelled.isError).not.toBe(true);
    expect(textOf(cancelled)).toBe('维修单 R-1001（洗衣机）已取消。本次取消免费。');
    expect(orderOf(cancelled)).toMatchObject({
      orderId: 'R-1001',
      status: '已取消',
      cancelReason: '已自行修好',
      cancellationFeeYuan: 0,
    });

    const repairing = await call(client, 'cancel_repair', { orderId: 'R-1002' }, 'user-a');
    expect(repairing.isError).toBe(true);
    expect(textOf(repairing)).toContain('正在维修中，不能在线取消');
    const done = await call(client, 'cancel_repair', { orderId: 'R-1003' }, 'user-a');
    expect(done.isError).toBe(true);
    expect(textOf(done)).toContain('已完成，不能取消');
    const again = await call(client, 'cancel_repair', { orderId: 'R-1001' }, 'user-a');
    expect(again.isError).toBe(true);
    expect(textOf(again)).toContain('已经取消');

    // Another customer's R-1001 is their own, untouched.
    const other = orderOf(await call(client, 'query_repair', { orderId: 'R-1001' }, 'user-b'));
    expect(other.status).toBe('待上门');
    expect(orderOf(await call(client, 'query_repair', { orderId: 'R-1002' }, 'user-a')).status).toBe(
      '维修中',
    );

    expect(record()).toEqual([
      { tool: 'cancel_repair', orderId: 'R-1001', userId: 'user-a', at: expect.any(String) },
    ]);
    const [entry] = record() as { at: string }[];
    expect(Math.abs(Date.parse(entry?.at ?? '') - Date.now())).toBeLessThan(60_000);
  });

  it('keeps orders and the record across a restart, and acts for one shared user without a user id', async () => {
    const first = await connect();
    await call(first, 'cancel_repair', { orderId: 'R-1004' }, 'user-a');
    await first.close();

    const second = await connect();
    expect(orderOf(await call(second, 'query_repair', { orderId: 'R-1004' }, 'user-a')).status).toBe(
      '已取消',
    );

    expect(orderOf(await call(second, 'cancel_repair', { orderId: 'R-1001' })).status).toBe('已取消');
    expect(orderOf(await call(second, 'query_repair', { orderId: 'R-1001' })).status).toBe('已取消');
    expect(orderOf(await call(second, 'query_repair', { orderId: 'R-1001' }, 'user-a')).status).toBe(
      '待上门',
    );
    expect(record()).toEqual([
      { tool: 'cancel_repair', orderId: 'R-1004', userId: 'user-a', at: expect.any(String) },
      { tool: 'cancel_repair', orderId: 'R-1001', userId: 'shared', at: expect.any(String) },
    ]);
  });

  it('charges the 30 元 no-show fee for a 待上门 order cancelled less than 2 hours before its slot', async () => {
    const client = await connect();
    ordersOf(await call(client, 'query_repair', {}, 'user-late'));
    // Move user-late's R-1001 to a slot that starts in an hour, in the file the server reads each call.
    const file = join(dataDir, 'orders.json');
    const state = JSON.parse(readFileSync(file, 'utf8')) as {
      users: { userId: string; orders: RepairOrder[] }[];
    };
    const order = state.users.find((user) => user.userId === 'user-late')?.orders[0];
    if (order === undefined) throw new Error('user-late has no seeded R-1001');
    order.appointmentStart = new Date(Date.now() + 60 * 60 * 1000).toISOString();
    writeFileSync(file, JSON.stringify(state));

    const cancelled = await call(client, 'cancel_repair', { orderId: 'R-1001' }, 'user-late');
    expect(textOf(cancelled)).toBe(
      '维修单 R-1001（洗衣机）已取消。距预约时段开始不足 2 小时，收取空跑费 30 元。',
    );
    expect(orderOf(cancelled)).toMatchObject({ status: '已取消', cancellationFeeYuan: 30 });
    // A 待派单 order is free to cancel whenever.
    expect(orderOf(await call(client, 'cancel_repair', { orderId: 'R-1004' }, 'user-late'))).toMatchObject({
      status: '已取消',
      cancellationFeeYuan: 0,
    });
  });

  it('rejects an order number that does not match R-0000 before doing anything', async () => {
    const client = await connect();
    const result = await call(client, 'cancel_repair', { orderId: '1001' }, 'user-a');
    expect(result.isError).toBe(true);
    expect(ordersOf(await call(client, 'query_repair', {}, 'user-a')).map((order) => order.status)).toEqual([
      '待上门',
      '维修中',
      '已完成',
      '待派单',
    ]);
    expect(() => record()).toThrow(/ENOENT/);
  });
});
