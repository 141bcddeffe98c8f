import type { McpServerConfig } from '../mcp/index.ts';
import type { ChatModel } from '../models/index.ts';
import type { RunLanguage, RunMessages } from '../runtime/agent/run-messages.ts';
import type { ToolPolicy } from '../runtime/index.ts';
import type { DefinitionPlace } from './agent-definition-error.ts';
import type { AnyAgentTool } from './tool.ts';

/** The languages an agent speaks: its built-in messages and the offline model's answers. */
export type AgentLanguage = RunLanguage;

/** A handbook the agent loads before a kind of task; loading it unlocks the tools it lists. */
export interface AgentSkill {
  /** The id the model loads it by, e.g. `warranty-check`. */
  name: string;
  /** What a person reads; default the name. */
  title?: string;
  /** One line the model reads to decide when to load it. */
  description: string;
  /** The handbook itself (Markdown). */
  instructions: string;
  /** The tools it unlocks: they stay hidden from the model until it is loaded. */
  tools?: readonly string[];
}

/** What a confirmation card shows, per tool, when the definition's own card is not the one wanted. */
export interface CardSettings {
  /** Templates over the call's input: `{serialNumber}`, `{address.city}`. */
  title?: string;
  description?: string;
  fields?: readonly { label: string; value: string }[];
}

/** Per-tool overrides (agent.json's `tools`), for the agent's own tools and MCP tools alike. */
export interface ToolSettings {
  /** What a person reads on the tool row. */
  title?: string;
  /** Whether a call waits for approval on a card (overrides the tool's own answer). */
  needsApproval?: boolean;
  /** The skill that unlocks the tool. */
  requiresSkill?: string;
  card?: CardSettings;
}

/** The documents the agent answers from, through the built-in `search_knowledge` tool. */
export interface AgentKnowledge {
  /** Folders of Markdown, text and JSON files (relative ones resolve against `directory`). */
  dirs: readonly string[];
  /** A synonym table for the analyser (a path). */
  synonyms?: string;
  /** What the knowledge holds, for the model: replaces the first sentence of the tool's description. */
  description?: string;
}

/** What the page shows for the agent. */
export interface AgentUi {
  title?: string;
  greeting?: string;
  examples?: readonly string[];
}

/** What `defineAgent` takes. */
export interface AgentConfig {
  /** Lowercase letters, digits, `_` or `-` (64 at most), starting with a letter or digit. */
  id: string;
  name: string;
  description?: string;
  /** Default `zh-CN`. */
  language?: AgentLanguage;
  /** The system prompt. */
  instructions: string;
  /** Default: the environment's model, else the offline model. */
  model?: ChatModel;
  /** A model name for the environment's provider (agent.json's `model`), when `model` is not given. */
  modelName?: string;
  /**
   * The model used when neither `model` nor the environment names one, instead of the built-in
   * offline model (an example's richer demo model). A configured real model always wins over it.
   */
  offlineModel?: ChatModel;
  /** Called when the server stops (close what the agent opened: a database, a client). */
  onClose?: () => void | Promise<void>;
  tools?: readonly AnyAgentTool[];
  skills?: readonly AgentSkill[];
  knowledge?: AgentKnowledge;
  /** The same entries as mcp.json's `mcpServers`; `${NAME}` expands from the environment. */
  mcpServers?: Readonly<Record<string, McpServerConfig>>;
  /** Per tool name (the agent's own or an MCP tool's). */
  toolSettings?: Readonly<Record<string, ToolSettings>>;
  /** The agent's own governance, checked after the server's. */
  policies?: readonly ToolPolicy[];
  /** Model turns with tools before the summary turn; default 10. */
  maxSteps?: number;
  messages?: Partial<RunMessages>;
  ui?: AgentUi;
  /** Where relative paths resolve (`loadAgent` sets the folder); default the working directory. */
  directory?: string;
  /**
   * Where the parts were written (set by `loadAgent`), kept when a loaded agent is spread into
   * `defineAgent({ ...loaded, tools })`, so later errors still name the file and line.
   */
  origin?: AgentOrigin;
}

/**
 * Where each part of an agent loaded from a folder came from, so a problem found later (when its MCP
 * servers are connected) still names the file and line. Keys: `agent` (agent.json), `instructions`,
 * `mcpServers` (mcp.json), `tools.<name>` (the tool's module), `toolSettings.<name>` (its entry in
 * agent.json), `skills.<name>` and `skills.<name>.tools` (the SKILL.md and its `tools` line).
 */
export interface AgentOrigin {
  places: Readonly<Record<string, DefinitionPlace>>;
}

/** Marks a checked `Agent`, so a server tells one from a plain object (across copies of this package). */
export const AGENT_BRAND: unique symbol = Symbol.for('runstream.agent');

/**
 * A checked, frozen agent definition: what `defineAgent` and `loadAgent` return. Spread into
 * `defineAgent({ ...agent, tools: [...] })` it is a config again (the brand does not spread).
 */
export interface Agent {
  readonly [AGENT_BRAND]: true;
  readonly id: string;
  readonly name: string;
  readonly description?: string;
  readonly language: AgentLanguage;
  readonly instructions: string;
  readonly model?: ChatModel;
  readonly modelName?: string;
  readonly offlineModel?: ChatModel;
  readonly onClose?: () => void | Promise<void>;
  readonly tools: readonly AnyAgentTool[];
  readonly skills: readonly Readonly<AgentSkill>[];
  /** With its folders and synonyms as absolute paths. */
  readonly knowledge?: Readonly<AgentKnowledge>;
  /** Expanded, relative commands and working directories resolved against `directory`. */
  readonly mcpServers: Readonly<Record<string, McpServerConfig>>;
  readonly toolSettings: Readonly<Record<string, Readonly<ToolSettings>>>;
  readonly policies: readonly ToolPolicy[];
  readonly maxSteps: number;
  readonly messages: Readonly<Partial<RunMessages>>;
  /** `title` defaults to the name, `examples` to none. */
  readonly ui: { readonly title: string; readonly greeting?: string; readonly examples: readonly string[] };
  /** Absolute. */
  readonly directory: string;
  /** Set by `loadAgent`. */
  readonly origin?: AgentOrigin;
}

export function isAgent(value: unknown): value is Agent {
  return (
    value !== null && typeof value === 'object' && (value as Record<symbol, unknown>)[AGENT_BRAND] === true
  );
}

/** Where a part of the agent came from, for an error about it; the first key found wins. */
export function placeOf(agent: Agent, ...keys: string[]): DefinitionPlace {
  for (const key of keys) {
    const place = agent.origin?.places[key];
    if (place !== undefined) return place;
  }
  return {};
}

/**
 * What an agent folder's `agent.ts` (or `.mjs`, `.js`) gets, next to the agent the folder's files
 * describe: the environment the server starts with (the CLI's flags written over it) and the server's
 * SQLite file, for an agent that keeps small tables of its own next to runstream's.
 */
export interface AgentFolderContext {
  env: Readonly<Record<string, string | undefined>>;
  /** Absolute: `RUNSTREAM_DB`, default `data/runstream.db`. */
  databasePath: string;
}

/**
 * What an agent folder's `agent.ts` default-exports: a function given the folder's agent that
 * returns the whole one (usually `defineAgent({ ...folder, tools, … })`), or an agent itself.
 */
export type AgentFolderModule =
  | ((folder: Agent, context: AgentFolderContext) => Agent | Promise<Agent>)
  | Agent;
