import { inLanguage, type Language } from './language.ts';
import type { MadeCall, Transcript } from './transcript.ts';

/** What the demo model does in one turn, before it is cut into stream parts. */
export interface TurnPlan {
  reasoning?: string;
  /** The answer text, streamed after the reasoning and before any tool call. */
  text?: string;
  calls?: PlannedCall[];
}

export interface PlannedCall {
  name: string;
  args: Record<string, unknown>;
}

export const TOOL = {
  loadSkill: 'load_skill',
  queryOrder: 'query_order',
  cancelOrder: 'cancel_order',
  searchKnowledge: 'search_knowledge',
} as const;

export const ORDER_CHANGE_SKILL = 'order-change';
export const RECENT_ORDERS = 10;

export function lastCall(transcript: Transcript, name: string): MadeCall | undefined {
  const named = callsNamed(transcript, name);
  return named[named.length - 1];
}

export function callsNamed(transcript: Transcript, name: string): MadeCall[] {
  return transcript.calls.filter((call) => call.name === name);
}

export function canCall(transcript: Transcript, name: string): boolean {
  return transcript.visibleTools.has(name);
}

/** The polite refusal for anything outside the demo's scenarios. */
export const CANNOT_HELP =
  '抱歉，这个问题我暂时帮不上忙。我是 NovaShop 的购物助手，可以帮你查订单、取消还没发货的订单，' +
  '或者解答退货、退款、配送和尺码方面的问题。';

const CANNOT_HELP_EN =
  "Sorry, I can't help with that one. I'm NovaShop's shopping assistant: I can look up your orders, " +
  "cancel an order that hasn't shipped yet, and answer questions about returns, refunds, shipping and sizes.";

export const SUGGEST_HUMAN = '为免说错，建议联系 NovaShop 人工客服确认。';

const SUGGEST_HUMAN_EN = "To be safe, please check with NovaShop's customer service team.";

export function cannotHelp(language: Language): string {
  return inLanguage(language, CANNOT_HELP, CANNOT_HELP_EN);
}

export function suggestHuman(language: Language): string {
  return inLanguage(language, SUGGEST_HUMAN, SUGGEST_HUMAN_EN);
}

/**
 * What the demo says when `search_knowledge` found nothing reliable (`lowEvidence`) or nothing that
 * answers: that it will not guess, and what the shopper can do instead.
 */
export function noReliableRule(language: Language): string {
  return inLanguage(
    language,
    '我没有在 NovaShop 现有的规则里找到能可靠回答这个问题的条款，为免说错就不猜了。' +
      '你可以换个说法再问（比如带上商品名或具体情况），或者联系 NovaShop 人工客服确认。',
    "I couldn't find a reliable basis for this in NovaShop's rules, so I won't guess. " +
      "You could rephrase the question (for example with the product name or your situation), or check with NovaShop's customer service team.",
  );
}
