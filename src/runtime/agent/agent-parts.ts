import type { RunBlocks } from '../log/run-blocks.ts';
import type { OpenToolCalls } from '../tools/open-tool-calls.ts';
import type { ToolExecution } from '../tools/tool-execution.ts';
import type { AgentOptions } from './agent-options.ts';

/** What one `Agent` is made of, shared by the functions that handle its tool calls. */
export interface AgentParts {
  options: AgentOptions;
  blocks: RunBlocks;
  calls: OpenToolCalls;
  execution: ToolExecution;
}
