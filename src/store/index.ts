/**
 * The store: the `RunStore` interface (users, tokens, conversations, messages, runs, tool calls and
 * their decisions), its SQLite implementation over the product's one file, and an in-memory one for
 * tests; the tool audit log (`ToolAuditLog`) in SQLite and in memory. The conformance suite both
 * pass lives in `./test-support/` (it imports vitest).
 */
export * from './api-token.ts';
export * from './ids.ts';
export * from './memory-run-store.ts';
export * from './open-database.ts';
export * from './response-records.ts';
export * from './run-store.ts';
export * from './run-store-error.ts';
export * from './sqlite-response-records.ts';
export * from './sqlite-run-store.ts';
export { migrateRunStore, RUN_STORE_MIGRATIONS } from './sqlite-run-store-schema.ts';
export * from './sqlite-tool-audit-log.ts';
export * from './tool-audit-log.ts';
