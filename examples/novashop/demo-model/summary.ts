import { evidenceLines, formatEvidence } from './evidence-lines.ts';
import { type Language, languageOf } from './language.ts';
import { questionProfile } from './question-terms.ts';
import { selectClauses } from './select-clauses.ts';
import { cancelFactsIn, evidenceIn, itemsLine, ordersIn, skillTitleIn } from './tool-facts.ts';
import type { MadeCall, Transcript } from './transcript.ts';
import { TOOL, type TurnPlan } from './turn-plan.ts';

/**
 * The turn without tools after max iterations: what the tool results so far say, one line per call,
 * and nothing they do not say, in the shopper's language.
 */
export function planSummary(transcript: Transcript): TurnPlan {
  const language = languageOf(transcript.question);
  const en = language === 'en';
  if (transcript.calls.length === 0) {
    return {
      text: en
        ? "I haven't got any lookup results in this turn yet, so I can't conclude anything. Please describe your question again, or contact NovaShop's customer service team."
        : '这一轮还没有拿到任何查询结果，暂时没法给出结论。请再描述一下你的问题，或者联系 NovaShop 人工客服。',
    };
  }
  return {
    text: [
      en
        ? "This turn's steps are used up; here is what I found so far:"
        : '这一轮的步骤已经用完，先总结一下目前查到的情况：',
      ...transcript.calls.map((call) => summarise(call, language)),
    ].join('\n'),
  };
}

function summarise(call: MadeCall, language: Language): string {
  const en = language === 'en';
  const outcome = call.outcome;
  if (outcome.kind === 'rejected') {
    return en
      ? `- ${call.name}: you did not approve it, so it did not run.`
      : `- ${call.name}：你没有同意这个操作，没有执行。`;
  }
  if (outcome.kind === 'failed') {
    return en
      ? `- ${call.name}: did not work (${outcome.message || outcome.code}).`
      : `- ${call.name}：没有成功（${outcome.message || outcome.code}）。`;
  }
  if (outcome.kind === 'missing')
    return en ? `- ${call.name}: no result yet.` : `- ${call.name}：还没有结果。`;
  const value = outcome.value;
  switch (call.name) {
    case TOOL.loadSkill: {
      const title = skillTitleIn(value) ?? String(call.args.name ?? (en ? 'handbook' : '手册'));
      return en ? `- Loaded 《${title}》.` : `- 已加载《${title}》。`;
    }
    case TOOL.queryOrder: {
      const orders = ordersIn(value);
      if (orders.length === 0) return en ? '- Order lookup: no orders found.' : '- 订单查询：没有查到订单。';
      const shown = orders
        .slice(0, 3)
        .map((order) =>
          en
            ? `order ${order.orderId} (${itemsLine(order)}) ${order.status}`
            : `订单 ${order.orderId}（${itemsLine(order)}）${order.status}`,
        );
      if (en) {
        const more = orders.length > 3 ? ` and more, ${orders.length} in all` : '';
        return `- Order lookup: ${shown.join('; ')}${more}.`;
      }
      const more = orders.length > 3 ? ` 等 ${orders.length} 笔` : '';
      return `- 订单查询：${shown.join('；')}${more}。`;
    }
    case TOOL.searchKnowledge: {
      const query = String(call.args.query ?? '');
      const evidence = evidenceIn(value);
      // The clause of the passages that best answers the query, not just the retriever's first.
      const [best] =
        evidence === undefined || evidence.lowEvidence
          ? []
          : evidenceLines(
              selectClauses(evidence.hits, { question: questionProfile(query), families: [], max: 1 }),
            );
      if (best === undefined) {
        return en
          ? `- Policy search "${query}": no reliable clause found.`
          : `- 规则检索「${query}」：没有找到可靠的条款。`;
      }
      return en
        ? `- Policy search "${query}": ${formatEvidence(best, language)}`
        : `- 规则检索「${query}」：${formatEvidence(best, language)}`;
    }
    case TOOL.cancelOrder: {
      const facts = cancelFactsIn(value);
      if (en) return facts ? `- Order ${facts.orderId} is cancelled.` : '- Cancel order: submitted.';
      return facts ? `- 订单 ${facts.orderId} 已取消。` : '- 取消订单：已提交。';
    }
    default:
      return en ? `- ${call.name}: done.` : `- ${call.name}：已完成。`;
  }
}
