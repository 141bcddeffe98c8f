import type { ControlChannel } from '../bus/index.ts';
import type { RunRecord } from '../store/index.ts';
import { cancelPausedRun } from './cancel-paused-run.ts';
import { agentContextOf, type LiveRun } from './drive-stretch.ts';
import type { KeyedSerialQueue } from './keyed-serial-queue.ts';
import type { OwnedRunLogs } from './owned-run-logs.ts';
import { RunCancelled } from './run-cancelled.ts';
import type { RunManagerOptions } from './run-manager-options.ts';
import type { RunReplicas } from './run-replicas.ts';
import type { ToolAuditRecorder } from './tool-audit-recorder.ts';

/** What `RunManager` lends a stop: its options, its runs in progress, and the way to reach their owners. */
export interface CancelRunDeps {
  options: RunManagerOptions;
  live: Map<string, LiveRun>;
  writes: KeyedSerialQueue;
  audit: ToolAuditRecorder;
  replicas: RunReplicas;
  logs: OwnedRunLogs;
  control: ControlChannel;
  /** The run, if the user owns it (`not_found` otherwise). */
  ownedRun(userId: string, runId: string): Promise<RunRecord>;
  /** Until the run's current stretch has ended, bounded by two lease times. */
  awaitStretchEnd(run: RunRecord): Promise<void>;
}

/**
 * `RunManager.cancel` under the run's lock, kept apart so the manager file stays about owning and
 * driving runs: a run driven here is aborted; one another instance drives gets a stop request in the
 * store and a signal to its owner, and is awaited; a paused one is ended here. Resolves with the run
 * as the store then has it.
 */
export async function cancelRun(
  deps: CancelRunDeps,
  userId: string,
  runId: string,
  reason: string,
): Promise<RunRecord> {
  const { store } = deps.options;
  const live = deps.live.get(runId);
  if (live) {
    live.controller.abort(new RunCancelled(reason));
    await live.settled;
    await deps.writes.idle(runId);
  }
  let run = await deps.ownedRun(userId, runId);
  if (run.status === 'running' && !deps.live.has(runId)) {
    await store.transitionRun(
      runId,
      { status: ['running'], noStopRequested: true },
      { stopRequested: reason },
    );
    // A lost signal only delays the stop until the owner's next lease renewal reads the store.
    await deps.control.publish({ runId, kind: 'stop' }).catch((error: unknown) => {
      deps.options.onPersistenceError?.(runId, error);
    });
    await deps.awaitStretchEnd(run);
    run = await deps.ownedRun(userId, runId);
  }
  if (run.status === 'paused') await cancelPaused(deps, run, reason);
  await deps.audit.idle(runId);
  return (await store.getRun(runId)) as RunRecord;
}

/** A paused run has no owner: the instance that receives the stop ends it (see `cancelPausedRun`). */
function cancelPaused(deps: CancelRunDeps, run: RunRecord, reason: string): Promise<void> {
  return cancelPausedRun(
    {
      store: deps.options.store,
      replicas: deps.replicas,
      logs: deps.logs,
      writes: deps.writes,
      audit: deps.audit,
      contextOf: (paused, runOptions) =>
        agentContextOf(paused.id, paused.conversationId, paused.userId, runOptions),
      onError: deps.options.onPersistenceError,
    },
    run,
    reason,
  );
}
