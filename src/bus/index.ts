/**
 * The bus: what instances share about live runs. `EventLog` is a run's live event tail (in process
 * by default, Redis Streams with `RUNSTREAM_REDIS_URL`); the conformance suites every
 * implementation passes live in `./test-support/`.
 */

export * from './control-channel.ts';
export * from './event-log.ts';
export * from './memory-control-channel.ts';
export * from './memory-event-log.ts';
