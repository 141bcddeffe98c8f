import { evidenceBullet, evidenceLines } from './evidence-lines.ts';
import { familyOfItem } from './intent.ts';
import type { Language } from './language.ts';
import { amountIn, statusName } from './order-phrases.ts';
import { questionProfile } from './question-terms.ts';
import { type QuotedClause, selectClauses } from './select-clauses.ts';
import { type Evidence, evidenceIn, itemsLine, type OrderFacts, orderLabel } from './tool-facts.ts';
import type { Transcript } from './transcript.ts';
import { callsNamed, canCall, suggestHuman, TOOL, type TurnPlan } from './turn-plan.ts';

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

/**
 * An order past the point of cancelling (已发货, 已签收, 已完成): search the rule for its status and
 * the product's return (or warranty) rule in one turn, then say why nothing was cancelled and quote
 * what the shopper can do, each passage cited once across both searches.
 */
export function explainNotCancellable(
  transcript: Transcript,
  order: OrderFacts,
  language: Language,
): TurnPlan {
  const en = language === 'en';
  const queries = RULE_QUERIES[order.status];
  const label = orderLabel(order);
  const status = statusName(order.status, language);
  const searches = callsNamed(transcript, TOOL.searchKnowledge);
  if (queries !== undefined && searches.length === 0 && canCall(transcript, TOOL.searchKnowledge)) {
    return {
      reasoning: en
        ? `Order ${order.orderId} is ${status}; the handbook says it cannot be cancelled directly. Search the rule for this case and the ${label} after-sales terms, to quote what the shopper can do.`
        : `订单${order.orderId}${order.status}，按手册不能直接取消。查一下这种情况的规则和${label}的售后条款，好引用原文告诉用户怎么办。`,
      text: en
        ? `I found your ${label} order, but it is already ${status}. Let me check what can be done in that case.`
        : `找到你的${label}订单了，不过它已经是「${order.status}」状态，我查一下这种情况怎么处理。`,
      calls: [
        { name: TOOL.searchKnowledge, args: { query: queries.rule, topK: 3 } },
        { name: TOOL.searchKnowledge, args: { query: `${label} ${queries.after}`, topK: 4 } },
      ],
    };
  }
  const shipment = order.shipment
    ? en
      ? `, ${order.shipment.carrier} tracking number ${order.shipment.trackingNumber}`
      : `，${order.shipment.carrier}运单号 ${order.shipment.trackingNumber}`
    : '';
  const lines = [
    en
      ? `Order ${order.orderId}: ${itemsLine(order)}, ${amountIn(order, language)}, currently ${status}${shipment}. It cannot be cancelled directly, so I did not submit a cancellation.`
      : `订单 ${order.orderId}：${itemsLine(order)}，${amountIn(order, language)}，目前是「${order.status}」${shipment}，不能直接取消，所以我没有提交取消。`,
  ];
  const [ruleSearch, productSearch] = searches.map((call) => ({
    query: String(call.args.query ?? ''),
    evidence: call.outcome.kind === 'done' ? evidenceIn(call.outcome.value) : undefined,
  }));
  const family = order.items[0] ? familyOfItem(order.items[0].name) : undefined;
  const families = family ? [family] : [];
  const quote = (
    search: { query: string; evidence: Evidence | undefined } | undefined,
    max: number,
    mustMatch: RegExp | undefined,
    quoted: readonly QuotedClause[],
  ): QuotedClause[] =>
    search?.evidence && !search.evidence.lowEvidence
      ? selectClauses(search.evidence.hits, {
          question: questionProfile(search.query),
          families,
          max,
          quoted,
          ...(mustMatch ? { mustMatch } : {}),
        })
      : [];
  const ruleClauses = quote(ruleSearch, 2, queries?.mustMatch, []);
  const warranty = queries?.after === '保修';
  const productClauses = quote(productSearch, 3, warranty ? /保修|维修/ : /退/, ruleClauses);
  if (ruleClauses.length === 0 && productClauses.length === 0) {
    lines.push(
      en
        ? `I couldn't find the specific rule for this case. ${suggestHuman(language)}`
        : `我没有查到这种情况的具体条款，${suggestHuman(language)}`,
    );
    return { text: lines.join('\n') };
  }
  const cited = new Set<string>();
  const ruleLines = evidenceLines(ruleClauses, cited);
  const productLines = evidenceLines(productClauses, cited);
  if (ruleLines.length > 0) {
    lines.push(
      en ? 'Under the rules, you can:' : '按规则，你可以这样处理：',
      ...ruleLines.map((line) => evidenceBullet(line, language)),
    );
  }
  if (productLines.length > 0) {
    lines.push(
      warranty
        ? en
          ? `The ${label} warranty terms:`
          : `${label}的保修条款：`
        : en
          ? `To return it after delivery, note for ${label}:`
          : `签收后申请退货，${label}要注意：`,
      ...productLines.map((line) => evidenceBullet(line, language)),
    );
  }
  lines.push(
    en
      ? 'If you like, I can check the latest status of this order again.'
      : '需要的话，我可以再帮你查这笔订单的最新状态。',
  );
  return { text: lines.join('\n') };
}
