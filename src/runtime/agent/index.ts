/** One agent's loop over model turns, tools and skills, and the definition a run's agent is made of. */

export type { AgentCheckpoint, PendingHostCall, PendingWrite } from './agent-checkpoint.ts';
export { waitsForToolResults } from './agent-checkpoint.ts';
export * from './agent-loop.ts';
export type { AgentContext, AgentOptions } from './agent-options.ts';
export { closeOpenBlocks } from './close-open-blocks.ts';
export { LOAD_SKILL_TOOL } from './load-skill.ts';
export * from './resolved-agent.ts';
export * from './run-messages.ts';
export * from './skill.ts';
