/** A run's event log: what readers replay and follow, and what the client sees of it. */
export * from './log-face.ts';
export * from './run-log.ts';
