import { orderNumberIn, ordersMentioned } from './intent.ts';
import { amountPhrase, itemsLine, type OrderFacts, ordersIn } from './tool-facts.ts';
import type { Transcript } from './transcript.ts';
import {
  CANNOT_HELP,
  canCall,
  lastCall,
  RECENT_ORDERS,
  SUGGEST_HUMAN,
  TOOL,
  type TurnPlan,
} from './turn-plan.ts';

/**
 * Where an order is: `query_order` by the number the shopper typed, else the recent orders, then an
 * answer that says only what the result says (status, carrier and tracking number, refund).
 */
export function planStatus(transcript: Transcript): TurnPlan {
  const orderNumber = orderNumberIn(transcript.question);
  const query = lastCall(transcript, TOOL.queryOrder);
  if (query === undefined) {
    if (!canCall(transcript, TOOL.queryOrder)) return { text: CANNOT_HELP };
    return orderNumber === undefined
      ? {
          reasoning: `用户想知道订单进度，先查最近${RECENT_ORDERS}笔订单，看哪些还在进行中。`,
          calls: [{ name: TOOL.queryOrder, args: { limit: RECENT_ORDERS } }],
        }
      : {
          reasoning: `用户问订单${orderNumber}的状态，按订单号查这一笔。`,
          calls: [{ name: TOOL.queryOrder, args: { orderId: orderNumber } }],
        };
  }
  if (query.outcome.kind === 'failed') {
    return { text: query.outcome.message || `订单查询没有成功，请稍后再试。${SUGGEST_HUMAN}` };
  }
  if (query.outcome.kind !== 'done') return { text: `订单查询没有成功，请稍后再试。${SUGGEST_HUMAN}` };
  const orders = ordersIn(query.outcome.value);
  if (orderNumber !== undefined) {
    const order = orders.find((candidate) => candidate.orderId === orderNumber);
    return {
      text: order ? describeOrder(order) : `没有查到订单 ${orderNumber}，请核对一下订单号。`,
    };
  }
  return { text: describeRecent(orders, transcript.question) };
}

/** One order in a sentence or two: its items, amount, status and what the status means for it. */
export function describeOrder(order: OrderFacts): string {
  const head = `订单 ${order.orderId}：${itemsLine(order)}，${amountPhrase(order)}，现在的状态是「${order.status}」`;
  return `${head}${statusDetail(order)}`;
}

function statusDetail(order: OrderFacts): string {
  const shipment = order.shipment;
  switch (order.status) {
    case '待付款':
      return '，还没有付款。';
    case '已支付待发货':
      return '，已经付款，还没有发货，暂时没有物流信息。';
    case '已发货':
      return shipment ? `，已由${shipment.carrier}发出，运单号 ${shipment.trackingNumber}。` : '，已经发出。';
    case '已签收':
      return shipment
        ? `，${shipment.carrier}运单 ${shipment.trackingNumber} 显示已签收。`
        : '，包裹已签收。';
    case '已取消': {
      const reason = order.cancelReason ? `（${order.cancelReason}）` : '';
      const refund = order.refund
        ? `，${order.refund.amount} 元的退款${order.refund.status}，${order.refund.to}`
        : '';
      return `${reason}${refund}。`;
    }
    default:
      return '。';
  }
}

const CLOSED = new Set(['已完成', '已取消']);

function describeRecent(orders: readonly OrderFacts[], question: string): string {
  if (orders.length === 0) return '你的账户下还没有订单。';
  const mentioned = ordersMentioned(orders, question);
  if (mentioned.length === 0) {
    return `你最近的 ${orders.length} 笔订单里没有找到这件商品，麻烦告诉我订单号，我再帮你查。`;
  }
  const open = mentioned.filter((order) => !CLOSED.has(order.status));
  if (open.length === 0) {
    return [
      '你最近的这些订单都已经完成或取消了：',
      ...mentioned.slice(0, 3).map((order) => `- ${describeOrder(order)}`),
    ].join('\n');
  }
  const closed = mentioned.length - open.length;
  return [
    open.length === 1 ? '你有 1 笔订单还在进行中：' : `你有 ${open.length} 笔订单还在进行中：`,
    ...open.map((order) => `- ${describeOrder(order)}`),
    ...(closed > 0 ? [`另外 ${closed} 笔订单已经完成或取消。`] : []),
  ].join('\n');
}
