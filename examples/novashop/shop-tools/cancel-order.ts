import { type AgentTool, type ConfirmationCard, ToolError, tool } from 'runstream';
import { z } from 'zod';
import {
  cancellationRefusal,
  describeItems,
  type Order,
  type OrderRepository,
  orderNotFound,
  type Refund,
} from '../orders/order-repository.ts';

export const CancelOrderArgsSchema = z.object({
  orderId: z.string().trim().min(1).max(32).describe('要取消的订单号，例如 88235'),
  language: z
    .enum(['zh-CN', 'en'])
    .optional()
    .describe('确认卡的语言：买家用英文提问时传 en，否则不传（默认简体中文）'),
});
export type CancelOrderArgs = z.infer<typeof CancelOrderArgsSchema>;

export interface CancelOrderResult {
  orderId: string;
  status: '已取消';
  /** The items in one line, e.g. Apple Watch Series 12（深空灰色、42毫米、铝金属、GPS）· 回环式运动表带. */
  items: string;
  paidAmount: string;
  cancelledAt: string | null;
  /** Started for a paid order; null for one never paid. */
  refund: Refund | null;
  /** True when the order was cancelled before this call: nothing changed, no second refund. */
  alreadyCancelled: boolean;
  /** The outcome in a sentence. */
  message: string;
}

/**
 * `cancel_order`: a write tool, so the runtime shows the card `confirmation` builds and runs
 * `execute` only after the shopper approves. Hidden until the `order-change` skill is loaded.
 */
export function createCancelOrderTool(
  orders: OrderRepository,
): AgentTool<CancelOrderArgs, CancelOrderResult> {
  return tool({
    name: 'cancel_order',
    title: '取消订单',
    description:
      '取消买家的一笔订单。只有待付款和已支付待发货的订单可以取消；已发货、已签收、已完成的订单会被拒绝（请改为引导物流拦截或退货）。' +
      '调用后会先请买家在确认卡上确认，确认后才执行；取消后不能撤回，已支付的款项原路退回。',
    inputSchema: CancelOrderArgsSchema,
    requiresSkill: 'order-change',
    timeoutMs: 10_000,
    async confirmation(args, context): Promise<ConfirmationCard> {
      context.signal.throwIfAborted();
      const order = await orders.getOrder(context.userId, args.orderId);
      if (order === undefined) throw orderNotFound(args.orderId);
      if (order.status === '已取消') {
        throw new ToolError(
          'order_already_cancelled',
          `订单 ${order.orderId} 已经是已取消状态，无需再次取消。`,
        );
      }
      const refusal = cancellationRefusal(order);
      if (refusal) throw refusal;
      return confirmationFor(order, args.language);
    },
    async execute(args, context) {
      context.signal.throwIfAborted();
      const before = await orders.getOrder(context.userId, args.orderId);
      if (before === undefined) throw orderNotFound(args.orderId);
      const order = await orders.cancelOrder(context.userId, args.orderId);
      return {
        orderId: order.orderId,
        status: '已取消',
        items: describeItems(order.items),
        paidAmount: order.paidAmount,
        cancelledAt: order.cancelledAt,
        refund: order.refund,
        alreadyCancelled: before.status === '已取消',
        message: outcome(order, before.status === '已取消'),
      };
    },
  });
}

/**
 * The card: 取消订单 · 订单 88235 · Apple Watch Series 12, with number, items, amount and status.
 * In English when the model asks for it (the shopper wrote in English): the labels and the status
 * are translated, the items are quoted as the order has them.
 */
export function confirmationFor(order: Order, language: 'zh-CN' | 'en' = 'zh-CN'): ConfirmationCard {
  const [first] = order.items;
  const unpaid = order.status === '待付款';
  if (language === 'en') {
    const more = order.items.length > 1 ? ` and ${order.items.length - 1} more` : '';
    const status = STATUS_IN_ENGLISH[order.status];
    return {
      title: 'Cancel order',
      description: `Order ${order.orderId}${first ? ` · ${first.name}${more}` : ''}`,
      fields: [
        { label: 'Order number', value: order.orderId },
        { label: 'Items', value: describeItems(order.items) },
        { label: unpaid ? 'Amount due' : 'Amount paid', value: `¥${order.paidAmount}` },
        { label: 'Status', value: status ? `${status} (${order.status})` : order.status },
      ],
    };
  }
  const more = order.items.length > 1 ? ` 等 ${order.items.length} 件商品` : '';
  return {
    title: '取消订单',
    description: `订单 ${order.orderId}${first ? ` · ${first.name}${more}` : ''}`,
    fields: [
      { label: '订单号', value: order.orderId },
      { label: '商品', value: describeItems(order.items) },
      { label: unpaid ? '应付金额' : '实付金额', value: `¥${order.paidAmount}` },
      { label: '订单状态', value: order.status },
    ],
  };
}

/** Only the statuses a cancellable order can have reach a card. */
const STATUS_IN_ENGLISH: Record<string, string> = {
  待付款: 'Awaiting payment',
  已支付待发货: 'Paid, not shipped yet',
};

function outcome(order: Order, alreadyCancelled: boolean): string {
  const head = alreadyCancelled
    ? `订单 ${order.orderId} 此前已经取消，本次没有再做改动`
    : `订单 ${order.orderId} 已取消`;
  if (order.refund === null) return `${head}，该订单未付款，无需退款。`;
  return `${head}，${order.refund.amount} 元的退款${order.refund.status}，${order.refund.to}。`;
}
