/**
 * runstream's main entry: define an agent (`defineAgent`, `tool`, or `loadAgent` for a folder), the
 * types its tools and policies see, and the models it can run on. See docs/agents.md.
 */
export {
  type Agent,
  type AgentConfig,
  AgentDefinitionError,
  type AgentFolderContext,
  type AgentFolderModule,
  type AgentKnowledge,
  type AgentLanguage,
  type AgentSkill,
  type AgentTool,
  type AgentUi,
  type AnyAgentTool,
  type CardSettings,
  type ConfirmationCard,
  defineAgent,
  isAgent,
  type JsonSchemaObject,
  type KnowledgeHit,
  type KnowledgeSearch,
  type LoadAgentOptions,
  loadAgent,
  type ResolveAgentOptions,
  type ResolvedAgentHandle,
  resolveAgent,
  type ToolSettings,
  tool,
} from './agent/index.ts';
export type {
  McpHttpServerConfig,
  McpServerConfig,
  McpStdioServerConfig,
} from './mcp/mcp-config.ts';
export {
  AnthropicMessagesModel,
  type AnthropicMessagesModelOptions,
  type ChatMessage,
  type ChatModel,
  type ChatRequest,
  type ChatStreamPart,
  createChatModelFromEnv,
  createScriptedModelFromFile,
  type FinishReason,
  type JsonSchema,
  jsonSchemaType,
  ModelError,
  type ModelErrorCode,
  OfflineAgentModel,
  type OfflineAgentModelOptions,
  OpenAiChatModel,
  type OpenAiChatModelOptions,
  type ReasoningPart,
  readToolOutcome,
  resolveJsonSchema,
  ScriptedChatModel,
  type ScriptedTurn,
  type TokenUsage,
  type ToolCallRequest,
  type ToolDefinition,
  type ToolOutcome,
  textTurn,
  toolCallTurn,
} from './models/index.ts';
export type { ResolvedAgent } from './runtime/agent/resolved-agent.ts';
export { RUN_MESSAGES, type RunLanguage, type RunMessages } from './runtime/agent/run-messages.ts';
export type {
  ToolCallInfo,
  ToolContext,
  ToolPolicy,
  ToolPolicyDecision,
} from './runtime/index.ts';
export { ToolError } from './runtime/index.ts';
export type { Authenticate, AuthenticatedUser } from './server/create-app.ts';
export {
  type CreateRunstreamOptions,
  createRunstream,
  type RouteHandlers,
  type Runstream,
  type RunstreamBus,
  type RunstreamStore,
} from './server/create-runstream.ts';
export type { KnowledgeHost, OpenedKnowledge } from './server/knowledge-host.ts';
