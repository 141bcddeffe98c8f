import type { RunRecord, RunStore } from '../store/index.ts';
import { type AgentContext, closeOpenBlocks } from './agent-loop.ts';
import { cancelPendingCalls } from './cancel-pending-calls.ts';
import { finishedUsage } from './finished-usage.ts';
import type { KeyedSerialQueue } from './keyed-serial-queue.ts';
import type { OwnedRunLogs } from './owned-run-logs.ts';
import { type RunCheckpoint, type StoredRunOptions, storedOptions } from './run-options.ts';
import type { RunReplicas } from './run-replicas.ts';
import type { ToolAuditRecorder } from './tool-audit-recorder.ts';

export interface CancelPausedRunDeps {
  store: RunStore;
  replicas: RunReplicas;
  logs: OwnedRunLogs;
  /** The per-run queue of state writes, drained before the ending is stored. */
  writes: KeyedSerialQueue;
  audit: ToolAuditRecorder;
  contextOf(run: RunRecord, runOptions: StoredRunOptions): AgentContext;
  onError?: ((runId: string, error: unknown) => void) | undefined;
}

/**
 * Stop a paused run. It has no owner: the instance that receives the stop ends it, if it wins the
 * run (a compare-and-set from `paused`); one resumed or stopped elsewhere meanwhile is left to that
 * instance. Its open blocks close as cancelled, the calls it waited on end cancelled (store and
 * audit), and the ending is stored before the log is let go.
 */
export async function cancelPausedRun(
  deps: CancelPausedRunDeps,
  run: RunRecord,
  reason: string,
): Promise<void> {
  const { store } = deps;
  const checkpoint = (await store.getCheckpoint(run.id)) as RunCheckpoint | undefined;
  const log = await deps.replicas.get(run);
  const cancelled = await store.transitionRun(
    run.id,
    { status: ['paused'] },
    { status: 'cancelled', cancelReason: reason, leaseOwner: null, leaseExpiresAt: null },
  );
  if (cancelled === undefined) return;
  deps.logs.own(log, run.conversationId, run.messageId);
  closeOpenBlocks(log, 'cancelled');
  log.append({ type: 'run.finished', status: 'cancelled', reason, ...finishedUsage(log) });
  if (checkpoint !== undefined) {
    const context = deps.contextOf(run, storedOptions(checkpoint));
    await cancelPendingCalls(store, deps.audit, run, context, checkpoint, reason, deps.onError);
  }
  await deps.writes.idle(run.id);
  await store.updateRun(run.id, { lastSeq: log.lastSeq });
  await store.saveCheckpoint(run.id, null);
  await deps.logs.releaseEnd(log);
}
