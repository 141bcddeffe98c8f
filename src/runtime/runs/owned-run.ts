import type { RunRecord, RunStore } from '../../store/index.ts';
import { RunError } from './run-error.ts';

/** The run record, if the user owns it: another user's run is indistinguishable from a missing one. */
export async function ownedRun(store: RunStore, userId: string, runId: string): Promise<RunRecord> {
  const run = await store.getRun(runId);
  if (run === undefined || run.userId !== userId) throw new RunError('not_found', 'no such run');
  return run;
}
