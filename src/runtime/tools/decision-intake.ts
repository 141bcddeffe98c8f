import type { RunRecord, RunStore } from '../../store/index.ts';
import type { RunMessages } from '../agent/run-messages.ts';
import { RunError } from '../runs/run-error.ts';
import type { RunCheckpoint } from '../runs/run-options.ts';

/** What a decision came to: other writes of the pause still wait, or every one is decided. */
export type DecisionIntake =
  | { ready: false }
  | { ready: true; run: RunRecord; checkpoint: RunCheckpoint; decisions: Map<string, 'approve' | 'reject'> };

/**
 * Record a decision on a paused write. Single-use: a second decision (a double click, or a click on
 * another instance) changes nothing and is refused with the first one, since the store's
 * conditional write decides. `ready` once every pending write of the pause is decided; whoever then
 * wins the claim to resume drives the run. `ownedRun` reads the run as its caller may see it.
 */
export async function takeDecision(
  store: RunStore,
  runId: string,
  toolCallId: string,
  decision: 'approve' | 'reject',
  note: string | undefined,
  ownedRun: () => Promise<RunRecord>,
  messages: RunMessages,
): Promise<DecisionIntake> {
  const run = await ownedRun();
  const call = await store.getToolCall(runId, toolCallId);
  if (call === undefined || call.effect !== 'write') throw new RunError('not_found', 'no such confirmation');
  if (call.decision !== null)
    throw new RunError('decision_conflict', messages.alreadyDecided, { decision: call.decision });
  if (run.status !== 'paused') {
    throw new RunError('run_finished', 'the run is no longer waiting for a decision', {
      status: run.status,
    });
  }
  const result = await store.decide(runId, toolCallId, {
    decision,
    decidedAt: Date.now(),
    ...(note ? { note } : {}),
  });
  if (!result.applied) {
    // Lost a race with another decision (a double click): the first one stands.
    throw new RunError('decision_conflict', messages.alreadyDecided, { decision: result.decision });
  }
  const checkpoint = (await store.getCheckpoint(runId)) as RunCheckpoint | undefined;
  if (checkpoint === undefined) throw new RunError('not_paused', 'the run has nothing to resume');
  const decisions = new Map<string, 'approve' | 'reject'>();
  for (const pending of checkpoint.pending) {
    const recorded = await store.getToolCall(runId, pending.toolCallId);
    if (recorded?.decision) decisions.set(pending.toolCallId, recorded.decision.decision);
  }
  if (decisions.size < checkpoint.pending.length) return { ready: false };
  return { ready: true, run, checkpoint, decisions };
}
