/** Runs: starting, driving, pausing, resuming, stopping and finishing them, across instances. */
export * from './drive-run.ts';
export * from './run-cancelled.ts';
export * from './run-error.ts';
export * from './run-manager.ts';
export type { RunManagerOptions } from './run-manager-options.ts';
export type { RunOptions } from './run-options.ts';
