import { ToolError } from 'runstream';

/**
 * NovaShop orders as the agent sees them: statuses in Chinese as the shopper reads them in 「我的订单」
 * (knowledge/policies/order-changes.md §一), amounts as decimal strings (never floats), times as
 * ISO 8601. Every read and write is scoped to one user: another user's order does not exist.
 */

export const ORDER_STATUSES = ['待付款', '已支付待发货', '已发货', '已签收', '已完成', '已取消'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export interface OrderItem {
  sku: string;
  /** The product, e.g. Apple Watch Series 12. */
  name: string;
  /** The variant, e.g. 深空灰色、42毫米、铝金属、GPS. */
  spec: string;
  /** What comes with it, e.g. 回环式运动表带. */
  includes: string[];
  quantity: number;
  unitPrice: string;
  subtotal: string;
}

export interface Shipment {
  carrier: string;
  trackingNumber: string;
  shippedAt: string;
}

export interface Refund {
  amount: string;
  /** Where the money goes: always the original payment method (refunds.md §一). */
  to: string;
  /** 已发起: started (a paid order cancelled before shipping is refunded at once, refunds.md §二). */
  status: '已发起' | '已到账';
  createdAt: string;
}

export interface Order {
  orderId: string;
  status: OrderStatus;
  createdAt: string;
  items: OrderItem[];
  goodsAmount: string;
  shippingFee: string;
  discount: string;
  /** 实付: what the shopper paid (or, before payment, will pay). */
  paidAmount: string;
  paymentMethod: string | null;
  paidAt: string | null;
  shipment: Shipment | null;
  deliveredAt: string | null;
  completedAt: string | null;
  cancelledAt: string | null;
  cancelReason: string | null;
  refund: Refund | null;
}

export interface ListOrdersOptions {
  /** 1–50; the newest first. */
  limit: number;
  status?: OrderStatus;
}

export interface OrderRepository {
  /** The user's orders, newest first. */
  listOrders(userId: string, options: ListOrdersOptions): Promise<Order[]>;
  /** The user's order, or `undefined` when that user has no order of that number. */
  getOrder(userId: string, orderId: string): Promise<Order | undefined>;
  /**
   * Cancel the user's order and return it cancelled. A paid order gets its refund started (to the
   * original payment method); an order already cancelled is returned as it is, without a second
   * refund. Refuses with a `ToolError` (see `cancellationRefusal`) by status, or when there is no
   * such order.
   */
  cancelOrder(userId: string, orderId: string): Promise<Order>;
}

/** Statuses in which an order may still be cancelled (order-changes.md §二). */
export const CANCELLABLE_STATUSES: readonly OrderStatus[] = ['待付款', '已支付待发货'];

export function isCancellable(status: OrderStatus): boolean {
  return CANCELLABLE_STATUSES.includes(status);
}

/**
 * Why an order in this status cannot be cancelled, and what to do instead, in the words of
 * order-changes.md §二; `undefined` when it can be (or is already cancelled, which is not an error
 * for the repository).
 */
export function cancellationRefusal(order: Pick<Order, 'orderId' | 'status'>): ToolError | undefined {
  switch (order.status) {
    case '待付款':
    case '已支付待发货':
    case '已取消':
      return undefined;
    case '已发货':
      return new ToolError(
        'order_shipped',
        `订单 ${order.orderId} 已发货，已发货订单不能直接取消，可以申请物流拦截，或在签收后申请退货。`,
      );
    case '已签收':
      return new ToolError(
        'order_delivered',
        `订单 ${order.orderId} 已签收，已签收订单不能取消，不需要的商品请按退货政策申请退货。`,
      );
    case '已完成':
      return new ToolError(
        'order_completed',
        `订单 ${order.orderId} 已完成，已完成订单不能取消，也不再受理无理由退货；保修期内可以申请维修。`,
      );
  }
}

export function orderNotFound(orderId: string): ToolError {
  return new ToolError('order_not_found', `没有找到订单 ${orderId}，请核对订单号，或先查询最近的订单。`);
}

/** `Apple Watch Series 12（深空灰色、42毫米、铝金属、GPS）· 回环式运动表带`, items joined by ；. */
export function describeItems(items: readonly OrderItem[]): string {
  return items.map(itemLine).join('；');
}

/** One item in a line: name, （spec）, what comes with it, × quantity when more than one. */
export function itemLine(item: {
  name: string;
  spec?: string;
  includes?: readonly string[];
  quantity?: number;
}): string {
  const base = item.spec ? `${item.name}（${item.spec}）` : item.name;
  const line = (item.includes ?? []).reduce(
    (joined, included) => `${joined}${joined.endsWith('）') ? '· ' : ' · '}${included}`,
    base,
  );
  return item.quantity !== undefined && item.quantity > 1 ? `${line} × ${item.quantity}` : line;
}

/** Cents to `3378.00`. */
export function formatAmount(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const absolute = Math.abs(cents);
  return `${sign}${Math.floor(absolute / 100)}.${String(absolute % 100).padStart(2, '0')}`;
}
