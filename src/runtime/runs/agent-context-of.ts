import type { AgentContext } from '../agent/agent-options.ts';
import type { StoredRunOptions } from './run-options.ts';

/** Who the agent works for in a stretch of the run. */
export function agentContextOf(
  runId: string,
  conversationId: string,
  userId: string,
  runOptions: StoredRunOptions,
): AgentContext {
  return {
    runId,
    conversationId,
    userId,
    face: runOptions.face,
    ...(runOptions.traceId !== undefined ? { traceId: runOptions.traceId } : {}),
  };
}
