import type { AgentOptions } from './agent-options.ts';
import type { OpenToolCalls } from './open-tool-calls.ts';
import type { RunBlocks } from './run-blocks.ts';
import type { ToolExecution } from './tool-execution.ts';

/** What one `Agent` is made of, shared by the functions that handle its tool calls. */
export interface AgentParts {
  options: AgentOptions;
  blocks: RunBlocks;
  calls: OpenToolCalls;
  execution: ToolExecution;
}
