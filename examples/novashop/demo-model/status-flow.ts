import { orderNumberIn, ordersMentioned } from './intent.ts';
import { type Language, languageOf } from './language.ts';
import { amountIn, refundSentence, statusName } from './order-phrases.ts';
import { itemsLine, type OrderFacts, ordersIn } from './tool-facts.ts';
import type { Transcript } from './transcript.ts';
import {
  canCall,
  cannotHelp,
  lastCall,
  RECENT_ORDERS,
  suggestHuman,
  TOOL,
  type TurnPlan,
} from './turn-plan.ts';

/**
 * Where an order is: `query_order` by the number the shopper typed, else the recent orders, then an
 * answer that says only what the result says (status, carrier and tracking number, refund), in the
 * shopper's language.
 */
export function planStatus(transcript: Transcript): TurnPlan {
  const language = languageOf(transcript.question);
  const en = language === 'en';
  const orderNumber = orderNumberIn(transcript.question);
  const query = lastCall(transcript, TOOL.queryOrder);
  if (query === undefined) {
    if (!canCall(transcript, TOOL.queryOrder)) return { text: cannotHelp(language) };
    return orderNumber === undefined
      ? {
          reasoning: en
            ? `The shopper wants to know where an order is: look at the ${RECENT_ORDERS} most recent orders and see which are under way.`
            : `用户想知道订单进度，先查最近${RECENT_ORDERS}笔订单，看哪些还在进行中。`,
          calls: [{ name: TOOL.queryOrder, args: { limit: RECENT_ORDERS } }],
        }
      : {
          reasoning: en
            ? `The shopper asks about order ${orderNumber}: look that one up by its number.`
            : `用户问订单${orderNumber}的状态，按订单号查这一笔。`,
          calls: [{ name: TOOL.queryOrder, args: { orderId: orderNumber } }],
        };
  }
  const failed = en
    ? `The order lookup did not work; please try again later. ${suggestHuman(language)}`
    : `订单查询没有成功，请稍后再试。${suggestHuman(language)}`;
  if (query.outcome.kind === 'failed') {
    const message = query.outcome.message;
    if (!message) return { text: failed };
    // The tool's own words (Chinese), quoted in an English answer rather than guessed at.
    return { text: en ? `The order lookup says: ${message}` : message };
  }
  if (query.outcome.kind !== 'done') return { text: failed };
  const orders = ordersIn(query.outcome.value);
  if (orderNumber !== undefined) {
    const order = orders.find((candidate) => candidate.orderId === orderNumber);
    if (order) return { text: describeOrder(order, language) };
    return {
      text: en
        ? `I couldn't find order ${orderNumber}; please check the number.`
        : `没有查到订单 ${orderNumber}，请核对一下订单号。`,
    };
  }
  return { text: describeRecent(orders, transcript.question, language) };
}

/** One order in a sentence or two: its items, amount, status and what the status means for it. */
export function describeOrder(order: OrderFacts, language: Language = 'zh'): string {
  const amount = amountIn(order, language);
  if (language === 'en') {
    const head = `Order ${order.orderId}: ${itemsLine(order)}${amount ? `, ${amount}` : ''}; status: ${statusName(order.status, language)}`;
    return `${head}${statusDetailInEnglish(order)}`;
  }
  const head = `订单 ${order.orderId}：${itemsLine(order)}，${amount}，现在的状态是「${order.status}」`;
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

function statusDetailInEnglish(order: OrderFacts): string {
  const shipment = order.shipment;
  switch (order.status) {
    case '待付款':
      return '. It has not been paid yet.';
    case '已支付待发货':
      return '. It is paid and has not shipped yet, so there is no tracking information.';
    case '已发货':
      return shipment
        ? `. It was sent with ${shipment.carrier}, tracking number ${shipment.trackingNumber}.`
        : '. It has been sent.';
    case '已签收':
      return shipment
        ? `. ${shipment.carrier} tracking ${shipment.trackingNumber} shows it delivered.`
        : '. The parcel has been delivered.';
    case '已取消': {
      const reason = order.cancelReason ? ` (${order.cancelReason})` : '';
      const refund = order.refund ? ` ${refundSentence(order.refund, 'en')}` : '';
      return `${reason}.${refund}`;
    }
    default:
      return '.';
  }
}

const CLOSED = new Set(['已完成', '已取消']);

function describeRecent(orders: readonly OrderFacts[], question: string, language: Language): string {
  const en = language === 'en';
  if (orders.length === 0) return en ? 'There are no orders on your account yet.' : '你的账户下还没有订单。';
  const mentioned = ordersMentioned(orders, question);
  if (mentioned.length === 0) {
    return en
      ? `I couldn't find that item in your ${orders.length} most recent orders; please tell me the order number and I'll look it up.`
      : `你最近的 ${orders.length} 笔订单里没有找到这件商品，麻烦告诉我订单号，我再帮你查。`;
  }
  const line = (order: OrderFacts) => `- ${describeOrder(order, language)}`;
  const open = mentioned.filter((order) => !CLOSED.has(order.status));
  if (open.length === 0) {
    return [
      en ? 'Your recent orders are all completed or cancelled:' : '你最近的这些订单都已经完成或取消了：',
      ...mentioned.slice(0, 3).map(line),
    ].join('\n');
  }
  const closed = mentioned.length - open.length;
  const openHead = en
    ? `You have ${open.length} ${open.length === 1 ? 'order' : 'orders'} in progress:`
    : open.length === 1
      ? '你有 1 笔订单还在进行中：'
      : `你有 ${open.length} 笔订单还在进行中：`;
  const closedTail = en
    ? `${closed} other ${closed === 1 ? 'order is' : 'orders are'} completed or cancelled.`
    : `另外 ${closed} 笔订单已经完成或取消。`;
  return [openHead, ...open.map(line), ...(closed > 0 ? [closedTail] : [])].join('\n');
}
