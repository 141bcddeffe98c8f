/**
 * The public definition API: `tool()`, `defineAgent()` and `loadAgent()` describe an agent (in
 * TypeScript or as a folder); `resolveAgent()` makes one runnable (tools compiled, knowledge and MCP
 * servers connected) for the runtime. Node only; the server and the CLI compose it.
 */
export * from './agent.ts';
export * from './agent-definition-error.ts';
export { agentRevision, type RevisionParts } from './agent-revision.ts';
export { AGENT_ID_PATTERN, AGENT_LANGUAGES, defineAgent, SKILL_NAME_PATTERN } from './define-agent.ts';
export { type LoadAgentOptions, loadAgent } from './load-agent.ts';
export * from './resolve-agent.ts';
export * from './search-knowledge-tool.ts';
export {
  type AgentTool,
  type AnyAgentTool,
  type ConfirmationCard,
  type JsonSchemaObject,
  TOOL_NAME_PATTERN,
  tool,
} from './tool.ts';
