import { planCancel } from './cancel-flow.ts';
import { planHostTools } from './host-tool-flow.ts';
import { detectIntent } from './intent.ts';
import { languageOf } from './language.ts';
import { planPolicy } from './policy-flow.ts';
import { planStatus } from './status-flow.ts';
import { planSummary } from './summary.ts';
import type { Transcript } from './transcript.ts';
import { cannotHelp, type TurnPlan } from './turn-plan.ts';

/**
 * The next turn, from the shopper's question (intent by keyword rules) and the results so far. Host
 * tools come first: a question that names one or asks for what it does calls it, and its output is
 * answered from (`host-tool-flow.ts`); everything else is a NovaShop scenario, answered in the
 * shopper's language (`language.ts`).
 */
export function planTurn(transcript: Transcript): TurnPlan {
  const host = planHostTools(transcript);
  if (host !== undefined) return host;
  if (transcript.visibleTools.size === 0) return planSummary(transcript);
  const intent = detectIntent(transcript.question);
  switch (intent) {
    case 'cancel':
      return planCancel(transcript);
    case 'status':
      return planStatus(transcript);
    case 'return':
    case 'shipping':
    case 'size':
      return planPolicy(transcript, intent);
    case 'unknown':
      return { text: cannotHelp(languageOf(transcript.question)) };
  }
}
