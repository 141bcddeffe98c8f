import { defaultConfirmationCard } from '../mcp/default-confirmation-card.ts';
import type { AnyTool, ConfirmationRequest } from '../runtime/index.ts';
import { toolJsonSchema } from '../runtime/tools/tool-schema-hash.ts';
import type { CardSettings, ToolSettings } from './agent.ts';
import { fillTemplate } from './card-template.ts';

export interface ToolAdjustments {
  settings?: Readonly<ToolSettings>;
  /** The skill that unlocks it (from the skills' lists, its settings or its own definition). */
  requiresSkill?: string;
  /**
   * Its `confirm` is the author's own card (a TS tool's `confirmation`), not the default one: a new
   * title then leaves it alone, while a default card is made again with the new title.
   */
  ownCard: boolean;
}

/**
 * A tool with the agent's settings applied, the same for its own tools and MCP tools: the title a
 * person reads, whether calls need approval (false: a read, no card; true: every call shows its
 * card), the skill that unlocks it, and the card templated over the call's input.
 */
export function applyToolSettings(tool: AnyTool, adjustments: ToolAdjustments): AnyTool {
  const { settings = {}, requiresSkill, ownCard } = adjustments;
  const adjusted: AnyTool = { ...tool };
  if (settings.title !== undefined) adjusted.title = settings.title;
  if (requiresSkill !== undefined) adjusted.requiresSkill = requiresSkill;
  if (settings.needsApproval === false) {
    adjusted.effect = 'read';
    delete adjusted.confirm;
    delete adjusted.needsApproval;
    return adjusted;
  }
  if (settings.needsApproval === true) {
    adjusted.effect = 'write';
    delete adjusted.needsApproval;
  }
  if (adjusted.effect !== 'write') return adjusted;
  const defaultCard = (args: unknown): ConfirmationRequest =>
    defaultConfirmationCard(
      { title: adjusted.title, description: adjusted.description, inputSchema: toolJsonSchema(tool) },
      args,
    );
  if (settings.card !== undefined) {
    const card = settings.card;
    adjusted.confirm = async (args: unknown) => templatedCard(card, args, defaultCard(args));
  } else if (!ownCard || adjusted.confirm === undefined) {
    adjusted.confirm = async (args: unknown) => defaultCard(args);
  }
  return adjusted;
}

/** The settings' card over the call's input; what it leaves out comes from the default card. */
function templatedCard(
  card: CardSettings,
  args: unknown,
  fallback: ConfirmationRequest,
): ConfirmationRequest {
  return {
    title: card.title === undefined ? fallback.title : fillTemplate(card.title, args).text,
    description:
      card.description === undefined ? fallback.description : fillTemplate(card.description, args).text,
    details:
      card.fields === undefined
        ? fallback.details
        : card.fields.flatMap((field) => {
            const value = fillTemplate(field.value, args);
            // A row for an optional argument the call left out would show a label and nothing.
            return value.empty ? [] : [{ label: field.label, value: value.text }];
          }),
  };
}
