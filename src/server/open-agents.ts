import type { Agent } from '../agent/agent.ts';
import { AgentDefinitionError } from '../agent/agent-definition-error.ts';
import { resolveAgent } from '../agent/resolve-agent.ts';
import type { McpToolSource } from '../mcp/mcp-tool-source.ts';
import type { ChatModel } from '../models/chat-model.ts';
import { createChatModelFromEnv } from '../models/create-chat-model-from-env.ts';
import { OfflineAgentModel } from '../models/offline/offline-agent-model.ts';
import type { KnowledgeSources } from '../retrieval/knowledge-sources.ts';
import type { ResolvedAgent } from '../runtime/agent/resolved-agent.ts';
import type { AgentCard } from './agent-card.ts';
import type { KnowledgeHost } from './knowledge-host.ts';
import { StartupError } from './startup-error.ts';

/** The agents a server runs, ready: resolved for the runtime, their cards and their documents. */
export interface OpenedAgents {
  resolved: ResolvedAgent[];
  cards: AgentCard[];
  /** The documents behind each agent's citations, by agent id. */
  sources: Map<string, KnowledgeSources>;
  close(): Promise<void>;
}

export interface OpenAgentsOptions {
  /** Where agents with `knowledge` get it from; an agent with knowledge and no host cannot start. */
  knowledge?: KnowledgeHost;
  env: Readonly<Record<string, string | undefined>>;
  log: (line: Record<string, unknown>) => void;
  /** The model of every agent that brings none: the caller's, else the environment's. */
  model?: ChatModel;
  /** Tools for every agent (`RUNSTREAM_MCP_CONFIG`), after its own. */
  sharedTools?: McpToolSource;
}

/**
 * Make each agent runnable on this server: its knowledge ingested into its own namespace of the
 * SQLite file (incremental: unchanged files cost nothing, another agent's documents are never
 * touched), its MCP servers connected, its tools compiled, its model chosen (its own; else the
 * caller's or the environment's; else the offline model in its language). A definition that cannot
 * run (an unreachable MCP server, a skill unlocking a missing tool) is a `StartupError` naming the
 * file, with whatever was opened closed again.
 */
export async function openAgents(
  agents: readonly Agent[],
  options: OpenAgentsOptions,
): Promise<OpenedAgents> {
  const closers: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const closeOne of closers.splice(0).reverse()) await closeOne().catch(() => undefined);
  };
  const ids = new Set<string>();
  const resolved: ResolvedAgent[] = [];
  const sources = new Map<string, KnowledgeSources>();
  try {
    for (const agent of agents) {
      if (ids.has(agent.id))
        throw new StartupError(
          `two agents have the id ${agent.id} (${agent.directory}); each agent needs its own id`,
        );
      ids.add(agent.id);
      const knowledge = agent.knowledge === undefined ? undefined : await openAgentKnowledge(agent, options);
      // The documents behind its citations: exactly what its namespace holds, by the paths cited.
      if (knowledge !== undefined) sources.set(agent.id, knowledge.sources);
      const handle = await resolveAgent(agent, {
        model: modelOf(agent, options),
        ...(knowledge === undefined ? {} : { knowledge }),
        log: (line) => options.log({ agent: agent.id, ...line }),
      }).catch((error: unknown) => {
        if (error instanceof AgentDefinitionError) throw new StartupError(error.message);
        throw error;
      });
      closers.push(() => handle.close());
      resolved.push(withSharedTools(handle.agent, options.sharedTools));
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { resolved, cards: agents.map(cardOf), sources, close };
}

function cardOf(agent: Agent): AgentCard {
  return {
    id: agent.id,
    name: agent.name,
    ...(agent.description === undefined ? {} : { description: agent.description }),
    language: agent.language,
    ui: {
      title: agent.ui.title,
      ...(agent.ui.greeting === undefined ? {} : { greeting: agent.ui.greeting }),
      examples: [...agent.ui.examples],
    },
  };
}

async function openAgentKnowledge(agent: Agent, options: OpenAgentsOptions) {
  if (options.knowledge === undefined)
    throw new StartupError(
      `the agent ${agent.id} has knowledge but nothing keeps knowledge bases here: use sqliteStore() from runstream/node, or pass knowledge: sqliteKnowledge(file)`,
    );
  return options.knowledge.open(agent, options.log);
}

/**
 * An agent's model: its own object; else the caller's; else, when agent.json names a model and the
 * environment configures a provider, that model at the provider; else the environment's; else the
 * agent's own offline model (an example's demo model); else the built-in offline model in the
 * agent's language.
 */
function modelOf(agent: Agent, options: OpenAgentsOptions): ChatModel {
  if (agent.model !== undefined) return agent.model;
  if (options.model !== undefined) return options.model;
  const configured =
    agent.modelName !== undefined && providerConfigured(options.env)
      ? createChatModelFromEnv({ ...options.env, RUNSTREAM_MODEL: agent.modelName })
      : createChatModelFromEnv(options.env);
  return configured ?? agent.offlineModel ?? new OfflineAgentModel({ language: agent.language });
}

function providerConfigured(env: Readonly<Record<string, string | undefined>>): boolean {
  return Boolean(
    env.OPENAI_BASE_URL || env.OPENAI_API_KEY || env.ANTHROPIC_API_KEY || env.ANTHROPIC_BASE_URL,
  );
}

/**
 * The server-wide MCP tools (`RUNSTREAM_MCP_CONFIG`) next to an agent's own. One whose name an
 * agent's own tool has (one of its mcp.json servers', say) is offered as `<server>__<tool>`, as any
 * collision of two sources is; the agent's own keeps its name.
 */
function withSharedTools(agent: ResolvedAgent, shared: McpToolSource | undefined): ResolvedAgent {
  if (shared === undefined || shared.tools.length === 0) return agent;
  const names = new Set(agent.tools.map((tool) => tool.name));
  const added = shared.tools.flatMap((tool) => {
    if (!names.has(tool.name)) return [tool];
    const server = shared.serverOf.get(tool.name);
    const prefixed = `${server}__${tool.name}`;
    return server === undefined || tool.name.includes('__') || names.has(prefixed)
      ? []
      : [{ ...tool, name: prefixed }];
  });
  return { ...agent, tools: [...agent.tools, ...added] };
}
