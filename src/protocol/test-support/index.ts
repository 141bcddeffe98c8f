/**
 * Helpers for tests of the run protocol and of everything built on it (client, runtime, server).
 * Not part of `src/protocol/index.ts`: it imports fast-check, which production code must not load.
 */
export * from './arbitrary-run-events.ts';
export * from './deep-freeze.ts';
export * from './event-factory.ts';
export * from './seed-cancel-order.ts';
export * from './streams.ts';
