import type { ChatRequest, ToolDefinition } from '../chat-model.ts';
import { describeResult } from './describe-result.ts';
import { fitArguments, withoutGreeting } from './fit-arguments.ts';
import { LOAD_SKILL, SEARCH_KNOWLEDGE, skillFor, toolFor } from './match-action.ts';
import { answerLanguage, citationNote, type OfflineLanguage } from './offline-language.ts';
import * as phrase from './offline-phrases.ts';
import { evidenceIn, type QuotedLine, quoteEvidence } from './quote-evidence.ts';
import { isRecord, type MadeCall, type RunView, readRun } from './read-run.ts';
import { hasIdentifier, isHowTo, isQuestion, isSmallTalk, termsOf } from './text-terms.ts';

/** What the offline model does in one turn, before it is cut into stream parts. */
export interface TurnPlan {
  reasoning?: string;
  /** The answer text, streamed after the reasoning and before any tool call. */
  text?: string;
  call?: { name: string; args: Record<string, unknown> };
}

/** Quoted clauses per answer. */
const MAX_CLAUSES = 3;
const DEFAULT_QUERY_LENGTH = 200;

/**
 * The next step of the run, from the request alone (no memory between calls):
 *
 * 1. A tool answered this run's last call: answer from it. `search_knowledge` → the best clauses
 *    quoted with their citations, or "no reliable basis" when `lowEvidence` is set or nothing is
 *    quotable; any other tool → its `message`, else its fields; rejected → not carried out; an error
 *    → what failed. A `load_skill` result → step 4 again, with the tools it unlocked (no other skill).
 * 2. Greetings, thanks, 「你是谁」 → a short greeting that says what the agent can do.
 * 3. A how-to question (怎么取消…, how do I…) that names nothing by an identifier, with
 *    `search_knowledge` offered → search: it asks for an explanation, not the deed.
 * 4. An action (`match-action.ts`): the offered tool the message asks for, called with arguments
 *    fitted from the message (`fit-arguments.ts`), or, when a required one is missing, a question
 *    for it; or, when a skill's description matches better and no skill was loaded in this run,
 *    `load_skill` first. A reply that only completes the previous message (「R-1001」 after
 *    「取消维修单」) is read together with it.
 * 5. A question about something, or a message of a few words → `search_knowledge` with the message
 *    as query; with no search offered, say there is nothing to look it up in.
 * 6. Anything else → ask the user to say what they want.
 *
 * The answer is in the agent's language unless the message is clearly in the other one.
 */
export function planOfflineTurn(request: ChatRequest, agentLanguage: OfflineLanguage): TurnPlan {
  const run = readRun(request);
  const language = answerLanguage(run.message, agentLanguage);
  const last = run.calls.at(-1);
  if (last !== undefined && last.name !== LOAD_SKILL) return answerFrom(last, run, language);
  if (last !== undefined) {
    if (last.outcome.kind === 'failed' || last.outcome.kind === 'rejected') {
      const reason = last.outcome.message || (last.outcome.kind === 'failed' ? last.outcome.code : '');
      return { text: phrase.skillFailed(language, reason || LOAD_SKILL) };
    }
    return planAction(run, language, false) ?? { text: phrase.cannotDo(language) };
  }
  const message = run.message.trim();
  const search = run.tools.find((tool) => tool.name === SEARCH_KNOWLEDGE);
  if (message === '' || isSmallTalk(message)) {
    return {
      text: phrase.greeting(language, {
        knowledge: search !== undefined,
        actions: run.tools.some((tool) => tool.name !== SEARCH_KNOWLEDGE),
      }),
    };
  }
  if (search !== undefined && isHowTo(message) && !hasIdentifier(message)) {
    return searchPlan(search, message, language);
  }
  const action = planAction(run, language, true);
  if (action !== undefined) return action;
  const terms = termsOf(message).size;
  if (terms >= 2 || (terms === 1 && isQuestion(message))) {
    return search === undefined
      ? { text: phrase.nothingToSearch(language) }
      : searchPlan(search, message, language);
  }
  return { text: phrase.notUnderstood(language) };
}

/**
 * `search_knowledge` with the message as the query (its greeting left out, cut to the schema's
 * `maxLength`). Only the query: a number in the question (7 天) is not how many hits to return.
 */
function searchPlan(search: ToolDefinition, message: string, language: OfflineLanguage): TurnPlan {
  const question = withoutGreeting(message);
  const properties = isRecord(search.parameters.properties) ? search.parameters.properties : {};
  const query = isRecord(properties.query) ? properties.query : {};
  const maxLength = typeof query.maxLength === 'number' ? query.maxLength : DEFAULT_QUERY_LENGTH;
  return {
    reasoning: phrase.searchReasoning(language, question),
    call: { name: SEARCH_KNOWLEDGE, args: { query: Array.from(question).slice(0, maxLength).join('') } },
  };
}

/**
 * The tool the message asks for (or the skill to load first), with its arguments or a question for
 * the missing ones; undefined when the message asks for no action an offered tool or skill performs.
 */
function planAction(run: RunView, language: OfflineLanguage, mayLoadSkill: boolean): TurnPlan | undefined {
  const loadSkill = mayLoadSkill ? run.tools.find((tool) => tool.name === LOAD_SKILL) : undefined;
  for (const text of readings(run)) {
    const tool = toolFor(text, run.tools);
    const skill = loadSkill === undefined ? undefined : skillFor(text, loadSkill);
    if (skill !== undefined && (tool === undefined || skill.score > tool.score)) {
      return {
        reasoning: phrase.loadSkillReasoning(language, skill.skill.name),
        call: { name: LOAD_SKILL, args: { name: skill.skill.name } },
      };
    }
    if (tool === undefined) continue;
    const fitted = fitArguments(tool.tool.parameters, text);
    if (fitted.missing.length > 0) {
      const labels = fitted.missing.map((missing) => missing.label);
      return {
        reasoning: phrase.missingReasoning(language, tool.tool.name, labels),
        text: phrase.askMissing(language, labels),
      };
    }
    return {
      reasoning: phrase.callReasoning(language, tool.tool.name, JSON.stringify(fitted.args)),
      call: { name: tool.tool.name, args: fitted.args },
    };
  }
  return undefined;
}

/**
 * The texts an action is looked for in: the message, then, for a reply that asks nothing (「R-1001」,
 * 「明天下午」), the message with the one before it, the reply first so its values win.
 */
function readings(run: RunView): string[] {
  const message = run.message.trim();
  const previous = run.previousMessage?.trim();
  if (previous === undefined || previous === '' || isQuestion(message) || isSmallTalk(message))
    return [message];
  return [message, `${message} ${previous}`];
}

function answerFrom(call: MadeCall, run: RunView, language: OfflineLanguage): TurnPlan {
  const outcome = call.outcome;
  switch (outcome.kind) {
    case 'missing':
      return { text: phrase.noResult(language) };
    case 'rejected':
      return { text: phrase.rejected(language) };
    case 'failed': {
      const reason = outcome.message || outcome.code;
      return {
        text:
          call.name === SEARCH_KNOWLEDGE
            ? phrase.searchFailed(language, reason)
            : phrase.failed(language, reason),
      };
    }
    case 'done':
      if (call.name !== SEARCH_KNOWLEDGE) return { text: describeResult(outcome.value, language) };
      return { text: answerFromEvidence(outcome.value, run.message, language) };
  }
}

function answerFromEvidence(value: unknown, question: string, language: OfflineLanguage): string {
  const evidence = evidenceIn(value);
  // Weak evidence is not quoted as if it answered: say there is no reliable basis.
  if (evidence === undefined || evidence.lowEvidence || evidence.hits.length === 0)
    return phrase.noBasis(language);
  const [first, ...rest] = quoteEvidence(evidence.hits, question, MAX_CLAUSES);
  if (first === undefined) return phrase.noBasis(language);
  return [
    `${phrase.evidenceLead(language)}${quoted(first, language)}`,
    ...(rest.length > 0
      ? [phrase.evidenceMore(language), ...rest.map((line) => `- ${quoted(line, language)}`)]
      : []),
  ].join('\n');
}

/** `…不能直接取消。（来源：knowledge/policies/order-changes.md#L21）` */
function quoted(line: QuotedLine, language: OfflineLanguage): string {
  return `${line.text}${citationNote(language, line.citations)}`;
}
