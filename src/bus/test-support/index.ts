/** Test support for the bus: the conformance suites every implementation runs, and Redis for tests. */

export * from './control-channel-conformance.ts';
export * from './event-log-conformance.ts';
export * from './redis-for-tests.ts';
