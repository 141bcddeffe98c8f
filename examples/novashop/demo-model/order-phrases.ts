import type { Language } from './language.ts';
import type { OrderFacts } from './tool-facts.ts';

/**
 * How the demo names an order's facts in English. The data is Chinese (statuses as the shopper
 * reads them in 「我的订单」, item names, where a refund goes); the English answer translates the
 * statuses it knows and quotes the rest as written.
 */
const STATUS_IN_ENGLISH: Record<string, string> = {
  待付款: 'awaiting payment',
  已支付待发货: 'paid, not shipped yet',
  已发货: 'shipped',
  已签收: 'delivered',
  已完成: 'completed',
  已取消: 'cancelled',
};

const REFUND_STATUS_IN_ENGLISH: Record<string, string> = {
  已发起: 'has been started',
  已到账: 'has arrived',
};

/** 已发货 or `shipped (已发货)`: the English name with the status as the order page shows it. */
export function statusName(status: string, language: Language): string {
  if (language === 'zh') return status;
  const english = STATUS_IN_ENGLISH[status];
  return english ? `${english} (${status})` : status;
}

/** `实付 3378.00 元` / `paid ¥3378.00`; 应付 / `due` for an order not paid yet. */
export function amountIn(order: OrderFacts, language: Language): string {
  if (order.paidAmount === undefined) return '';
  const unpaid = order.status === '待付款';
  if (language === 'en') return unpaid ? `¥${order.paidAmount} due` : `paid ¥${order.paidAmount}`;
  return unpaid ? `应付 ${order.paidAmount} 元` : `实付 ${order.paidAmount} 元`;
}

/** `3378.00 元的退款已发起，原路退回（支付宝）。` / `The refund of ¥3378.00 has been started (原路退回（支付宝）).` */
export function refundSentence(
  refund: { amount: string; status: string; to: string } | null | undefined,
  language: Language,
): string {
  if (refund === null || refund === undefined) return '';
  if (language === 'zh') return `${refund.amount} 元的退款${refund.status}，${refund.to}。`;
  const status = REFUND_STATUS_IN_ENGLISH[refund.status] ?? `is ${refund.status}`;
  return `The refund of ¥${refund.amount} ${status} (${refund.to}).`;
}
