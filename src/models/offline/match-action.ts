import type { ToolDefinition } from '../chat-model.ts';
import { isRecord } from './read-run.ts';
import {
  actionsIn,
  foldName,
  hasIdentifier,
  sharedTerms,
  termsOf,
  tokensOf,
  withoutActions,
} from './text-terms.ts';

/**
 * Which tool, or which skill's handbook, a message asks for. The rules are small on purpose, so a
 * person can predict what the offline model does with a sentence:
 *
 * - A text's actions (取消 / cancel, 查询 / check, 预约 / book …, `text-terms.ts`) and content terms
 *   (Chinese bigrams, English words; not numbers) are read from the message and from the tool (its name,
 *   description and its arguments' titles and descriptions) or the skill (its name and description).
 * - A message that asks for a change (cancel, create, change, delete, refund, send, pay) matches only
 *   a tool that performs that change and shares a content term with it: 取消维修单 R-1001 matches
 *   「取消维修预约」, never 「查询维修单进度」.
 * - A message that asks to look something up (查询, 进度, check, status) matches a tool that looks
 *   things up or says no action, sharing a content term.
 * - A message that asks for no action matches a tool that says no action (「Current weather for a
 *   city」) sharing a content term, and a look-up tool only when it names something by an identifier
 *   (R-1001): 维修一般要多久 is a question for the knowledge, not for 「查询维修单」.
 * - A message that contains the tool's name (`cancel_repair`) matches it.
 *
 * The score: 10 for the name, 3 per shared action, 1 per shared term, 1 more when an identifier of
 * the message fits one of the tool's argument patterns. The best score wins; ties go to the order
 * the tools are offered in.
 */

export const LOAD_SKILL = 'load_skill';
export const SEARCH_KNOWLEDGE = 'search_knowledge';

const CHANGES = new Set(['cancel', 'create', 'change', 'delete', 'refund', 'send', 'pay']);

export interface SkillEntry {
  name: string;
  description: string;
}

/** The offered tool the message asks for (not `load_skill` or `search_knowledge`), if any. */
export function toolFor(
  message: string,
  tools: readonly ToolDefinition[],
): { tool: ToolDefinition; score: number } | undefined {
  let best: { tool: ToolDefinition; score: number } | undefined;
  for (const tool of tools) {
    if (tool.name === LOAD_SKILL || tool.name === SEARCH_KNOWLEDGE) continue;
    const score = matchScore(message, toolText(tool), tool.name, patternsOf(tool.parameters));
    if (score > 0 && (best === undefined || score > best.score)) best = { tool, score };
  }
  return best;
}

/** The skill whose description the message matches best, from the `load_skill` tool's catalogue. */
export function skillFor(
  message: string,
  loadSkill: ToolDefinition,
): { skill: SkillEntry; score: number } | undefined {
  let best: { skill: SkillEntry; score: number } | undefined;
  for (const skill of skillsIn(loadSkill)) {
    const score = matchScore(message, `${foldName(skill.name)} ${skill.description}`, skill.name, []);
    if (score > 0 && (best === undefined || score > best.score)) best = { skill, score };
  }
  return best;
}

/**
 * The skills `load_skill` offers: its `name` enum, each with the `name: description` line of its
 * description (`src/runtime/agent/load-skill.ts` writes one line per skill after the first).
 */
export function skillsIn(loadSkill: ToolDefinition): SkillEntry[] {
  const lines = loadSkill.description.split('\n').slice(1);
  const properties = isRecord(loadSkill.parameters.properties) ? loadSkill.parameters.properties : {};
  const nameSchema = isRecord(properties.name) ? properties.name : {};
  const names = Array.isArray(nameSchema.enum)
    ? nameSchema.enum.filter((name): name is string => typeof name === 'string')
    : lines.flatMap((line) => /^([^:\s]+):/.exec(line)?.[1] ?? []);
  return names.map((name) => ({
    name,
    description:
      lines
        .find((line) => line.startsWith(`${name}:`))
        ?.slice(name.length + 1)
        .trim() ?? '',
  }));
}

/** 0 when the message does not ask for what the text describes; else the score (rules above). */
export function matchScore(message: string, text: string, name: string, patterns: readonly RegExp[]): number {
  const named = mentionsName(message, name) ? 10 : 0;
  const asked = actionsIn(message);
  const offered = actionsOffered(text);
  const actions = [...asked].filter((action) => offered.has(action));
  const terms = sharedTerms(
    termsOf(withoutActions(message), { numbers: false }),
    termsOf(withoutActions(text), { numbers: false }),
  );
  const fits = tokensOf(message).some((token) => patterns.some((pattern) => pattern.test(token))) ? 1 : 0;
  const score = named + actions.length * 3 + terms.length + fits;
  if (named > 0) return score;
  if (terms.length === 0) return 0;
  const askedChanges = [...asked].filter((action) => CHANGES.has(action));
  if (askedChanges.length > 0) return askedChanges.some((action) => offered.has(action)) ? score : 0;
  const offeredChanges = [...offered].some((action) => CHANGES.has(action));
  if (offeredChanges) return 0;
  if (asked.size > 0 || offered.size === 0) return score;
  // No action asked of a look-up tool: only for something the message names by its identifier.
  return hasIdentifier(message) ? score : 0;
}

/**
 * What a tool or skill does: the actions of its name and first sentence (「取消客户本人的一张维修单。」),
 * where a description says what it is for; the rest of it lists states and cases (「已取消的维修单会被
 * 拒绝」) that are not what it does. A status (已取消, 已完成) is never an action. The whole text
 * counts only when its opening names no action.
 */
export function actionsOffered(text: string): Set<string> {
  const states = text.replace(/已(?:经)?[\p{Script=Han}]{2}/gu, ' ');
  const opening = states.split(/[。.;；:：\n!?！？]/)[0] ?? '';
  const actions = actionsIn(opening);
  return actions.size > 0 ? actions : actionsIn(states);
}

/** What the model reads of a tool: its name, description and its arguments' titles and descriptions. */
function toolText(tool: ToolDefinition): string {
  const properties = isRecord(tool.parameters.properties) ? tool.parameters.properties : {};
  const about = Object.values(properties).flatMap((property) =>
    isRecord(property)
      ? [property.title, property.description].filter((text): text is string => typeof text === 'string')
      : [],
  );
  return [foldName(tool.name), tool.description, ...about].join(' ');
}

/** The `pattern`s of a schema's top-level string arguments (those that compile). */
export function patternsOf(schema: Record<string, unknown>): RegExp[] {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  return Object.values(properties).flatMap((property) => {
    if (!isRecord(property) || typeof property.pattern !== 'string') return [];
    try {
      return [new RegExp(property.pattern, 'u')];
    } catch {
      return [];
    }
  });
}

/** The message contains the name (`cancel_repair`, `cancelRepair`, `cancel-repair`), standing alone. */
function mentionsName(message: string, name: string): boolean {
  const parts = foldName(name).split(' ').filter(Boolean);
  // A one-word name (`weather`) is an ordinary word: a message using it does not name the tool.
  if (parts.length < 2) return false;
  const escaped = parts.map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`(?<![A-Za-z0-9])${escaped.join('[_\\-\\s]*')}(?![A-Za-z0-9])`, 'i').test(message);
}
