import { chineseTermsOf } from './english-terms.ts';
import { evidenceBullet, evidenceLines, formatEvidence } from './evidence-lines.ts';
import { familiesIn, type Intent } from './intent.ts';
import { type Language, languageOf } from './language.ts';
import { questionProfile } from './question-terms.ts';
import { selectClauses } from './select-clauses.ts';
import { evidenceIn } from './tool-facts.ts';
import type { Transcript } from './transcript.ts';
import {
  canCall,
  cannotHelp,
  lastCall,
  noReliableRule,
  suggestHuman,
  TOOL,
  type TurnPlan,
} from './turn-plan.ts';

type PolicyIntent = Extract<Intent, 'return' | 'shipping' | 'size'>;

interface Wording {
  reasoning: string;
  /** Ends where the first quoted clause begins, on the same line: the answer leads with it. */
  lead: string;
  more: string;
  closing: string;
}

const WORDING: Record<PolicyIntent, Record<Language, Wording>> = {
  return: {
    zh: {
      reasoning: '用户问能不能退，先检索退货政策的原文，只按条款回答并注明出处。',
      lead: '关于退货，NovaShop 的规则是这样写的：',
      more: '相关的还有：',
      closing: '具体能不能退还要看商品和签收时间；需要的话告诉我订单号，我帮你查订单状态。',
    },
    en: {
      reasoning:
        'The shopper asks about returns: search the return policy, answer only from its clauses, with citations.',
      lead: "On returns, NovaShop's rules say: ",
      more: 'Also relevant:',
      closing:
        "Whether an item can go back depends on the product and when it was delivered; give me the order number and I'll check the order.",
    },
  },
  shipping: {
    zh: {
      reasoning: '用户问发货和配送，先检索配送政策的原文，只按条款回答并注明出处。',
      lead: '关于发货和配送，NovaShop 的规则是这样写的：',
      more: '相关的还有：',
      closing: '想知道某笔订单发没发、到哪了，告诉我订单号就能查。',
    },
    en: {
      reasoning:
        'The shopper asks about shipping: search the shipping policy, answer only from its clauses, with citations.',
      lead: "On shipping, NovaShop's rules say: ",
      more: 'Also relevant:',
      closing: 'To see whether a particular order has shipped and where it is, give me the order number.',
    },
  },
  size: {
    zh: {
      reasoning: '用户问尺码怎么选，先检索尺码指南和常见问题，只按条款回答并注明出处。',
      lead: '关于尺码，尺码指南和常见问题里是这样说的：',
      more: '相关的还有：',
      closing: '拿不准的话，告诉我你的脚长，我再对照尺码表帮你看。',
    },
    en: {
      reasoning:
        'The shopper asks which size to pick: search the size guide and FAQ, answer only from them, with citations.',
      lead: 'On sizes, the size guide and FAQ say: ',
      more: 'Also relevant:',
      closing: "If you're unsure, tell me your foot length and I'll check it against the size chart.",
    },
  },
};

const QUERY_LIMIT = 200;
const MAX_CLAUSES = 3;

/**
 * A policy question (return, shipping, size): `search_knowledge` with the shopper's own words (an
 * English question with the Chinese key words in front, since the knowledge is Chinese), then an
 * answer that leads with the clause that answers the question, merges clauses stating the same fact
 * and cites each passage once (`select-clauses.ts`, `evidence-lines.ts`). Low evidence, or nothing
 * relevant, is said plainly, with what to do instead: the demo never answers from memory.
 */
export function planPolicy(transcript: Transcript, intent: PolicyIntent): TurnPlan {
  const language = languageOf(transcript.question);
  const wording = WORDING[intent][language];
  const search = lastCall(transcript, TOOL.searchKnowledge);
  if (search === undefined) {
    if (!canCall(transcript, TOOL.searchKnowledge)) return { text: cannotHelp(language) };
    return {
      reasoning: wording.reasoning,
      calls: [{ name: TOOL.searchKnowledge, args: { query: searchQuery(transcript.question), topK: 5 } }],
    };
  }
  if (search.outcome.kind === 'failed') {
    const reason = search.outcome.message || (language === 'en' ? 'search error' : '检索出错');
    return {
      text:
        language === 'en'
          ? `The policy search did not work (${reason}). ${suggestHuman(language)}`
          : `规则检索没有成功（${reason}），${suggestHuman(language)}`,
    };
  }
  const evidence = search.outcome.kind === 'done' ? evidenceIn(search.outcome.value) : undefined;
  // Weak evidence is not quoted as if it answered: the demo says it found no reliable basis.
  if (evidence === undefined || evidence.lowEvidence) return { text: noReliableRule(language) };
  const clauses = selectClauses(evidence.hits, {
    question: questionProfile(rankingText(transcript.question)),
    families: familiesIn(transcript.question),
    max: MAX_CLAUSES,
  });
  const [first, ...rest] = evidenceLines(clauses);
  if (first === undefined) return { text: noReliableRule(language) };
  return {
    text: [
      `${wording.lead}${formatEvidence(first, language)}`,
      ...(rest.length > 0 ? [wording.more, ...rest.map((line) => evidenceBullet(line, language))] : []),
      wording.closing,
    ].join('\n'),
  };
}

/**
 * What to search for: the question as typed; for an English one, the Chinese words of the knowledge
 * it is about first (「退货 7 天 Can I return shoes after 7 days?」), so it finds Chinese clauses
 * whether or not the retriever understands English.
 */
export function searchQuery(question: string): string {
  const trimmed = question.trim();
  const terms = languageOf(trimmed) === 'en' ? chineseTermsOf(trimmed) : [];
  return [...terms, trimmed].join(' ').slice(0, QUERY_LIMIT);
}

/** The question as the clauses are ranked against it: with its Chinese key words when in English. */
export function rankingText(question: string): string {
  return languageOf(question) === 'en' ? `${chineseTermsOf(question).join(' ')} ${question}` : question;
}
