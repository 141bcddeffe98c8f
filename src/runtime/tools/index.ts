/** Tools: what the agent may call, the host's own tools, the policies that govern calls and their audit. */
// The audit types live with their implementations in the store layer; the runtime's face names them too.
export type { ToolAuditEntry, ToolAuditFilter, ToolAuditLog, ToolCallFace } from '../../store/index.ts';
export * from './host-tool.ts';
export { HOST_TOOL_FAILED } from './host-tool-calls.ts';
export * from './tool.ts';
export * from './tool-audit.ts';
export * from './tool-policy.ts';
export { stableStringify, toolJsonSchema, toolSchemaHash } from './tool-schema-hash.ts';
