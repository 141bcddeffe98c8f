import { closeOpenBlocks } from '../agent/close-open-blocks.ts';
import type { RunLog } from '../log/run-log.ts';
import { finishedUsage } from './finished-usage.ts';

/**
 * Why a run was interrupted: its server restarted (one instance), or the instance that drove it
 * stopped renewing its lease and another took the run over.
 */
export type InterruptReason = 'server_restart' | 'instance_lost';

/**
 * End a run nobody drives any more, visibly: open blocks closed as interrupted, an error block
 * that tells the shopper to check whether a write went through, and `run.finished` interrupted.
 */
export function appendInterruption(
  log: RunLog,
  reason: InterruptReason,
  conversationId: string,
  messageId: string,
  /** What the person reads (`RunMessages.interrupted` of the run's agent). */
  text: string,
): void {
  if (log.state.runId === null) log.append({ type: 'run.started', conversationId, messageId });
  closeOpenBlocks(log, 'interrupted');
  const blockId = `blk_interrupted_${log.lastSeq + 1}`;
  log.append({ type: 'block.started', blockId, kind: 'error' });
  log.append({ type: 'block.delta', blockId, text });
  log.append({ type: 'block.ended', blockId, endedAt: Date.now(), durationMs: 0, status: 'done' });
  log.append({ type: 'run.finished', status: 'interrupted', reason, ...finishedUsage(log) });
}
