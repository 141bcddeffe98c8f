#!/usr/bin/env node
/**
 * 家修帮's repair-order service: a small MCP server over stdio, in plain JavaScript, that the homefix
 * example agent starts from its mcp.json. It stands in for a real business system: the agent knows
 * nothing about it but what `tools/list` says.
 *
 * - `query_repair` (`readOnlyHint: true`): the caller's repair orders, or one of them.
 * - `cancel_repair` (a write, so runstream asks the customer to confirm first): cancels an order that
 *   is 待派单 or 待上门; orders that are 维修中, 已完成 or 已取消 are refused with an `isError` result.
 *
 * Each customer has their own orders, keyed by the `_meta["runstream/userId"]` runstream sends with
 * every call; a call without it (another MCP client) acts for one shared customer. New customers get
 * the same four seeded orders, dated from their first call.
 *
 * State lives in `$HOMEFIX_DATA_DIR` (default `<os tmpdir>/homefix`), so it survives restarts:
 * - `orders.json`: `{ "users": [{ "userId", "orders": [...] }] }`;
 * - `calls.json`: the service's own record, an array of `{ tool, orderId, userId, at }`, one entry for
 *   each `cancel_repair` call that actually cancelled an order (refused calls change nothing and are
 *   not recorded). Tests compare it with what the customer approved.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

/** The `_meta` key runstream puts the run owner's id under (`MCP_META_USER_ID` in src/mcp/mcp-tool.ts). */
const USER_ID_META = 'runstream/userId';
/** Whose orders a call without a user id reads and changes. */
const SHARED_USER_ID = 'shared';

const ORDER_ID_PATTERN = /^R-\d{4}$/;
/** HF-APT-001: cancelling a 待上门 order less than 2 hours before its slot costs a 30 元 no-show fee. */
const FREE_CANCELLATION_MS = 2 * 60 * 60 * 1000;
const LATE_CANCELLATION_FEE_YUAN = 30;
const DAY_MS = 24 * 60 * 60 * 1000;
/** China Standard Time has no daylight saving: seeded dates do not depend on the server's time zone. */
const CST_OFFSET_MS = 8 * 60 * 60 * 1000;

const dataDir = process.env.HOMEFIX_DATA_DIR || join(tmpdir(), 'homefix');
const ordersFile = join(dataDir, 'orders.json');
const recordFile = join(dataDir, 'calls.json');

/** The date `days` from `now` in China, `YYYY-MM-DD`. */
function chinaDate(now, days) {
  return new Date(now.getTime() + CST_OFFSET_MS + days * DAY_MS).toISOString().slice(0, 10);
}

/** An appointment slot on a date: what people read, and its start as an instant. */
function slot(date, start, end) {
  return { appointment: `${date} ${start}–${end}`, appointmentStart: `${date}T${start}:00+08:00` };
}

/** A new customer's orders: one in each state a customer asks about, relative to their first call. */
function seedOrders(now) {
  const home = '上海市徐汇区漕溪北路 88 弄 6 号 1203 室';
  return [
    {
      orderId: 'R-1001',
      appliance: '洗衣机',
      product: '小天鹅 TG100V 滚筒洗衣机',
      issue: '脱水时报 E3 故障码，衣服甩不干',
      status: '待上门',
      ...slot(chinaDate(now, 1), '09:00', '12:00'),
      zone: '一区',
      address: home,
      technician: '王建国师傅',
      createdAt: chinaDate(now, 0),
    },
    {
      orderId: 'R-1002',
      appliance: '空调',
      product: '格力 云佳 KFR-35GW 挂机',
      issue: '制冷效果差，出风不凉',
      status: '维修中',
      ...slot(chinaDate(now, 0), '13:00', '17:00'),
      zone: '一区',
      address: home,
      technician: '李志强师傅',
      createdAt: chinaDate(now, -2),
      progress: '师傅已上门检测，初步判断缺氟，正在检漏',
    },
    {
      orderId: 'R-1003',
      appliance: '冰箱',
      product: '海尔 BCD-470 十字对开门冰箱',
      issue: '冷藏室不制冷',
      status: '已完成',
      ...slot(chinaDate(now, -10), '09:00', '12:00'),
      zone: '一区',
      address: home,
      technician: '张伟师傅',
      createdAt: chinaDate(now, -11),
      completedAt: chinaDate(now, -10),
      charges: { laborYuan: 100, partsYuan: 85, totalYuan: 185, parts: ['冰箱温控器（原厂）'] },
      warrantyUntil: chinaDate(now, 80),
    },
    {
      orderId: 'R-1004',
      appliance: '热水器',
      product: 'A.O.史密斯 JSQ31 燃气热水器',
      issue: '打开热水龙头后不点火',
      status: '待派单',
      ...slot(chinaDate(now, 2), '18:00', '21:00'),
      zone: '二区',
      address: '上海市松江区人民北路 215 弄 3 号 502 室',
      technician: null,
      createdAt: chinaDate(now, 0),
    },
  ];
}

function readJson(file, fallback) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    if (error.code === 'ENOENT') return fallback;
    throw error;
  }
}

/** Write-then-rename: a crash mid-write leaves the previous file, never half of one. */
function writeJson(file, value) {
  mkdirSync(dataDir, { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(value, null, 2)}\n`);
  renameSync(temporary, file);
}

/**
 * The caller's orders, seeded on their first call. Every call reads the file anew and the handlers
 * are synchronous from read to write, so calls never interleave and a restart loses nothing.
 */
function openAccount(userId, now) {
  const state = readJson(ordersFile, { users: [] });
  // A list, not an object keyed by user id: an id such as "__proto__" stays plain data.
  let account = state.users.find((user) => user.userId === userId);
  if (account === undefined) {
    account = { userId, orders: seedOrders(now) };
    state.users.push(account);
    writeJson(ordersFile, state);
  }
  return { account, save: () => writeJson(ordersFile, state) };
}

function userIdOf(extra) {
  const userId = extra._meta?.[USER_ID_META];
  return typeof userId === 'string' && userId !== '' ? userId : SHARED_USER_ID;
}

function answer(text, structuredContent) {
  return { content: [{ type: 'text', text }], structuredContent };
}

function refusal(text) {
  return { isError: true, content: [{ type: 'text', text }] };
}

function notFound(orderId, account) {
  const known = account.orders.map((order) => order.orderId).join('、');
  return refusal(`没有找到维修单 ${orderId}。您名下的维修单有：${known}。`);
}

/** What cancelling an order costs now (HF-APT-001 §二). */
function cancellationFee(order, now) {
  if (order.status !== '待上门') return 0;
  const start = Date.parse(order.appointmentStart);
  return now.getTime() > start - FREE_CANCELLATION_MS ? LATE_CANCELLATION_FEE_YUAN : 0;
}

const orderIdSchema = z.string().regex(ORDER_ID_PATTERN);

function createHomefixServer() {
  const server = new McpServer({ name: 'homefix', version: '1.0.0' });

  server.registerTool(
    'query_repair',
    {
      title: '查询维修单',
      description:
        '查询客户本人的家电维修单：不带参数返回全部维修单，带 orderId 返回那一张。结果包括家电、故障、状态（待派单、待上门、维修中、已完成、已取消）、预约时段（appointmentStart 为开始时间）、师傅和费用。',
      inputSchema: {
        orderId: orderIdSchema
          .meta({
            title: '维修单号',
            description: '维修单号，格式 R-0000，例如 R-1001；不填则查询全部维修单',
          })
          .optional(),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args, extra) => {
      const { account } = openAccount(userIdOf(extra), new Date());
      if (args.orderId === undefined) {
        const orders = account.orders;
        return answer(JSON.stringify({ orders }, null, 2), { orders });
      }
      const order = account.orders.find((candidate) => candidate.orderId === args.orderId);
      if (order === undefined) return notFound(args.orderId, account);
      return answer(JSON.stringify({ order }, null, 2), { order });
    },
  );

  server.registerTool(
    'cancel_repair',
    {
      title: '取消维修单',
      description:
        '取消客户本人的一张维修单。只有待派单、待上门的维修单可以取消；待上门的维修单在预约时段开始前不足 2 小时取消，收取空跑费 30 元。维修中、已完成、已取消的维修单会被拒绝。',
      inputSchema: {
        orderId: orderIdSchema.meta({ title: '维修单号', description: '要取消的维修单号，例如 R-1001' }),
        reason: z
          .string()
          .min(1)
          .max(200)
          .meta({ title: '取消原因', description: '客户说明的取消原因，例如“已自行修好”' })
          .optional(),
      },
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    async (args, extra) => {
      const userId = userIdOf(extra);
      const now = new Date();
      const { account, save } = openAccount(userId, now);
      const order = account.orders.find((candidate) => candidate.orderId === args.orderId);
      if (order === undefined) return notFound(args.orderId, account);
      switch (order.status) {
        case '维修中':
          return refusal(
            `维修单 ${order.orderId}（${order.appliance}）正在维修中，不能在线取消：师傅已开始检测或维修。如需中止，请与现场师傅当面确认，将收取上门检测费和已更换配件的费用。`,
          );
        case '已完成':
          return refusal(
            `维修单 ${order.orderId}（${order.appliance}）已完成，不能取消。对维修结果有异议的，可在保修期内申请免费返修。`,
          );
        case '已取消':
          return refusal(`维修单 ${order.orderId}（${order.appliance}）已经取消，无需重复取消。`);
      }
      const fee = cancellationFee(order, now);
      order.status = '已取消';
      order.cancelledAt = now.toISOString();
      if (args.reason !== undefined) order.cancelReason = args.reason;
      order.cancellationFeeYuan = fee;
      save();
      const record = readJson(recordFile, []);
      record.push({ tool: 'cancel_repair', orderId: order.orderId, userId, at: now.toISOString() });
      writeJson(recordFile, record);
      const cost = fee === 0 ? '本次取消免费。' : `距预约时段开始不足 2 小时，收取空跑费 ${fee} 元。`;
      return answer(`维修单 ${order.orderId}（${order.appliance}）已取消。${cost}`, {
        order,
        cancellationFeeYuan: fee,
      });
    },
  );

  return server;
}

await createHomefixServer().connect(new StdioServerTransport());
