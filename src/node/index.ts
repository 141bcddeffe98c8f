/**
 * `runstream/node`: serve a runstream with Node's HTTP server (`serve`), mount it in a Node app
 * (`toNodeHandler`: Express, Connect, Fastify's raw handlers, `node:http`), and keep its state in
 * one SQLite file (`sqliteStore`, knowledge included; `sqliteKnowledge` for knowledge alone beside
 * another store). See docs/embedding.md.
 */
export { type RunningServer, type ServeOptions, serve } from './serve.ts';
export { type SqliteKnowledgeOptions, sqliteKnowledge } from './sqlite-knowledge.ts';
export { sqliteStore } from './sqlite-store.ts';
export { type NodeContext, type NodeHandler, toNodeHandler } from './to-node-handler.ts';
