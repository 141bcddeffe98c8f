import { familiesIn, onlyIfNotShipped, orderNumberIn, ordersMentioned } from './intent.ts';
import { type Language, languageOf } from './language.ts';
import { explainNotCancellable } from './not-cancellable-flow.ts';
import { amountIn, refundSentence, statusName } from './order-phrases.ts';
import { cancelFactsIn, itemsLine, type OrderFacts, orderLabel, ordersIn } from './tool-facts.ts';
import type { MadeCall, Transcript } from './transcript.ts';
import {
  canCall,
  cannotHelp,
  lastCall,
  ORDER_CHANGE_SKILL,
  RECENT_ORDERS,
  suggestHuman,
  TOOL,
  type TurnPlan,
} from './turn-plan.ts';

/**
 * Cancel an order, as seed 002 runs it: load the order-change handbook, query the recent orders,
 * find the one the shopper means, then either call `cancel_order` (待付款, 已支付待发货; the runtime
 * asks the shopper to confirm) or explain why not and how to return, quoting the policy
 * (已发货, 已签收, 已完成; `not-cancellable-flow.ts`). Each step runs once: a step whose result is
 * already in the transcript is not repeated, whether it succeeded or failed. Said in the shopper's
 * language.
 */
export function planCancel(transcript: Transcript): TurnPlan {
  const question = transcript.question;
  const language = languageOf(question);
  const en = language === 'en';
  const orderNumber = orderNumberIn(question);

  if (lastCall(transcript, TOOL.loadSkill) === undefined && canCall(transcript, TOOL.loadSkill)) {
    return {
      reasoning: en
        ? `${cancelWish(question, language)} Whether it can be cancelled depends on the order's status; read the order-change procedure first.`
        : `${cancelWish(question, language)}能不能取消要看订单现在的状态，先看订单变更的办理流程。`,
      text: en ? 'Let me check how cancellations are handled first.' : '我先看下取消订单的具体办理流程。',
      calls: [{ name: TOOL.loadSkill, args: { name: ORDER_CHANGE_SKILL } }],
    };
  }

  const query = lastCall(transcript, TOOL.queryOrder);
  if (query === undefined) {
    if (!canCall(transcript, TOOL.queryOrder)) return { text: cannotHelp(language) };
    const skill = lastCall(transcript, TOOL.loadSkill);
    const loaded = skill?.outcome.kind === 'done';
    const start = en
      ? loaded
        ? 'The handbook says to check the order status before deciding whether it can be cancelled.'
        : 'The order-change handbook did not load; check the order status first.'
      : loaded
        ? '手册要求先查订单状态，再决定能不能直接取消。'
        : '订单变更手册没加载成功，先查订单状态再说。';
    return orderNumber === undefined
      ? {
          reasoning: en
            ? `${start} Look at the ${RECENT_ORDERS} most recent orders.`
            : `${start}查最近${RECENT_ORDERS}笔订单。`,
          calls: [{ name: TOOL.queryOrder, args: { limit: RECENT_ORDERS } }],
        }
      : {
          reasoning: en
            ? `${start} Look up order ${orderNumber}.`
            : `${start}按订单号${orderNumber}查这一笔。`,
          calls: [{ name: TOOL.queryOrder, args: { orderId: orderNumber } }],
        };
  }
  if (query.outcome.kind !== 'done') return { text: queryFailed(query, language) };

  const orders = ordersIn(query.outcome.value);
  const target = pickOrder(orders, question);
  if (target.kind === 'none') {
    const none = en
      ? orders.length === 0
        ? "I couldn't find any orders on your account. Please tell me the order number and I'll look again."
        : `None of your ${orders.length} most recent orders matches. Please tell me the order number and I'll look again.`
      : orders.length === 0
        ? '我没有查到你账户下的订单。麻烦告诉我订单号，我再帮你查。'
        : `我在你最近的 ${orders.length} 笔订单里没找到对得上的。麻烦告诉我订单号，我再帮你查。`;
    return { text: none };
  }
  if (target.kind === 'ambiguous') {
    return {
      text: [
        en
          ? "Several of your recent orders match, and I don't want to cancel the wrong one. Which one do you mean?"
          : '你最近有几笔订单都对得上，我不想取消错，请告诉我是哪一笔：',
        ...target.orders.map((order) =>
          en
            ? `- Order ${order.orderId}: ${itemsLine(order)}, ${statusName(order.status, language)}`
            : `- 订单 ${order.orderId}：${itemsLine(order)}，${order.status}`,
        ),
      ].join('\n'),
    };
  }

  const order = target.order;
  const cancel = lastCall(transcript, TOOL.cancelOrder);
  if (cancel !== undefined) return { text: afterCancel(cancel, order, language) };

  switch (order.status) {
    case '待付款':
    case '已支付待发货':
      return proposeCancel(transcript, order, language);
    case '已取消': {
      const refund = refundSentence(order.refund, language);
      return {
        text: en
          ? `Order ${order.orderId}: ${itemsLine(order)} is already cancelled${order.cancelReason ? ` (${order.cancelReason})` : ''}; there is nothing to cancel.${refund ? ` ${refund}` : ''}`
          : `订单 ${order.orderId}：${itemsLine(order)}，已经是已取消状态${order.cancelReason ? `（${order.cancelReason}）` : ''}，不需要再取消了。${refund}`,
      };
    }
    default:
      return explainNotCancellable(transcript, order, language);
  }
}

function cancelWish(question: string, language: Language): string {
  const [family] = familiesIn(question);
  const orderNumber = orderNumberIn(question);
  const onlyIf = onlyIfNotShipped(question);
  if (language === 'en') {
    const what = orderNumber ? `order ${orderNumber}` : family ? `the ${family.label} order` : 'an order';
    return `The shopper wants to cancel ${what}${onlyIf ? ', if it has not shipped yet' : ''}.`;
  }
  const what = orderNumber ? `订单${orderNumber}` : family ? `${family.label}的订单` : '一笔订单';
  return onlyIf ? `用户想取消${what}，前提是还没发货。` : `用户想取消${what}。`;
}

type Target =
  | { kind: 'found'; order: OrderFacts }
  | { kind: 'ambiguous'; orders: OrderFacts[] }
  | { kind: 'none' };

/** How likely a shopper who wants to cancel means an order in this status. */
const STATUS_RANK: Record<string, number> = {
  待付款: 0,
  已支付待发货: 0,
  已发货: 1,
  已签收: 2,
  已完成: 3,
  已取消: 4,
};

/**
 * The order meant: the number the shopper typed; else the orders of the product named (表 → Apple
 * Watch, 鞋 → NovaTrail X2 …), the ones still cancellable first, then shipped, delivered, completed,
 * cancelled. Two equally likely candidates are ambiguous: the shopper is asked, nothing is guessed.
 */
export function pickOrder(orders: readonly OrderFacts[], question: string): Target {
  const orderNumber = orderNumberIn(question);
  if (orderNumber !== undefined) {
    const order = orders.find((candidate) => candidate.orderId === orderNumber);
    return order ? { kind: 'found', order } : { kind: 'none' };
  }
  const candidates = ordersMentioned(orders, question);
  if (candidates.length === 0) return { kind: 'none' };
  const rank = (order: OrderFacts) => STATUS_RANK[order.status] ?? 5;
  const best = Math.min(...candidates.map(rank));
  const top = candidates.filter((order) => rank(order) === best);
  const [first] = top;
  if (top.length === 1 && first) return { kind: 'found', order: first };
  return { kind: 'ambiguous', orders: top };
}

function proposeCancel(transcript: Transcript, order: OrderFacts, language: Language): TurnPlan {
  const en = language === 'en';
  const found = en
    ? `I found your ${orderLabel(order)} order: order ${order.orderId}, ${itemsLine(order)}, ${amountIn(order, language)}, status ${statusName(order.status, language)}. It can be cancelled.`
    : `找到你的${orderLabel(order)}订单了：订单 ${order.orderId}，${itemsLine(order)}，${amountIn(order, language)}，状态是${order.status}，可以直接取消。`;
  if (!canCall(transcript, TOOL.cancelOrder)) {
    return {
      text: en
        ? `${found} I can't submit the cancellation from here, but you can cancel it on the order's page.`
        : `${found}不过我这边暂时没法替你提交取消，你可以在订单详情页直接取消。`,
    };
  }
  const free = order.status === '待付款' ? (en ? ', not paid yet' : '还没付款，') : '';
  return {
    reasoning: en
      ? `Order ${order.orderId} is ${statusName(order.status, language)}${free}, so it can be cancelled. Cancelling is a write: the shopper confirms first.`
      : `订单${order.orderId}${order.status}，${free}可以直接取消。取消是写操作，要先请用户确认。`,
    text: en
      ? `${found} I'll submit the cancellation; please confirm it on the card.`
      : `${found}我这就提交取消。`,
    // The card speaks the shopper's language too; a Chinese request keeps the seed's exact call.
    calls: [
      {
        name: TOOL.cancelOrder,
        args: en ? { orderId: order.orderId, language: 'en' } : { orderId: order.orderId },
      },
    ],
  };
}

function afterCancel(cancel: MadeCall, order: OrderFacts, language: Language): string {
  const en = language === 'en';
  const outcome = cancel.outcome;
  if (outcome.kind === 'rejected') {
    return en
      ? `OK, order ${order.orderId} is not cancelled and will go ahead as usual. If you still want to cancel it, tell me before it ships.`
      : `好的，订单 ${order.orderId} 没有取消，会照常处理。之后如果还想取消，在发货前告诉我就行。`;
  }
  if (outcome.kind === 'failed') {
    return en
      ? `Order ${order.orderId} was not cancelled: ${outcome.message || 'something went wrong while cancelling.'} ${suggestHuman(language)}`
      : `订单 ${order.orderId} 没有取消成功：${outcome.message || '取消时出了问题。'}${suggestHuman(language)}`;
  }
  const facts = outcome.kind === 'done' ? cancelFactsIn(outcome.value) : undefined;
  if (facts === undefined) {
    return en
      ? `The request to cancel order ${order.orderId} was sent, but I did not get a clear result. Please check the order's status in My Orders. ${suggestHuman(language)}`
      : `取消订单 ${order.orderId} 的请求已经提交，但我没拿到明确的结果。请在「我的订单」里核对订单状态，${suggestHuman(language)}`;
  }
  const items = facts.items ?? itemsLine(order);
  if (en) {
    const head = facts.alreadyCancelled
      ? `Order ${facts.orderId} (${orderLabel(order)}) was already cancelled; nothing was done again and there is no second refund.`
      : `Order ${facts.orderId} is cancelled: ${items}.`;
    const refund =
      refundSentence(facts.refund, language) || 'The order was not paid, so there is nothing to refund.';
    return `${head} ${refund} A cancellation cannot be undone; to get it after all, place a new order.`;
  }
  const head = facts.alreadyCancelled
    ? `订单 ${facts.orderId}（${orderLabel(order)}）之前就已经取消了，这次没有重复操作，也不会重复退款。`
    : `已为你取消订单 ${facts.orderId}，商品是 ${items}。`;
  const refund = refundSentence(facts.refund, language) || '这笔订单还没付款，不涉及退款。';
  return `${head}${refund}取消后不能撤回，之后还想要的话需要重新下单。`;
}

function queryFailed(query: MadeCall, language: Language): string {
  const outcome = query.outcome;
  if (outcome.kind === 'failed' && outcome.message) {
    return language === 'en' ? `The order lookup says: ${outcome.message}` : outcome.message;
  }
  return language === 'en'
    ? `The order lookup did not work; please try again later. ${suggestHuman(language)}`
    : `订单查询没有成功，请稍后再试。${suggestHuman(language)}`;
}
