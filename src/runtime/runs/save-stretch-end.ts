import { type ToolBlock, toMessage } from '../../protocol/index.ts';
import type { RunPatch, RunStore, ToolCallRecord } from '../../store/index.ts';
import type { RunLog } from '../log/run-log.ts';
import type { RunOutcome } from './drive-run.ts';
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
  await endToolCallRows(store, log);
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

/** What a tool call's row says once its block has ended with this status. */
const ENDED_CALL: Partial<Record<ToolBlock['status'], ToolCallRecord['status']>> = {
  done: 'done',
  failed: 'failed',
  rejected: 'rejected',
  cancelled: 'cancelled',
  interrupted: 'failed',
};

/**
 * Rows of write calls end as their blocks did. An approved write's row is marked `running` when its
 * execution is claimed and a rejected one keeps `awaiting_confirmation`; nothing else writes them,
 * so without this the store would show a call that failed or finished long ago as still running.
 */
async function endToolCallRows(store: RunStore, log: RunLog): Promise<void> {
  // Only writes (behind a card) have rows that their execution leaves open.
  if (!log.state.blocks.some((block) => block.kind === 'confirm')) return;
  const blocks = new Map<string, ToolBlock>();
  for (const block of log.state.blocks) if (block.kind === 'tool') blocks.set(block.toolCallId, block);
  for (const record of await store.listToolCalls(log.runId)) {
    if (record.status !== 'running' && record.status !== 'awaiting_confirmation') continue;
    const block = blocks.get(record.toolCallId);
    if (block === undefined || block.endedAt === null) continue;
    const status = ENDED_CALL[block.status];
    if (status === undefined) continue;
    const { createdAt: _createdAt, updatedAt: _updatedAt, hostResult: _hostResult, ...rest } = record;
    const error =
      block.error ??
      (block.status === 'interrupted'
        ? { code: 'interrupted', message: 'the run was interrupted while the call was open' }
        : undefined);
    await store.saveToolCall({
      ...rest,
      status,
      ...(block.result !== undefined ? { result: block.result } : {}),
      ...(error !== undefined ? { error } : {}),
    });
  }
}
