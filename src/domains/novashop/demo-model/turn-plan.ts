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

export const SUGGEST_HUMAN = '为免说错，建议联系 NovaShop 人工客服确认。';
