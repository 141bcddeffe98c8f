import type { AgentOutcome } from '../agent/agent-loop.ts';
import { closeOpenBlocks } from '../agent/close-open-blocks.ts';
import { formatMessage, RUN_MESSAGES, type RunMessages } from '../agent/run-messages.ts';
import type { RunLog } from '../log/run-log.ts';
import { finishedUsage } from './finished-usage.ts';
import { RunCancelled } from './run-cancelled.ts';
import { RunInterrupted } from './run-interrupted.ts';

export type RunOutcome = AgentOutcome | { status: 'cancelled'; reason: string };

/**
 * Drive one stretch of a run (its start, or its continuation after a decision) and write its ending:
 * `run.finished` with the right status, or nothing when it paused. A stop (the signal aborted with
 * `RunCancelled`) keeps the partial blocks, closed as cancelled; any other abort (a shutdown) marks
 * the run interrupted. Never throws: every ending is an event.
 */
export async function driveRun(
  log: RunLog,
  signal: AbortSignal,
  work: () => Promise<AgentOutcome>,
  /** The texts of the run's agent (the error block of a failure the loop itself did not catch). */
  messages: RunMessages = RUN_MESSAGES['zh-CN'],
): Promise<RunOutcome> {
  try {
    const outcome = await work();
    if (outcome.status === 'completed')
      log.append({ type: 'run.finished', status: 'completed', ...finishedUsage(log) });
    if (outcome.status === 'failed')
      log.append({ type: 'run.finished', status: 'failed', error: outcome.error, ...finishedUsage(log) });
    return outcome;
  } catch (error) {
    if (signal.aborted) {
      const cause: unknown = signal.reason;
      const reason =
        cause instanceof RunCancelled || cause instanceof RunInterrupted ? cause.reason : 'server_shutdown';
      const status = cause instanceof RunCancelled ? 'cancelled' : 'interrupted';
      closeOpenBlocks(log, status);
      if (cause instanceof RunInterrupted && cause.explanation !== undefined && !log.finished) {
        const blockId = `blk_interrupted_${log.lastSeq + 1}`;
        log.append({ type: 'block.started', blockId, kind: 'error' });
        log.append({ type: 'block.delta', blockId, text: cause.explanation });
        log.append({ type: 'block.ended', blockId, endedAt: Date.now(), durationMs: 0, status: 'done' });
      }
      if (!log.finished) log.append({ type: 'run.finished', status, reason, ...finishedUsage(log) });
      return { status: 'cancelled', reason };
    }
    // A bug in the loop itself: still end the run visibly rather than leave it running forever.
    closeOpenBlocks(log, 'interrupted');
    const message = error instanceof Error ? error.message : String(error);
    const blockId = `blk_error_${log.lastSeq + 1}`;
    log.append({ type: 'block.started', blockId, kind: 'error' });
    log.append({ type: 'block.delta', blockId, text: formatMessage(messages.runFailed, { message }) });
    log.append({ type: 'block.ended', blockId, endedAt: Date.now(), durationMs: 0, status: 'done' });
    log.append({
      type: 'run.finished',
      status: 'failed',
      error: { code: 'runtime_error', message },
      ...finishedUsage(log),
    });
    return { status: 'failed', error: { code: 'runtime_error', message } };
  }
}
