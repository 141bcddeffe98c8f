import { defaultConfirmationCard, shownValue } from '../mcp/default-confirmation-card.ts';
import {
  type AnyTool,
  type ConfirmationRequest,
  hostToolValidator,
  type ToolContext,
} from '../runtime/index.ts';
import { type AnyAgentTool, type ConfirmationCard, inputJsonSchema, isZodSchema } from './tool.ts';

/**
 * An agent tool as the runtime runs it. Its input is validated by its zod schema, or by the zod
 * validator built from its JSON Schema (shown to the model as written). Approval: `needsApproval`
 * false is a read, true a write that always shows its card, a function a write whose calls ask it
 * first; absent, a read-only tool is a read and any other a write. The card is the tool's own
 * `confirmation`, else the default one (title, description, a labelled row per argument).
 */
export function compileAgentTool(definition: AnyAgentTool): AnyTool {
  const title = definition.title ?? definition.name;
  const jsonSchema = inputJsonSchema(definition.inputSchema);
  const parameters = isZodSchema(definition.inputSchema)
    ? definition.inputSchema
    : hostToolValidator({
        name: definition.name,
        description: definition.description,
        parameters: jsonSchema,
      }).schema;
  const approval = definition.needsApproval ?? definition.readOnly !== true;
  const { confirmation } = definition;
  return {
    name: definition.name,
    title,
    description: definition.description,
    parameters,
    ...(isZodSchema(definition.inputSchema) ? {} : { inputSchema: jsonSchema }),
    effect: approval === false ? 'read' : 'write',
    ...(typeof approval === 'function'
      ? {
          needsApproval: async (args: unknown, context: ToolContext) =>
            (await approval(args, context)) === true,
        }
      : {}),
    ...(approval === false
      ? {}
      : {
          confirm: async (args: unknown, context: ToolContext): Promise<ConfirmationRequest> =>
            confirmation === undefined
              ? defaultConfirmationCard(
                  { title, description: definition.description, inputSchema: jsonSchema },
                  args,
                )
              : confirmationRequestOf(definition.name, await confirmation(args, context)),
        }),
    ...(definition.timeoutMs === undefined ? {} : { timeoutMs: definition.timeoutMs }),
    ...(definition.requiresSkill === undefined ? {} : { requiresSkill: definition.requiresSkill }),
    execute: async (args: unknown, context: ToolContext) => definition.execute(args, context),
  };
}

/** The author's card as the runtime shows it; a card that is not one fails the call, saying why. */
function confirmationRequestOf(tool: string, card: ConfirmationCard): ConfirmationRequest {
  const fields = (card as Partial<ConfirmationCard> | undefined)?.fields ?? [];
  if (
    card === null ||
    typeof card !== 'object' ||
    typeof card.title !== 'string' ||
    typeof card.description !== 'string' ||
    !Array.isArray(fields) ||
    !fields.every((field) => field !== null && typeof field === 'object' && typeof field.label === 'string')
  )
    throw new Error(
      `the confirmation of tool ${tool} did not return a card ({ title, description, fields: [{ label, value }] })`,
    );
  return {
    title: card.title,
    description: card.description,
    details: fields.map((field) => ({ label: field.label, value: shownValue(field.value) })),
  };
}
