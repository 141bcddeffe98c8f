import { type AgentTool, tool } from 'runstream';
import { z } from 'zod';
import {
  ORDER_STATUSES,
  type Order,
  type OrderRepository,
  orderNotFound,
} from '../orders/order-repository.ts';

export const QueryOrderArgsSchema = z.object({
  orderId: z
    .string()
    .trim()
    .min(1)
    .max(32)
    .optional()
    .describe('订单号，例如 88235；不填则按下单时间倒序列出最近的订单'),
  limit: z.number().int().min(1).max(20).optional().describe('最多返回几笔订单，1 到 20，默认 10'),
  status: z.enum(ORDER_STATUSES).optional().describe('只看这个状态的订单'),
});
export type QueryOrderArgs = z.infer<typeof QueryOrderArgsSchema>;

export interface QueryOrderResult {
  /** Newest first; one order when `orderId` was given. */
  orders: Order[];
}

export const QUERY_ORDER_DEFAULT_LIMIT = 10;

/** `query_order`: the shopper's own orders with items, amounts (strings) and status in Chinese. */
export function createQueryOrderTool(orders: OrderRepository): AgentTool<QueryOrderArgs, QueryOrderResult> {
  return tool({
    name: 'query_order',
    title: '订单查询',
    description:
      '查询当前买家自己的订单：给订单号查这一笔，不给则按下单时间倒序列出最近的订单（默认 10 笔，可按状态筛选）。' +
      '返回每笔订单的商品、金额（字符串，单位元）、状态（待付款、已支付待发货、已发货、已签收、已完成、已取消）、物流和退款信息。',
    inputSchema: QueryOrderArgsSchema,
    readOnly: true,
    timeoutMs: 10_000,
    async execute(args, context) {
      context.signal.throwIfAborted();
      if (args.orderId !== undefined) {
        const order = await orders.getOrder(context.userId, args.orderId);
        if (order === undefined) throw orderNotFound(args.orderId);
        return { orders: [order] };
      }
      const list = await orders.listOrders(context.userId, {
        limit: args.limit ?? QUERY_ORDER_DEFAULT_LIMIT,
        ...(args.status === undefined ? {} : { status: args.status }),
      });
      return { orders: list };
    },
  });
}
