import type { ChatModel } from '../../models/index.ts';
import type { AnyTool } from '../tools/tool.ts';
import type { ToolPolicy } from '../tools/tool-policy.ts';
import type { RunMessages } from './run-messages.ts';
import type { Skill } from './skill.ts';

/**
 * An agent as the runtime runs it: its definition (`defineAgent`, `loadAgent`) with its tools
 * compiled, its knowledge and MCP servers connected and its messages resolved. A `RunManager`
 * serves one or more; each conversation belongs to one.
 */
export interface ResolvedAgent {
  id: string;
  /** What a person reads, e.g. in the page's picker. */
  name: string;
  model: ChatModel;
  /** The system prompt. */
  instructions: string;
  tools: readonly AnyTool[];
  skills: readonly Skill[];
  /** Model turns with tools before the summary turn. Default 10. */
  maxSteps?: number;
  /** The agent's own governance, checked after the server's. */
  policies?: readonly ToolPolicy[];
  messages: RunMessages;
  /**
   * A hash of the definition and its tools' schemas (`agentRevision`): a paused run whose agent
   * changed since is told so on approval instead of running something else.
   */
  revision: string;
}
