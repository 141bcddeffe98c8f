import { RUN_MESSAGES, type RunMessages } from '../runtime/agent/run-messages.ts';
import type { AgentConfig, AgentUi, ToolSettings } from './agent.ts';
import { AgentDefinitionError, type DefinitionPlace } from './agent-definition-error.ts';
import { parseJsonWithLines } from './json-with-lines.ts';

/** The shape of a JSON value agent.json allows. */
type Shape =
  | 'string'
  | 'boolean'
  | 'positive integer'
  | { list: Shape }
  | { fields: Readonly<Record<string, Shape>> }
  /** An object of any keys (tool names), each of one shape. */
  | { entries: Shape };

const CARD: Shape = {
  fields: {
    title: 'string',
    description: 'string',
    fields: { list: { fields: { label: 'string', value: 'string' } } },
  },
};

const AGENT_JSON: Shape = {
  fields: {
    // Editors add it to point at a schema; it means nothing to the agent.
    $schema: 'string',
    id: 'string',
    name: 'string',
    description: 'string',
    language: 'string',
    model: 'string',
    maxSteps: 'positive integer',
    ui: { fields: { title: 'string', greeting: 'string', examples: { list: 'string' } } },
    knowledge: { fields: { description: 'string' } },
    messages: { fields: Object.fromEntries(Object.keys(RUN_MESSAGES.en).map((key) => [key, 'string'])) },
    tools: {
      entries: {
        fields: { title: 'string', needsApproval: 'boolean', requiresSkill: 'string', card: CARD },
      },
    },
  },
};

/** What agent.json gives `defineAgent`, and where each part was written. */
export interface AgentJson {
  config: Pick<
    AgentConfig,
    'id' | 'name' | 'description' | 'language' | 'modelName' | 'maxSteps' | 'messages' | 'ui' | 'toolSettings'
  >;
  /** `knowledge.description`: only meaningful with a knowledge/ folder. */
  knowledgeDescription?: string;
  /** Whether agent.json has a `knowledge` entry (and its place). */
  knowledgePlace?: DefinitionPlace;
  /** By `defineAgent`'s keys: `id`, `ui.title`, `messages.<key>`, `toolSettings.<tool>`, `agent`. */
  places: Record<string, DefinitionPlace>;
}

/**
 * Read agent.json: JSON with the line of every key, each key known (an unknown one, anywhere, is an
 * `AgentDefinitionError` at its line: a misspelt `needsApproval` must not leave a write unguarded)
 * and each value of its kind. `tools` becomes `toolSettings`, `model` becomes `modelName`.
 */
export function parseAgentJson(text: string, file: string): AgentJson {
  const { value, lines } = parseJsonWithLines(text, file);
  const placeOf = (path: string): DefinitionPlace => {
    const line = lines.get(path);
    return line === undefined ? { file } : { file, line };
  };
  check(value, AGENT_JSON, '', (what, path) => new AgentDefinitionError(what, placeOf(path)));
  const json = value as Record<string, unknown>;
  const places: Record<string, DefinitionPlace> = { agent: { file } };
  for (const path of lines.keys()) {
    if (path === '') continue;
    // agent.json's `tools` are defineAgent's `toolSettings`, its `model` the `modelName`.
    const key = path.replace(/^tools(?=\.|$)/, 'toolSettings').replace(/^model$/, 'modelName');
    places[key] = placeOf(path);
  }
  const knowledge = json.knowledge as { description?: string } | undefined;
  const config: AgentJson['config'] = {
    id: json.id as string,
    name: json.name as string,
    ...(json.description === undefined ? {} : { description: json.description as string }),
    ...(json.language === undefined
      ? {}
      : { language: json.language as NonNullable<AgentConfig['language']> }),
    ...(json.model === undefined ? {} : { modelName: json.model as string }),
    ...(json.maxSteps === undefined ? {} : { maxSteps: json.maxSteps as number }),
    ...(json.messages === undefined ? {} : { messages: json.messages as Partial<RunMessages> }),
    ...(json.ui === undefined ? {} : { ui: json.ui as AgentUi }),
    ...(json.tools === undefined ? {} : { toolSettings: json.tools as Record<string, ToolSettings> }),
  };
  for (const required of ['id', 'name'] as const)
    if (json[required] === undefined)
      throw new AgentDefinitionError(`needs "${required}"`, { file, line: 1 });
  return {
    config,
    ...(knowledge?.description === undefined ? {} : { knowledgeDescription: knowledge.description }),
    ...(knowledge === undefined ? {} : { knowledgePlace: placeOf('knowledge') }),
    places,
  };
}

function check(
  value: unknown,
  shape: Shape,
  path: string,
  problem: (what: string, path: string) => AgentDefinitionError,
): void {
  const name = path === '' ? 'agent.json' : `"${path}"`;
  if (shape === 'string') {
    if (typeof value !== 'string') throw problem(`${name} must be a string`, path);
    return;
  }
  if (shape === 'boolean') {
    if (typeof value !== 'boolean') throw problem(`${name} must be true or false`, path);
    return;
  }
  if (shape === 'positive integer') {
    if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0)
      throw problem(`${name} must be a positive whole number`, path);
    return;
  }
  if ('list' in shape) {
    if (!Array.isArray(value)) throw problem(`${name} must be a list`, path);
    value.forEach((item, index) => {
      check(item, shape.list, `${path}.${index}`, problem);
    });
    return;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw problem(`${name} must be an object`, path);
  for (const [key, item] of Object.entries(value)) {
    const child = path === '' ? key : `${path}.${key}`;
    if ('entries' in shape) {
      check(item, shape.entries, child, problem);
      continue;
    }
    const itemShape = shape.fields[key];
    if (itemShape === undefined)
      throw problem(
        `unknown key "${key}"${path === '' ? '' : ` in "${path}"`} (known: ${Object.keys(shape.fields).join(', ')})`,
        child,
      );
    check(item, itemShape, child, problem);
  }
}
