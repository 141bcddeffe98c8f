import { isAbsolute, resolve } from 'node:path';
import { McpConfigError, type McpServerConfig, parseMcpConfig } from '../mcp/mcp-config.ts';
import { LOAD_SKILL_TOOL } from '../runtime/agent/load-skill.ts';
import { RUN_MESSAGES, type RunMessages } from '../runtime/agent/run-messages.ts';
import {
  AGENT_BRAND,
  type Agent,
  type AgentConfig,
  type AgentKnowledge,
  type AgentOrigin,
  type AgentSkill,
  type CardSettings,
  type ToolSettings,
} from './agent.ts';
import { AgentDefinitionError, type DefinitionPlace } from './agent-definition-error.ts';
import { resolveMcpPaths } from './resolve-mcp-paths.ts';
import { SEARCH_KNOWLEDGE_TOOL } from './search-knowledge-tool.ts';
import { skillUnlocks } from './skill-unlocks.ts';
import { type AnyAgentTool, checkAgentTool, TOOL_NAME_PATTERN } from './tool.ts';

export const AGENT_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;
/** A skill's name: what `load_skill` takes and a skills/ folder is called. */
export const SKILL_NAME_PATTERN = /^[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$/;
export const AGENT_LANGUAGES = ['zh-CN', 'en'] as const;
const DEFAULT_MAX_STEPS = 10;

const CONFIG_KEYS = new Set([
  'id',
  'name',
  'description',
  'language',
  'instructions',
  'model',
  'modelName',
  'offlineModel',
  'onClose',
  'tools',
  'skills',
  'knowledge',
  'mcpServers',
  'toolSettings',
  'policies',
  'maxSteps',
  'messages',
  'ui',
  'directory',
  'origin',
]);
const SKILL_KEYS = new Set(['name', 'title', 'description', 'instructions', 'tools']);
const SETTINGS_KEYS = new Set(['title', 'needsApproval', 'requiresSkill', 'card']);
const CARD_KEYS = new Set(['title', 'description', 'fields']);
const MESSAGE_KEYS = new Set(Object.keys(RUN_MESSAGES.en));

/**
 * Define an agent: its prompt, tools, skills, knowledge and MCP servers, checked and frozen. A
 * definition that cannot run (a bad id, a missing prompt, two tools of one name, a skill unlocking a
 * tool that does not exist) throws an `AgentDefinitionError` here, not at the first conversation.
 */
export function defineAgent(config: AgentConfig): Agent {
  return buildAgent(config, config?.origin === undefined ? {} : { origin: config.origin });
}

/** How `loadAgent` builds one: where each part came from, and its MCP servers already parsed. */
export interface BuildAgentOptions {
  origin?: AgentOrigin;
  /** The `mcpServers` were parsed (and `${NAME}` expanded) from mcp.json already. */
  mcpServersParsed?: boolean;
  /**
   * Leave the skill → tool references unchecked: the folder's `agent.ts` adds tools, and the agent
   * it returns is checked whole.
   */
  deferReferences?: boolean;
}

export function buildAgent(config: AgentConfig, options: BuildAgentOptions = {}): Agent {
  const places = options.origin?.places ?? {};
  const at = (...keys: string[]): DefinitionPlace => {
    for (const key of keys) if (places[key] !== undefined) return places[key];
    return {};
  };
  const fail = (what: string, ...keys: string[]): never => {
    throw new AgentDefinitionError(what, at(...keys, 'agent'));
  };
  if (!isRecord(config)) fail('defineAgent takes an object');
  for (const key of Object.keys(config))
    if (!CONFIG_KEYS.has(key)) fail(`unknown field "${key}" (known: ${[...CONFIG_KEYS].join(', ')})`);
  if (typeof config.id !== 'string' || !AGENT_ID_PATTERN.test(config.id))
    fail(
      `the id ${JSON.stringify(config.id)} must have 1 to 64 lowercase letters, digits, _ or -, starting with a letter or digit`,
      'id',
    );
  if (config.origin !== undefined && (!isRecord(config.origin) || !isRecord(config.origin.places)))
    fail('origin is set by loadAgent: { places }');
  const agentName = `agent ${config.id}`;
  const failOf = (what: string, ...keys: string[]): never => fail(`${agentName}: ${what}`, ...keys);
  if (!isNonEmptyString(config.name)) failOf('needs a name (what a person reads)', 'name');
  optionalString(config.description, 'description', failOf);
  const language = config.language ?? 'zh-CN';
  if (!(AGENT_LANGUAGES as readonly string[]).includes(language))
    failOf(
      `language must be one of ${AGENT_LANGUAGES.join(', ')}, not ${JSON.stringify(language)}`,
      'language',
    );
  if (!isNonEmptyString(config.instructions))
    failOf('needs instructions (the system prompt)', 'instructions');
  if (
    config.model !== undefined &&
    (!isRecord(config.model) || typeof (config.model as { stream?: unknown }).stream !== 'function')
  )
    failOf('model must be a ChatModel (an object with a stream() method)', 'model');
  if (
    config.offlineModel !== undefined &&
    (!isRecord(config.offlineModel) ||
      typeof (config.offlineModel as { stream?: unknown }).stream !== 'function')
  )
    failOf('offlineModel must be a ChatModel (an object with a stream() method)', 'offlineModel');
  if (config.onClose !== undefined && typeof config.onClose !== 'function')
    failOf('onClose must be a function', 'onClose');
  if (config.modelName !== undefined && !isNonEmptyString(config.modelName))
    failOf('modelName must be a non-empty string', 'modelName', 'model');
  const maxSteps = config.maxSteps ?? DEFAULT_MAX_STEPS;
  if (typeof maxSteps !== 'number' || !Number.isInteger(maxSteps) || maxSteps <= 0)
    failOf('maxSteps must be a positive whole number', 'maxSteps');
  if (config.directory !== undefined && !isNonEmptyString(config.directory))
    failOf('directory must be a path', 'directory');
  const directory = resolve(config.directory ?? process.cwd());

  const knowledge = knowledgeOf(config.knowledge, directory, failOf);
  const tools = toolsOf(config.tools, knowledge !== undefined, at, failOf);
  const skills = skillsOf(config.skills, failOf);
  const toolSettings = toolSettingsOf(config.toolSettings, failOf);
  const mcpServers = mcpServersOf(
    config.mcpServers,
    directory,
    options.mcpServersParsed === true,
    agentName,
    at,
  );
  const policies = config.policies ?? [];
  if (!Array.isArray(policies)) failOf('policies must be a list', 'policies');
  for (const policy of policies)
    if (!isRecord(policy) || !isNonEmptyString(policy.name) || typeof policy.check !== 'function')
      failOf('each policy needs a name and a check(call) function', 'policies');
  const messages = messagesOf(config.messages, failOf);
  const ui = uiOf(config.ui, config.name, failOf);

  // MCP tools are known once their servers are connected (resolveAgent checks again then).
  const toolNames =
    Object.keys(mcpServers).length > 0 || options.deferReferences === true
      ? undefined
      : new Set([
          ...tools.map((tool) => tool.name),
          ...(knowledge === undefined ? [] : [SEARCH_KNOWLEDGE_TOOL]),
        ]);
  skillUnlocks(
    { tools, skills, toolSettings, ...(options.origin === undefined ? {} : { origin: options.origin }) },
    toolNames,
  );

  const agent: Omit<Agent, typeof AGENT_BRAND> = {
    id: config.id,
    name: config.name,
    ...(config.description === undefined ? {} : { description: config.description }),
    language,
    instructions: config.instructions,
    ...(config.model === undefined ? {} : { model: config.model }),
    ...(config.modelName === undefined ? {} : { modelName: config.modelName }),
    ...(config.offlineModel === undefined ? {} : { offlineModel: config.offlineModel }),
    ...(config.onClose === undefined ? {} : { onClose: config.onClose }),
    tools: Object.freeze([...tools]),
    skills: Object.freeze(skills),
    ...(knowledge === undefined ? {} : { knowledge }),
    mcpServers: Object.freeze(mcpServers),
    toolSettings: Object.freeze(toolSettings),
    policies: Object.freeze([...policies]),
    maxSteps,
    messages: Object.freeze(messages),
    ui,
    directory,
    ...(options.origin === undefined ? {} : { origin: deepFreeze(options.origin) }),
  };
  // Not enumerable: `{ ...agent }` is a plain config, not an agent that skipped the checks.
  Object.defineProperty(agent, AGENT_BRAND, { value: true, enumerable: false });
  return Object.freeze(agent) as Agent;
}

type Fail = (what: string, ...keys: string[]) => never;

function knowledgeOf(
  value: AgentKnowledge | undefined,
  directory: string,
  fail: Fail,
): AgentKnowledge | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value)) return fail('knowledge must be { dirs, synonyms?, description? }', 'knowledge');
  for (const key of Object.keys(value))
    if (!['dirs', 'synonyms', 'description'].includes(key))
      fail(`knowledge has an unknown field "${key}"`, 'knowledge');
  if (!Array.isArray(value.dirs) || value.dirs.length === 0 || !value.dirs.every(isNonEmptyString))
    fail('knowledge.dirs must list at least one folder', 'knowledge');
  optionalString(value.synonyms, 'knowledge.synonyms', fail);
  optionalString(value.description, 'knowledge.description', fail);
  const absolute = (path: string) => (isAbsolute(path) ? path : resolve(directory, path));
  return Object.freeze({
    dirs: Object.freeze(value.dirs.map(absolute)),
    ...(value.synonyms === undefined ? {} : { synonyms: absolute(value.synonyms) }),
    ...(value.description === undefined ? {} : { description: value.description }),
  });
}

function toolsOf(
  value: readonly AnyAgentTool[] | undefined,
  hasKnowledge: boolean,
  at: (...keys: string[]) => DefinitionPlace,
  fail: Fail,
): readonly AnyAgentTool[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) return fail('tools must be a list of tool() definitions', 'tools');
  const seen = new Set<string>();
  for (const [index, tool] of value.entries()) {
    const name = isRecord(tool) && typeof tool.name === 'string' ? tool.name : `#${index + 1}`;
    checkAgentTool(tool, at(`tools.${name}`));
    if (seen.has(tool.name)) fail(`two tools are named ${tool.name}`, `tools.${tool.name}`);
    if (tool.name === LOAD_SKILL_TOOL)
      fail(`${LOAD_SKILL_TOOL} is the runtime's own tool name`, `tools.${tool.name}`);
    if (hasKnowledge && tool.name === SEARCH_KNOWLEDGE_TOOL)
      fail(
        `${SEARCH_KNOWLEDGE_TOOL} is the built-in tool of an agent with knowledge; name this tool otherwise`,
        `tools.${tool.name}`,
      );
    seen.add(tool.name);
  }
  return value;
}

function skillsOf(value: readonly AgentSkill[] | undefined, fail: Fail): Readonly<AgentSkill>[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) return fail('skills must be a list', 'skills');
  const seen = new Set<string>();
  return value.map((skill, index) => {
    if (!isRecord(skill)) return fail(`skill #${index + 1} must be an object`, 'skills');
    const name = String(skill.name);
    const where = [`skills.${name}`, 'skills'];
    if (typeof skill.name !== 'string' || !SKILL_NAME_PATTERN.test(skill.name))
      fail(
        `the skill name ${JSON.stringify(skill.name)} must have 1 to 64 letters, digits, _ or -, starting with a letter or digit`,
        ...where,
      );
    for (const key of Object.keys(skill))
      if (!SKILL_KEYS.has(key)) fail(`skill ${name} has an unknown field "${key}"`, ...where);
    if (seen.has(name)) fail(`two skills are named ${name}`, ...where);
    seen.add(name);
    if (!isNonEmptyString(skill.description))
      fail(`skill ${name} needs a description (what the model reads to decide to load it)`, ...where);
    if (typeof skill.instructions !== 'string')
      fail(`skill ${name} needs instructions (its handbook)`, ...where);
    optionalString(skill.title, `skill ${name} title`, fail, ...where);
    if (
      skill.tools !== undefined &&
      (!Array.isArray(skill.tools) || !(skill.tools as unknown[]).every((tool) => isNonEmptyString(tool)))
    )
      fail(`skill ${name}: tools must be a list of tool names`, `skills.${name}.tools`, ...where);
    return Object.freeze({
      name,
      ...(skill.title === undefined ? {} : { title: skill.title }),
      description: skill.description,
      instructions: skill.instructions,
      ...(skill.tools === undefined ? {} : { tools: Object.freeze([...skill.tools]) }),
    });
  });
}

function toolSettingsOf(
  value: Readonly<Record<string, ToolSettings>> | undefined,
  fail: Fail,
): Record<string, Readonly<ToolSettings>> {
  if (value === undefined) return {};
  if (!isRecord(value))
    return fail('toolSettings must be an object of settings by tool name', 'toolSettings');
  const settings: Record<string, Readonly<ToolSettings>> = {};
  for (const [tool, entry] of Object.entries(value)) {
    const where = [`toolSettings.${tool}`, 'toolSettings'];
    if (!TOOL_NAME_PATTERN.test(tool))
      fail(`toolSettings: ${JSON.stringify(tool)} is not a tool name`, ...where);
    if (!isRecord(entry)) fail(`toolSettings.${tool} must be an object`, ...where);
    for (const key of Object.keys(entry))
      if (!SETTINGS_KEYS.has(key))
        fail(
          `toolSettings.${tool} has an unknown field "${key}" (known: ${[...SETTINGS_KEYS].join(', ')})`,
          ...where,
        );
    optionalString(entry.title, `toolSettings.${tool}.title`, fail, ...where);
    if (entry.needsApproval !== undefined && typeof entry.needsApproval !== 'boolean')
      fail(`toolSettings.${tool}.needsApproval must be true or false`, ...where);
    optionalString(entry.requiresSkill, `toolSettings.${tool}.requiresSkill`, fail, ...where);
    settings[tool] = Object.freeze({
      ...(entry.title === undefined ? {} : { title: entry.title }),
      ...(entry.needsApproval === undefined ? {} : { needsApproval: entry.needsApproval }),
      ...(entry.requiresSkill === undefined ? {} : { requiresSkill: entry.requiresSkill }),
      ...(entry.card === undefined ? {} : { card: cardOf(entry.card, tool, fail, where) }),
    });
  }
  return settings;
}

function cardOf(card: CardSettings, tool: string, fail: Fail, where: string[]): CardSettings {
  const field = `toolSettings.${tool}.card`;
  if (!isRecord(card)) return fail(`${field} must be { title?, description?, fields? }`, ...where);
  for (const key of Object.keys(card))
    if (!CARD_KEYS.has(key)) fail(`${field} has an unknown field "${key}"`, ...where);
  optionalString(card.title, `${field}.title`, fail, ...where);
  optionalString(card.description, `${field}.description`, fail, ...where);
  if (
    card.fields !== undefined &&
    (!Array.isArray(card.fields) ||
      !card.fields.every(
        (entry) =>
          isRecord(entry) &&
          Object.keys(entry).every((key) => key === 'label' || key === 'value') &&
          isNonEmptyString(entry.label) &&
          typeof entry.value === 'string',
      ))
  )
    fail(`${field}.fields must be a list of { "label", "value" } strings`, ...where);
  return Object.freeze({
    ...(card.title === undefined ? {} : { title: card.title }),
    ...(card.description === undefined ? {} : { description: card.description }),
    ...(card.fields === undefined
      ? {}
      : {
          fields: Object.freeze(
            card.fields.map((entry) => Object.freeze({ label: entry.label, value: entry.value })),
          ),
        }),
  });
}

function mcpServersOf(
  value: Readonly<Record<string, McpServerConfig>> | undefined,
  directory: string,
  parsed: boolean,
  agentName: string,
  at: (...keys: string[]) => DefinitionPlace,
): Record<string, McpServerConfig> {
  if (value === undefined) return {};
  let servers: ReadonlyMap<string, McpServerConfig>;
  if (parsed) servers = new Map(Object.entries(value));
  else {
    try {
      // The same checks and `${NAME}` expansion as an mcp.json file.
      servers = parseMcpConfig(
        JSON.stringify({ mcpServers: value }),
        `${agentName}: mcpServers`,
        process.env,
      );
    } catch (error) {
      if (error instanceof McpConfigError) throw new AgentDefinitionError(error.message, at('mcpServers'));
      throw error;
    }
  }
  return Object.fromEntries(
    [...servers].map(([name, server]) => [name, deepFreeze(resolveMcpPaths(server, directory))]),
  );
}

function messagesOf(value: Partial<RunMessages> | undefined, fail: Fail): Partial<RunMessages> {
  if (value === undefined) return {};
  if (!isRecord(value)) return fail('messages must be an object of texts by key', 'messages');
  for (const [key, text] of Object.entries(value)) {
    if (!MESSAGE_KEYS.has(key))
      fail(
        `messages has an unknown key "${key}" (known: ${[...MESSAGE_KEYS].join(', ')})`,
        `messages.${key}`,
        'messages',
      );
    if (typeof text !== 'string') fail(`messages.${key} must be a string`, `messages.${key}`, 'messages');
  }
  return { ...value };
}

function uiOf(value: AgentConfig['ui'], name: string, fail: Fail): Agent['ui'] {
  if (value !== undefined && !isRecord(value))
    return fail('ui must be { title?, greeting?, examples? }', 'ui');
  const ui = value ?? {};
  for (const key of Object.keys(ui))
    if (!['title', 'greeting', 'examples'].includes(key))
      fail(`ui has an unknown field "${key}"`, `ui.${key}`, 'ui');
  optionalString(ui.title, 'ui.title', fail, 'ui.title', 'ui');
  optionalString(ui.greeting, 'ui.greeting', fail, 'ui.greeting', 'ui');
  if (
    ui.examples !== undefined &&
    (!Array.isArray(ui.examples) || !ui.examples.every((item) => typeof item === 'string'))
  )
    fail('ui.examples must be a list of strings', 'ui.examples', 'ui');
  return Object.freeze({
    title: ui.title ?? name,
    ...(ui.greeting === undefined ? {} : { greeting: ui.greeting }),
    examples: Object.freeze([...(ui.examples ?? [])]),
  });
}

function optionalString(value: unknown, field: string, fail: Fail, ...keys: string[]): void {
  if (value !== undefined && typeof value !== 'string') fail(`${field} must be a string`, ...keys);
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

/** Not a type guard: the values checked are typed already, and must keep their types. */
function isRecord(value: unknown): boolean {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}
