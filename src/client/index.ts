/**
 * The runstream client SDK: `fetch` + `ReadableStream`, typed errors by HTTP status, and run streams
 * that resume across dropped connections with `Last-Event-ID`. Runs in browsers, Node and CLIs.
 */
export * from './agent-views.ts';
export * from './backoff.ts';
export * from './client-errors.ts';
export * from './conversation-views.ts';
export * from './run-stream.ts';
export * from './runstream-client.ts';
