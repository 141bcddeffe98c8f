/**
 * Test support for the store and for everything built on a `RunStore`: the conformance suite every
 * implementation runs, and the harness behind it. Not part of `src/store/index.ts`: it imports vitest.
 */

export * from './response-records-conformance.ts';
export * from './run-store-conformance.ts';
export * from './run-store-harness.ts';
export * from './tool-audit-log-conformance.ts';
