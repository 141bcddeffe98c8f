import { cancelFactsIn, evidenceIn, itemsLine, ordersIn, skillTitleIn } from './tool-facts.ts';
import type { MadeCall, Transcript } from './transcript.ts';
import { TOOL, type TurnPlan } from './turn-plan.ts';

/**
 * The turn without tools after max iterations: what the tool results so far say, one line per call,
 * and nothing they do not say.
 */
export function planSummary(transcript: Transcript): TurnPlan {
  if (transcript.calls.length === 0) {
    return {
      text: '这一轮还没有拿到任何查询结果，暂时没法给出结论。请再描述一下你的问题，或者联系 NovaShop 人工客服。',
    };
  }
  return {
    text: ['这一轮的步骤已经用完，先总结一下目前查到的情况：', ...transcript.calls.map(summarise)].join('\n'),
  };
}

function summarise(call: MadeCall): string {
  const outcome = call.outcome;
  if (outcome.kind === 'rejected') return `- ${call.name}：你没有同意这个操作，没有执行。`;
  if (outcome.kind === 'failed') return `- ${call.name}：没有成功（${outcome.message || outcome.code}）。`;
  if (outcome.kind === 'missing') return `- ${call.name}：还没有结果。`;
  const value = outcome.value;
  switch (call.name) {
    case TOOL.loadSkill:
      return `- 已加载《${skillTitleIn(value) ?? String(call.args.name ?? '手册')}》。`;
    case TOOL.queryOrder: {
      const orders = ordersIn(value);
      if (orders.length === 0) return '- 订单查询：没有查到订单。';
      const shown = orders
        .slice(0, 3)
        .map((order) => `订单 ${order.orderId}（${itemsLine(order)}）${order.status}`);
      const more = orders.length > 3 ? ` 等 ${orders.length} 笔` : '';
      return `- 订单查询：${shown.join('；')}${more}。`;
    }
    case TOOL.searchKnowledge: {
      const evidence = evidenceIn(value);
      const [top] = evidence?.hits ?? [];
      if (evidence === undefined || evidence.lowEvidence || top === undefined) {
        return `- 规则检索「${String(call.args.query ?? '')}」：没有找到可靠的条款。`;
      }
      return `- 规则检索「${String(call.args.query ?? '')}」：${top.text}（来源：${top.citation}）`;
    }
    case TOOL.cancelOrder: {
      const facts = cancelFactsIn(value);
      return facts ? `- 订单 ${facts.orderId} 已取消。` : '- 取消订单：已提交。';
    }
    default:
      return `- ${call.name}：已完成。`;
  }
}
