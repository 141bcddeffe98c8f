import { z } from 'zod';

/**
 * A host tool: a tool the caller declares with its run and executes itself (a CLI reading a local
 * file, an IDE plugin). The model sees it next to the server's tools; when the model calls it the run
 * pauses (`run.paused` with reason `tool_result`) until the host submits the result.
 */
export interface HostToolDefinition {
  /** The function name the model calls; letters, digits, `_` and `-`, at most 64. */
  name: string;
  description: string;
  /** A JSON Schema for the arguments, as the model sees it. */
  parameters: Record<string, unknown>;
}

/** Function names every OpenAI-compatible model API accepts. */
export const HOST_TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
/** Host tools one run may declare. */
export const MAX_HOST_TOOLS = 128;

export const HostToolDefinitionSchema = z.object({
  name: z
    .string()
    .regex(HOST_TOOL_NAME_PATTERN, 'a tool name has 1 to 64 letters, digits, underscores or hyphens'),
  description: z.string().max(16_384),
  parameters: z.record(z.string(), z.unknown()),
});

export type HostArgsValidation = { success: true; data: unknown } | { success: false; error: string };

/** Checks a host tool call's arguments against the tool's JSON Schema. */
export interface HostToolValidator {
  readonly definition: HostToolDefinition;
  /** The zod schema built from `definition.parameters` (or the any-object fallback). */
  readonly schema: z.ZodType;
  /** False when the JSON Schema could not be converted and any object is accepted instead. */
  readonly exact: boolean;
  /** Why the schema could not be converted, when it could not. */
  readonly note?: string;
  validate(args: unknown): HostArgsValidation;
}

const ANY_OBJECT = z.record(z.string(), z.unknown());

/**
 * A validator for a host tool's arguments, built with `z.fromJSONSchema`. A schema zod cannot convert
 * (an unresolvable `$ref`, an unknown keyword it refuses) does not refuse the tool: any JSON object is
 * accepted instead and `note` says why, since the host checks its own arguments anyway.
 */
export function hostToolValidator(definition: HostToolDefinition): HostToolValidator {
  let schema: z.ZodType = ANY_OBJECT;
  let note: string | undefined;
  try {
    schema = z.fromJSONSchema(definition.parameters as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (error) {
    note = `the JSON Schema of tool ${definition.name} could not be converted (${
      error instanceof Error ? error.message : String(error)
    }); any JSON object is accepted as its arguments`;
  }
  return {
    definition,
    schema,
    exact: note === undefined,
    ...(note === undefined ? {} : { note }),
    validate(args) {
      let parsed: ReturnType<z.ZodType['safeParse']>;
      try {
        parsed = schema.safeParse(args);
      } catch (error) {
        // A converted schema may still hold something zod cannot run synchronously (an async refine).
        return { success: false, error: error instanceof Error ? error.message : String(error) };
      }
      return parsed.success
        ? { success: true, data: parsed.data }
        : { success: false, error: z.prettifyError(parsed.error) };
    },
  };
}

/** What the host sent back for one of its calls: the output text, or an error instead. */
export type ToolResultSubmission =
  | { toolCallId: string; output: string }
  | { toolCallId: string; error: string };
