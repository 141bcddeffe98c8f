import { evidenceLine, selectHits } from './evidence-lines.ts';
import { familiesIn, familyOfItem, onlyIfNotShipped, orderNumberIn, ordersMentioned } from './intent.ts';
import {
  amountPhrase,
  cancelFactsIn,
  evidenceIn,
  itemsLine,
  type OrderFacts,
  orderLabel,
  ordersIn,
} from './tool-facts.ts';
import type { MadeCall, Transcript } from './transcript.ts';
import {
  CANNOT_HELP,
  callsNamed,
  canCall,
  lastCall,
  ORDER_CHANGE_SKILL,
  RECENT_ORDERS,
  SUGGEST_HUMAN,
  TOOL,
  type TurnPlan,
} from './turn-plan.ts';

/**
 * Cancel an order, as seed 002 runs it: load the order-change handbook, query the recent orders,
 * find the one the shopper means, then either call `cancel_order` (待付款, 已支付待发货; the runtime
 * asks the shopper to confirm) or explain why not and how to return, quoting the policy
 * (已发货, 已签收, 已完成). Each step runs once: a step whose result is already in the transcript is
 * not repeated, whether it succeeded or failed.
 */
export function planCancel(transcript: Transcript): TurnPlan {
  const question = transcript.question;
  const orderNumber = orderNumberIn(question);

  if (lastCall(transcript, TOOL.loadSkill) === undefined && canCall(transcript, TOOL.loadSkill)) {
    return {
      reasoning: `${cancelWish(question)}能不能取消要看订单现在的状态，先看订单变更的办理流程。`,
      text: '我先看下取消订单的具体办理流程。',
      calls: [{ name: TOOL.loadSkill, args: { name: ORDER_CHANGE_SKILL } }],
    };
  }

  const query = lastCall(transcript, TOOL.queryOrder);
  if (query === undefined) {
    if (!canCall(transcript, TOOL.queryOrder)) return { text: CANNOT_HELP };
    const skill = lastCall(transcript, TOOL.loadSkill);
    const start =
      skill?.outcome.kind === 'done'
        ? '手册要求先查订单状态，再决定能不能直接取消。'
        : '订单变更手册没加载成功，先查订单状态再说。';
    return orderNumber === undefined
      ? {
          reasoning: `${start}查最近${RECENT_ORDERS}笔订单。`,
          calls: [{ name: TOOL.queryOrder, args: { limit: RECENT_ORDERS } }],
        }
      : {
          reasoning: `${start}按订单号${orderNumber}查这一笔。`,
          calls: [{ name: TOOL.queryOrder, args: { orderId: orderNumber } }],
        };
  }
  if (query.outcome.kind !== 'done') return { text: queryFailed(query) };

  const orders = ordersIn(query.outcome.value);
  const target = pickOrder(orders, question);
  if (target.kind === 'none') {
    return {
      text:
        orders.length === 0
          ? '我没有查到你账户下的订单。麻烦告诉我订单号，我再帮你查。'
          : `我在你最近的 ${orders.length} 笔订单里没找到对得上的。麻烦告诉我订单号，我再帮你查。`,
    };
  }
  if (target.kind === 'ambiguous') {
    return {
      text: [
        '你最近有几笔订单都对得上，我不想取消错，请告诉我是哪一笔：',
        ...target.orders.map((order) => `- 订单 ${order.orderId}：${itemsLine(order)}，${order.status}`),
      ].join('\n'),
    };
  }

  const order = target.order;
  const cancel = lastCall(transcript, TOOL.cancelOrder);
  if (cancel !== undefined) return { text: afterCancel(cancel, order) };

  switch (order.status) {
    case '待付款':
    case '已支付待发货':
      return proposeCancel(transcript, order);
    case '已取消':
      return {
        text: `订单 ${order.orderId}：${itemsLine(order)}，已经是已取消状态${order.cancelReason ? `（${order.cancelReason}）` : ''}，不需要再取消了。${refundSentence(order)}`,
      };
    default:
      return explainNotCancellable(transcript, order);
  }
}

function cancelWish(question: string): string {
  const [family] = familiesIn(question);
  const orderNumber = orderNumberIn(question);
  const what = orderNumber ? `订单${orderNumber}` : family ? `${family.label}的订单` : '一笔订单';
  return onlyIfNotShipped(question) ? `用户想取消${what}，前提是还没发货。` : `用户想取消${what}。`;
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

function proposeCancel(transcript: Transcript, order: OrderFacts): TurnPlan {
  const found = `找到你的${orderLabel(order)}订单了：订单 ${order.orderId}，${itemsLine(order)}，${amountPhrase(order)}，状态是${order.status}，可以直接取消。`;
  if (!canCall(transcript, TOOL.cancelOrder)) {
    return {
      text: `${found}不过我这边暂时没法替你提交取消，你可以在订单详情页直接取消。`,
    };
  }
  const free = order.status === '待付款' ? '还没付款，' : '';
  return {
    reasoning: `订单${order.orderId}${order.status}，${free}可以直接取消。取消是写操作，要先请用户确认。`,
    text: `${found}我这就提交取消。`,
    calls: [{ name: TOOL.cancelOrder, args: { orderId: order.orderId } }],
  };
}

function afterCancel(cancel: MadeCall, order: OrderFacts): string {
  const outcome = cancel.outcome;
  if (outcome.kind === 'rejected') {
    return `好的，订单 ${order.orderId} 没有取消，会照常处理。之后如果还想取消，在发货前告诉我就行。`;
  }
  if (outcome.kind === 'failed') {
    return `订单 ${order.orderId} 没有取消成功：${outcome.message || '取消时出了问题。'}${SUGGEST_HUMAN}`;
  }
  const facts = outcome.kind === 'done' ? cancelFactsIn(outcome.value) : undefined;
  if (facts === undefined) {
    return `取消订单 ${order.orderId} 的请求已经提交，但我没拿到明确的结果。请在「我的订单」里核对订单状态，${SUGGEST_HUMAN}`;
  }
  const items = facts.items ?? itemsLine(order);
  const head = facts.alreadyCancelled
    ? `订单 ${facts.orderId}（${orderLabel(order)}）之前就已经取消了，这次没有重复操作，也不会重复退款。`
    : `已为你取消订单 ${facts.orderId}，商品是 ${items}。`;
  const refund = facts.refund
    ? `${facts.refund.amount} 元的退款${facts.refund.status}，${facts.refund.to}。`
    : '这笔订单还没付款，不涉及退款。';
  return `${head}${refund}取消后不能撤回，之后还想要的话需要重新下单。`;
}

function refundSentence(order: OrderFacts): string {
  return order.refund ? `${order.refund.amount} 元的退款${order.refund.status}，${order.refund.to}。` : '';
}

/** What to search for, by status: the cancellation rule, then the product's return (or repair) rule. */
const RULE_QUERIES: Record<string, { rule: string; mustMatch: RegExp; after: string }> = {
  已发货: {
    rule: '已发货订单不能直接取消 物流拦截',
    mustMatch: /已发货|发货后|已经发货/,
    after: '签收后退货',
  },
  已签收: { rule: '已签收订单不能取消 申请退货', mustMatch: /已签收/, after: '签收后退货' },
  已完成: { rule: '已完成订单不能取消 无理由退货', mustMatch: /已完成/, after: '保修' },
};

function explainNotCancellable(transcript: Transcript, order: OrderFacts): TurnPlan {
  const queries = RULE_QUERIES[order.status];
  const label = orderLabel(order);
  const searches = callsNamed(transcript, TOOL.searchKnowledge);
  if (queries !== undefined && searches.length === 0 && canCall(transcript, TOOL.searchKnowledge)) {
    return {
      reasoning: `订单${order.orderId}${order.status}，按手册不能直接取消。查一下这种情况的规则和${label}的售后条款，好引用原文告诉用户怎么办。`,
      text: `找到你的${label}订单了，不过它已经是「${order.status}」状态，我查一下这种情况怎么处理。`,
      calls: [
        { name: TOOL.searchKnowledge, args: { query: queries.rule, topK: 3 } },
        { name: TOOL.searchKnowledge, args: { query: `${label} ${queries.after}`, topK: 4 } },
      ],
    };
  }
  const shipment = order.shipment ? `，${order.shipment.carrier}运单号 ${order.shipment.trackingNumber}` : '';
  const lines = [
    `订单 ${order.orderId}：${itemsLine(order)}，${amountPhrase(order)}，目前是「${order.status}」${shipment}，不能直接取消，所以我没有提交取消。`,
  ];
  const [ruleSearch, productSearch] = searches.map((call) =>
    call.outcome.kind === 'done' ? evidenceIn(call.outcome.value) : undefined,
  );
  const family = order.items[0] ? familyOfItem(order.items[0].name) : undefined;
  const families = family ? [family] : [];
  const ruleHits =
    ruleSearch && !ruleSearch.lowEvidence
      ? selectHits(ruleSearch.hits, {
          families,
          max: 2,
          ...(queries ? { mustMatch: queries.mustMatch } : {}),
        })
      : [];
  const productHits =
    productSearch && !productSearch.lowEvidence
      ? selectHits(productSearch.hits, {
          families,
          max: 3,
          mustMatch: queries?.after === '保修' ? /保修|维修/ : /退/,
        })
      : [];
  if (ruleHits.length === 0 && productHits.length === 0) {
    lines.push(`我没有查到这种情况的具体条款，${SUGGEST_HUMAN}`);
    return { text: lines.join('\n') };
  }
  if (ruleHits.length > 0) lines.push('按规则，你可以这样处理：', ...ruleHits.map(evidenceLine));
  if (productHits.length > 0) {
    lines.push(
      queries?.after === '保修' ? `${label}的保修条款：` : `签收后申请退货，${label}要注意：`,
      ...productHits.map(evidenceLine),
    );
  }
  lines.push('需要的话，我可以再帮你查这笔订单的最新状态。');
  return { text: lines.join('\n') };
}

function queryFailed(query: MadeCall): string {
  const outcome = query.outcome;
  if (outcome.kind === 'failed' && outcome.message) return `${outcome.message}`;
  return `订单查询没有成功，请稍后再试。${SUGGEST_HUMAN}`;
}
