import { z } from 'zod';
import { hostToolValidator, type ToolContext } from '../runtime/index.ts';
import { AgentDefinitionError, type DefinitionPlace } from './agent-definition-error.ts';

/** What a tool's name may be: a function name every model API accepts, starting with a letter. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/;

/** A plain JSON Schema for a tool's input: an object schema, as the model is shown it. */
export interface JsonSchemaObject {
  type: 'object';
  properties?: Record<string, unknown>;
  required?: readonly string[];
  [keyword: string]: unknown;
}

/** What a confirmation card shows before a tool that needs approval runs: the action and its object. */
export interface ConfirmationCard {
  /** The action, e.g. 预约上门维修. */
  title: string;
  /** The object in a sentence, e.g. 洗衣机 WM-2000，序列号 SN123. */
  description: string;
  fields: { label: string; value: string }[];
}

/**
 * A tool an agent may call, as its author defines it (`tool()`). Its input is validated against
 * `inputSchema` (a zod schema, or a plain JSON Schema) before anything else sees it.
 */
export interface AgentTool<Input = unknown, Output = unknown> {
  /** The name the model calls, e.g. `book_repair`: a letter, then letters, digits, `_` or `-` (64 at most). */
  name: string;
  /** What a person reads on the tool row, e.g. 预约维修; default the name. */
  title?: string;
  /** What the model reads to decide when to call it. */
  description: string;
  inputSchema: z.ZodType<Input> | JsonSchemaObject;
  execute(input: Input, context: ToolContext): Output | Promise<Output>;
  /** It only reads (MCP's `readOnlyHint`); default false. */
  readOnly?: boolean;
  /**
   * Whether a call waits for the person's approval on a card; default `!readOnly` (tools that write
   * need approval). A function decides per call, from the input (e.g. only refunds above an amount).
   */
  needsApproval?: boolean | ((input: Input, context: ToolContext) => boolean | Promise<boolean>);
  /**
   * The card a call that needs approval shows; it may look things up, and may throw a `ToolError`
   * to refuse before any card. Without it the card shows the tool's title and description and one
   * row per argument, labelled by the argument's schema `title` or `description`.
   */
  confirmation?(input: Input, context: ToolContext): ConfirmationCard | Promise<ConfirmationCard>;
  /** The tool stays hidden from the model until the skill of this name is loaded. */
  requiresSkill?: string;
  /** Milliseconds a call may take; default 30 000. */
  timeoutMs?: number;
}

/** Any agent tool, whatever its input and output types, as an agent's list holds them. */
// biome-ignore lint/suspicious/noExplicitAny: a list holds tools of every input type.
export type AnyAgentTool = AgentTool<any, unknown>;

type ToolFields<Input, Output> = Omit<AgentTool<Input, Output>, 'inputSchema'>;

/**
 * Define a tool. It returns the definition as it is, typed and checked: with a zod `inputSchema` the
 * input's type is inferred from it; with a plain JSON Schema it is `unknown` unless given as the
 * first type parameter (`tool<{ serial: string }>({ … })`). A bad definition throws an
 * `AgentDefinitionError`.
 */
export function tool<Schema extends z.ZodType, Output>(
  definition: ToolFields<z.output<Schema>, Output> & { inputSchema: Schema },
): AgentTool<z.output<Schema>, Output>;
export function tool<Input = unknown, Output = unknown>(
  definition: ToolFields<Input, Output> & { inputSchema: JsonSchemaObject },
): AgentTool<Input, Output>;
/** A tool made already (to copy one with changes: `tool({ ...bookRepair, name: 'rebook' })`). */
export function tool<Input, Output>(definition: AgentTool<Input, Output>): AgentTool<Input, Output>;
export function tool(definition: AnyAgentTool): AnyAgentTool {
  checkAgentTool(definition);
  return definition;
}

const KNOWN_KEYS = new Set([
  'name',
  'title',
  'description',
  'inputSchema',
  'execute',
  'readOnly',
  'needsApproval',
  'confirmation',
  'requiresSkill',
  'timeoutMs',
]);

/**
 * Check a tool definition, whoever made it (`tool()`, a module of an agent folder's tools/ that
 * default-exports a plain object): every field of the right kind, no unknown field (a misspelt
 * `needsApproval` must not silently leave a write unguarded), a schema a model can be shown.
 */
export function checkAgentTool(value: unknown, place: DefinitionPlace = {}): asserts value is AnyAgentTool {
  if (!isRecord(value)) throw new AgentDefinitionError('a tool must be an object made with tool()', place);
  const named = typeof value.name === 'string' ? `tool ${value.name}` : 'a tool';
  const fail = (what: string): never => {
    throw new AgentDefinitionError(`${named}: ${what}`, place);
  };
  if (typeof value.name !== 'string' || !TOOL_NAME_PATTERN.test(value.name))
    fail(
      `the name ${JSON.stringify(value.name)} must start with a letter and have at most 64 letters, digits, _ or -`,
    );
  for (const key of Object.keys(value))
    if (!KNOWN_KEYS.has(key)) fail(`unknown field "${key}" (known: ${[...KNOWN_KEYS].join(', ')})`);
  if (typeof value.description !== 'string' || value.description.trim() === '')
    fail('needs a description (what the model reads to decide when to call it)');
  if (value.title !== undefined && (typeof value.title !== 'string' || value.title.trim() === ''))
    fail('title must be a non-empty string');
  if (typeof value.execute !== 'function') fail('execute must be a function');
  if (value.readOnly !== undefined && typeof value.readOnly !== 'boolean')
    fail('readOnly must be true or false');
  if (
    value.needsApproval !== undefined &&
    typeof value.needsApproval !== 'boolean' &&
    typeof value.needsApproval !== 'function'
  )
    fail('needsApproval must be true, false or a function of the input');
  if (value.confirmation !== undefined && typeof value.confirmation !== 'function')
    fail('confirmation must be a function that returns the card');
  if (
    value.requiresSkill !== undefined &&
    (typeof value.requiresSkill !== 'string' || value.requiresSkill === '')
  )
    fail('requiresSkill must be a skill name');
  if (
    value.timeoutMs !== undefined &&
    (typeof value.timeoutMs !== 'number' || !Number.isInteger(value.timeoutMs) || value.timeoutMs <= 0)
  )
    fail('timeoutMs must be a positive whole number of milliseconds');
  checkInputSchema(value.inputSchema, value.name as string, fail);
}

/** True for a zod 4 schema (from this copy of zod or another one: the check is structural). */
export function isZodSchema(value: unknown): value is z.ZodType {
  return isRecord(value) && '_zod' in value && typeof value.safeParse === 'function';
}

/** The JSON Schema the model is shown for an agent tool's input, without the `$schema` keyword. */
export function inputJsonSchema(schema: z.ZodType | JsonSchemaObject): Record<string, unknown> {
  const json = isZodSchema(schema)
    ? (z.toJSONSchema(schema, { target: 'draft-7' }) as Record<string, unknown>)
    : { ...schema };
  delete json.$schema;
  return json;
}

function checkInputSchema(schema: unknown, name: string, fail: (what: string) => never): void {
  if (isZodSchema(schema)) {
    const json = (() => {
      try {
        return inputJsonSchema(schema);
      } catch (error) {
        return fail(
          `its zod inputSchema cannot be shown to a model as JSON Schema (${error instanceof Error ? error.message : String(error)})`,
        );
      }
    })();
    if (json.type !== 'object') fail('its inputSchema must describe an object (z.object({ … }))');
    return;
  }
  if (!isRecord(schema))
    fail('needs an inputSchema: a zod schema (z.object({ … })) or a JSON Schema ({ "type": "object", … })');
  const json = schema as Record<string, unknown>;
  if ('_def' in json || 'safeParse' in json)
    fail('its inputSchema looks like a zod 3 schema; use zod 4 or a plain JSON Schema');
  if (json.type !== 'object') fail('its JSON Schema inputSchema must have "type": "object"');
  if (json.properties !== undefined && !isRecord(json.properties))
    fail('its JSON Schema inputSchema has "properties" that is not an object');
  const validator = hostToolValidator({ name, description: '', parameters: json });
  if (validator.note !== undefined) fail(`its JSON Schema inputSchema cannot be used: ${validator.note}`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
