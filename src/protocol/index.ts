/**
 * The run protocol: the contract shared by server and client. Typed events and blocks, the block
 * reducer, and SSE/NDJSON codecs. No `node:` imports: this folder runs in browsers unchanged.
 */
export * from './block.ts';
export * from './message.ts';
export * from './ndjson-decoder-stream.ts';
export * from './ndjson-encoder-stream.ts';
export * from './protocol-error.ts';
export * from './reduce.ts';
export * from './run-event.ts';
export * from './run-event-codec.ts';
export * from './sse-decoder-stream.ts';
export * from './sse-encoder-stream.ts';
export * from './token-usage.ts';
export * from './wire-error.ts';
