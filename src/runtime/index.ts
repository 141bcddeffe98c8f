/**
 * The agent runtime: the loop, runs and their event logs, tools and skills. No HTTP, no SQL: it
 * writes protocol events and calls interfaces (`ChatModel`, `Tool`, `RunStore` through its callers).
 * Its folders follow a run's life: the agent it runs, the tools it calls, the log it writes, and
 * the runs themselves (started, driven, paused, resumed, stopped).
 */
export * from './agent/index.ts';
export * from './log/index.ts';
export * from './runs/index.ts';
export * from './tools/index.ts';
