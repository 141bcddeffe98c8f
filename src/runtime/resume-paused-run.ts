import type { RunRecord, RunStore } from '../store/index.ts';
import { takeDecision } from './decision-intake.ts';
import type { StretchDriver } from './drive-stretch.ts';
import { takeHostResults } from './host-results-intake.ts';
import type { ToolResultSubmission } from './host-tool.ts';
import type { OwnedRunLogs } from './owned-run-logs.ts';
import type { ResolvedAgent } from './resolved-agent.ts';
import { RunError } from './run-error.ts';
import type { RunLog } from './run-log.ts';
import type { RunManagerOptions } from './run-manager-options.ts';
import { storedOptions } from './run-options.ts';

/** What `RunManager` lends the resumption of a paused run: its options, its logs and its driving. */
export interface ResumePausedRunDeps extends StretchDriver {
  /** The manager's options, read at each resume as the manager read them (its store). */
  options: RunManagerOptions;
  logs: OwnedRunLogs;
  /** The run, if the user owns it (`not_found` otherwise). */
  ownedRun(userId: string, runId: string): Promise<RunRecord>;
  logOf(userId: string, runId: string): Promise<RunLog>;
  /** One instance resumes a paused run and takes its lease: a compare-and-set from `paused`. */
  claimResume(runId: string): Promise<boolean>;
  /** The agent a run belongs to (`RunRecord.agentId`), the default one for runs that name none. */
  agentOfRun(run: RunRecord): ResolvedAgent;
}

// Kept apart from `RunManager`, which calls these under its per-run lock once the pause is saved:
// what a decision or a host's results do to a paused run is one concept, and the manager stays
// about starting, stopping and owning runs.

/**
 * Take a decision on a paused write (see `takeDecision`); when it was the last one the pause waited
 * for and this caller wins the claim, drive the run on from its checkpoint on the same log.
 */
export async function decideAndResume(
  deps: ResumePausedRunDeps,
  userId: string,
  runId: string,
  toolCallId: string,
  decision: 'approve' | 'reject',
  note?: string,
): Promise<RunLog> {
  const { store } = deps.options;
  const owned = await deps.ownedRun(userId, runId);
  const taken = await takeDecision(
    store,
    runId,
    toolCallId,
    decision,
    note,
    async () => owned,
    deps.agentOfRun(owned).messages,
  );
  const log = await deps.logOf(userId, runId);
  if (!taken.ready) return log;
  const { run, checkpoint, decisions } = taken;
  // Whoever decides last resumes, here or on another instance: one compare-and-set picks one.
  if (!(await deps.claimResume(runId))) return log;
  deps.logs.own(log, run.conversationId, run.messageId);
  const runOptions = storedOptions(checkpoint);
  const context = deps.contextOf(runId, run.conversationId, userId, runOptions);
  deps.drive(runId, log, context, runOptions, (agent) =>
    agent.resume(checkpoint, decisions, async (pending) => {
      // One execution however many decisions race: the store hands out a single claim.
      const claimed = await store.claimExecution(runId, pending.toolCallId);
      if (claimed)
        await store.saveToolCall({
          ...(await toolCallToSave(store, runId, pending.toolCallId)),
          status: 'running',
        });
      return claimed;
    }),
  );
  return log;
}

/**
 * Take a host's results of the calls a run paused for (see `takeHostResults`); when every call has
 * its result and this caller wins the claim, drive the run on with them (`resumed: true`).
 */
export async function submitAndResume(
  deps: ResumePausedRunDeps,
  userId: string,
  runId: string,
  submitted: ToolResultSubmission[],
): Promise<{ log: RunLog; resumed: boolean }> {
  const intake = await takeHostResults(deps.options.store, runId, submitted, () =>
    deps.ownedRun(userId, runId),
  );
  const log = await deps.logOf(userId, runId);
  if (!intake.ready || !(await deps.claimResume(runId))) return { log, resumed: false };
  const { run, checkpoint, answers } = intake;
  deps.logs.own(log, run.conversationId, run.messageId);
  const runOptions = storedOptions(checkpoint);
  const context = deps.contextOf(runId, run.conversationId, userId, runOptions);
  deps.drive(runId, log, context, runOptions, (agent) => agent.resumeWithToolResults(checkpoint, answers));
  return { log, resumed: true };
}

/** The stored call as `saveToolCall` takes it back: without its timestamps and the host's result. */
async function toolCallToSave(store: RunStore, runId: string, toolCallId: string) {
  const call = await store.getToolCall(runId, toolCallId);
  if (call === undefined) throw new RunError('not_found', 'no such tool call');
  const { createdAt: _createdAt, updatedAt: _updatedAt, hostResult: _hostResult, ...rest } = call;
  return rest;
}
