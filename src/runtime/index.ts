/**
 * The agent runtime: the loop, runs and their event logs, tools and skills. No HTTP, no SQL: it
 * writes protocol events and calls interfaces (`ChatModel`, `Tool`, `RunStore` through its callers).
 */
export * from './agent-loop.ts';
export * from './drive-run.ts';
export * from './host-tool.ts';
export * from './log-face.ts';
export * from './resolved-agent.ts';
export * from './run-cancelled.ts';
export * from './run-error.ts';
export * from './run-log.ts';
export * from './run-manager.ts';
export * from './run-messages.ts';
export * from './skill.ts';
export * from './tool.ts';
export * from './tool-audit.ts';
export * from './tool-policy.ts';
export { stableStringify, toolJsonSchema, toolSchemaHash } from './tool-schema-hash.ts';
