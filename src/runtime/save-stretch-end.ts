import { toMessage } from '../protocol/index.ts';
import type { RunPatch, RunStore } from '../store/index.ts';
import type { RunOutcome } from './drive-run.ts';
import type { RunLog } from './run-log.ts';
import type { RunCheckpoint, StoredRunOptions } from './run-options.ts';

/**
 * Write how a stretch of a run ended: the final message once more unless the boundary writes already
 * stored it (`persistedThrough` is its lastSeq; this repairs any boundary write that failed on the
 * way), then for a pause the checkpoint and the calls it waits on, or for an ending the final status.
 * `finishRun` writes the run's status (only while the writer holds the lease, in shared mode).
 */
export async function saveStretchEnd(
  store: RunStore,
  log: RunLog,
  conversationId: string,
  outcome: RunOutcome,
  runOptions: StoredRunOptions,
  finishRun: (patch: RunPatch) => Promise<void>,
  persistedThrough = 0,
): Promise<void> {
  const { runId } = log;
  if (persistedThrough < log.lastSeq)
    await store.saveAssistantMessage(conversationId, log.state.messageId ?? '', runId, toMessage(log.state));
  if (outcome.status === 'paused') {
    const checkpoint: RunCheckpoint = { ...outcome.checkpoint, options: runOptions };
    await store.saveCheckpoint(runId, checkpoint);
    for (const pending of outcome.checkpoint.pending) {
      await store.saveToolCall({
        runId,
        toolCallId: pending.toolCallId,
        name: pending.name,
        args: pending.args,
        effect: 'write',
        status: 'awaiting_confirmation',
        decision: null,
      });
    }
    for (const pending of outcome.checkpoint.hostPending ?? []) {
      await store.saveToolCall({
        runId,
        toolCallId: pending.toolCallId,
        name: pending.name,
        args: pending.args,
        effect: 'host',
        status: 'pending',
        decision: null,
      });
    }
    // A paused run has no owner: whichever instance gets the decision resumes it.
    await finishRun({ status: 'paused', lastSeq: log.lastSeq, leaseOwner: null, leaseExpiresAt: null });
    return;
  }
  const status =
    log.state.status === 'running' || log.state.status === 'idle' || log.state.status === 'paused'
      ? 'failed'
      : log.state.status;
  await finishRun({
    status,
    cancelReason: outcome.status === 'cancelled' ? outcome.reason : null,
    lastSeq: log.lastSeq,
    leaseOwner: null,
    leaseExpiresAt: null,
  });
  await store.saveCheckpoint(runId, null);
}
