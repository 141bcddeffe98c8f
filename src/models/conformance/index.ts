/**
 * The provider conformance suite's moving parts: a replay server that plays recorded provider
 * streams over real HTTP and refuses, as each provider would, a request that breaks its documented
 * rules (PROVIDER-RULES.md). The recordings are in `recordings/`, the scenarios in `test-support/`.
 */
export * from './anthropic-messages-rules.ts';
export * from './chat-completions-rules.ts';
export * from './deepseek-messages-rules.ts';
export * from './provider-refusal.ts';
export * from './replay-server.ts';
