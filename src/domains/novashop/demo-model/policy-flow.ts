import { evidenceLine, selectHits } from './evidence-lines.ts';
import { familiesIn, type Intent } from './intent.ts';
import { evidenceIn } from './tool-facts.ts';
import type { Transcript } from './transcript.ts';
import { CANNOT_HELP, canCall, lastCall, SUGGEST_HUMAN, TOOL, type TurnPlan } from './turn-plan.ts';

type PolicyIntent = Extract<Intent, 'return' | 'shipping' | 'size'>;

const WORDING: Record<PolicyIntent, { reasoning: string; lead: string; closing: string }> = {
  return: {
    reasoning: '用户问能不能退，先检索退货政策的原文，只按条款回答并注明出处。',
    lead: '关于退货，NovaShop 的规则是这样写的：',
    closing: '具体能不能退还要看商品和签收时间；需要的话告诉我订单号，我帮你查订单状态。',
  },
  shipping: {
    reasoning: '用户问发货和配送，先检索配送政策的原文，只按条款回答并注明出处。',
    lead: '关于发货和配送，NovaShop 的规则是这样写的：',
    closing: '想知道某笔订单发没发、到哪了，告诉我订单号就能查。',
  },
  size: {
    reasoning: '用户问尺码怎么选，先检索尺码指南和常见问题，只按条款回答并注明出处。',
    lead: '关于尺码，尺码指南和常见问题里是这样说的：',
    closing: '拿不准的话，告诉我你的脚长，我再对照尺码表帮你看。',
  },
};

const QUERY_LIMIT = 200;

/**
 * A policy question (return, shipping, size): `search_knowledge` with the shopper's own words, then
 * an answer made of the most relevant clauses, each with its citation. Low evidence, or nothing
 * relevant, is said plainly, with a pointer to human support: the demo never answers from memory.
 */
export function planPolicy(transcript: Transcript, intent: PolicyIntent): TurnPlan {
  const wording = WORDING[intent];
  const search = lastCall(transcript, TOOL.searchKnowledge);
  if (search === undefined) {
    if (!canCall(transcript, TOOL.searchKnowledge)) return { text: CANNOT_HELP };
    return {
      reasoning: wording.reasoning,
      calls: [
        {
          name: TOOL.searchKnowledge,
          args: { query: transcript.question.trim().slice(0, QUERY_LIMIT), topK: 5 },
        },
      ],
    };
  }
  if (search.outcome.kind === 'failed') {
    return { text: `规则检索没有成功（${search.outcome.message || '检索出错'}），${SUGGEST_HUMAN}` };
  }
  const evidence = search.outcome.kind === 'done' ? evidenceIn(search.outcome.value) : undefined;
  const hits =
    evidence && !evidence.lowEvidence
      ? selectHits(evidence.hits, { families: familiesIn(transcript.question), max: 3 })
      : [];
  if (hits.length === 0) {
    return { text: `我没有在 NovaShop 现有的规则里找到能回答这个问题的条款，${SUGGEST_HUMAN}` };
  }
  return { text: [wording.lead, ...hits.map(evidenceLine), wording.closing].join('\n') };
}
