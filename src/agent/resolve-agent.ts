import type { McpLog } from '../mcp/mcp-connection.ts';
import type { McpToolSource } from '../mcp/mcp-tool-source.ts';
import type { ChatModel } from '../models/index.ts';
import { LOAD_SKILL_TOOL } from '../runtime/agent/load-skill.ts';
import type { ResolvedAgent } from '../runtime/agent/resolved-agent.ts';
import { runMessagesFor } from '../runtime/agent/run-messages.ts';
import type { AnyTool, Skill, ToolPolicy } from '../runtime/index.ts';
import { type Agent, isAgent, placeOf } from './agent.ts';
import { AgentDefinitionError } from './agent-definition-error.ts';
import { agentRevision } from './agent-revision.ts';
import { applyToolSettings } from './apply-tool-settings.ts';
import { compileAgentTool } from './compile-agent-tool.ts';
import { type KnowledgeSearch, SEARCH_KNOWLEDGE_TOOL, searchKnowledgeTool } from './search-knowledge-tool.ts';
import { skillUnlocks } from './skill-unlocks.ts';

export interface ResolveAgentOptions {
  /** The model of an agent that brings none (the environment's, else the offline one). */
  model: ChatModel;
  /** The agent's opened knowledge: gives an agent with `knowledge` its `search_knowledge` tool. */
  knowledge?: KnowledgeSearch;
  /** Log lines of its MCP connections (connected, lost, a server's stderr). */
  log?: McpLog;
  /** The server's governance, checked before the agent's own policies. */
  policies?: readonly ToolPolicy[];
}

/** A runnable agent, and how to let go of what it holds open (its MCP connections). */
export interface ResolvedAgentHandle {
  agent: ResolvedAgent;
  close(): Promise<void>;
}

/**
 * Make an agent definition runnable: its tools compiled for the runtime, `search_knowledge` added
 * when it has knowledge (and `knowledge` is given), its MCP servers connected (their tools keep
 * their own names unless they collide), the tool settings applied to its own and MCP tools alike,
 * its skills unlocking their tools, its messages and revision. Every tool a skill or a setting names
 * must exist once the MCP tools are known; an unreachable MCP server is an `AgentDefinitionError`
 * naming mcp.json when the agent came from a folder.
 */
export async function resolveAgent(agent: Agent, options: ResolveAgentOptions): Promise<ResolvedAgentHandle> {
  if (!isAgent(agent))
    throw new AgentDefinitionError('resolveAgent takes an agent made with defineAgent() or loadAgent()');
  const own: { tool: AnyTool; ownCard: boolean }[] = agent.tools.map((definition) => ({
    tool: compileAgentTool(definition),
    ownCard: definition.confirmation !== undefined,
  }));
  if (agent.knowledge !== undefined && options.knowledge !== undefined)
    own.push({
      tool: searchKnowledgeTool(options.knowledge, {
        language: agent.language,
        ...(agent.knowledge.description === undefined ? {} : { description: agent.knowledge.description }),
      }),
      ownCard: false,
    });
  const source = await connectMcpServers(agent, own, options.log ?? (() => undefined));
  try {
    const tools = [...own, ...(source?.tools ?? []).map((tool) => ({ tool, ownCard: false }))];
    const names = new Set<string>();
    for (const { tool } of tools) {
      if (names.has(tool.name) || tool.name === LOAD_SKILL_TOOL)
        throw new AgentDefinitionError(
          `agent ${agent.id}: two tools are named ${tool.name}`,
          placeOf(agent, `tools.${tool.name}`, 'agent'),
        );
      names.add(tool.name);
    }
    // A skill or a setting may name search_knowledge even where no knowledge was opened (a test).
    if (agent.knowledge !== undefined) names.add(SEARCH_KNOWLEDGE_TOOL);
    const unlocks = skillUnlocks(agent, names);
    const compiled = tools.map(({ tool, ownCard }) => {
      const settings = agent.toolSettings[tool.name];
      const requiresSkill = unlocks.get(tool.name);
      return applyToolSettings(tool, {
        ownCard,
        ...(settings === undefined ? {} : { settings }),
        ...(requiresSkill === undefined ? {} : { requiresSkill }),
      });
    });
    const skills: Skill[] = agent.skills.map((skill) => ({
      name: skill.name,
      title: skill.title ?? skill.name,
      description: skill.description,
      body: skill.instructions,
      unlocksTools: compiled.filter((tool) => tool.requiresSkill === skill.name).map((tool) => tool.name),
    }));
    const policies = [...(options.policies ?? []), ...agent.policies];
    const resolved: ResolvedAgent = {
      id: agent.id,
      name: agent.name,
      model: agent.model ?? options.model,
      instructions: agent.instructions,
      tools: compiled,
      skills,
      maxSteps: agent.maxSteps,
      ...(policies.length === 0 ? {} : { policies }),
      messages: runMessagesFor(agent.language, agent.messages),
      revision: agentRevision({ id: agent.id, instructions: agent.instructions, tools: compiled, skills }),
    };
    return {
      agent: resolved,
      close: async () => {
        await source?.close();
        await agent.onClose?.();
      },
    };
  } catch (error) {
    await source?.close();
    // The server will not run this agent: let go of what its folder's agent.ts opened.
    await Promise.resolve(agent.onClose?.()).catch(() => undefined);
    throw error;
  }
}

async function connectMcpServers(
  agent: Agent,
  own: readonly { tool: AnyTool }[],
  log: McpLog,
): Promise<McpToolSource | undefined> {
  const servers = Object.entries(agent.mcpServers);
  if (servers.length === 0) return undefined;
  // Loaded only for an agent that has MCP servers: the client spawns processes and reads files,
  // which the Web-standard core (`createRunstream`) must not import for agents that need neither.
  const [{ openMcpTools }, { McpConfigError }] = await Promise.all([
    import('../mcp/mcp-tool-source.ts'),
    import('../mcp/mcp-config.ts'),
  ]);
  try {
    return await openMcpTools(new Map(servers), {
      log: (line) => log({ agentId: agent.id, ...line }),
      reservedNames: own.map(({ tool }) => tool.name),
      language: agent.language,
    });
  } catch (error) {
    if (error instanceof McpConfigError) {
      // The first server that failed, to point at its entry in mcp.json.
      const server = /reached at start: ([A-Za-z0-9_-]+):/.exec(error.message)?.[1];
      throw new AgentDefinitionError(
        `agent ${agent.id}: ${error.message}`,
        placeOf(agent, `mcpServers.${server}`, 'mcpServers'),
      );
    }
    throw error;
  }
}
