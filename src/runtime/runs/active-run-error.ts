import type { RunRecord, RunStore } from '../../store/index.ts';
import { waitsForToolResults } from '../agent/agent-checkpoint.ts';
import type { RunMessages } from '../agent/run-messages.ts';
import { RunError } from './run-error.ts';
import type { RunCheckpoint } from './run-options.ts';

/**
 * Why a new message is refused while `active` runs or waits: still answering, waiting for the host's
 * tool results, or waiting for the shopper's confirmation. Each names the run, so a client can follow
 * or answer it instead.
 */
export async function activeRunError(
  store: RunStore,
  active: RunRecord,
  messages: RunMessages,
): Promise<RunError> {
  if (active.status !== 'paused')
    return new RunError('run_in_progress', messages.runInProgress, { runId: active.id });
  const checkpoint = (await store.getCheckpoint(active.id)) as RunCheckpoint | undefined;
  if (checkpoint !== undefined && waitsForToolResults(checkpoint))
    return new RunError('tool_results_pending', messages.toolResultsPending, { runId: active.id });
  return new RunError('confirmation_pending', messages.confirmationPending, { runId: active.id });
}
