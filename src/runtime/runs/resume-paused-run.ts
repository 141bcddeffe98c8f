import type { RunStore } from '../../store/index.ts';
import type { RunLog } from '../log/run-log.ts';
import { takeDecision } from '../tools/decision-intake.ts';
import { takeHostResults } from '../tools/host-results-intake.ts';
import type { ToolResultSubmission } from '../tools/host-tool.ts';
import { agentContextOf } from './agent-context-of.ts';
import { ownedRun } from './owned-run.ts';
import type { RunAgents } from './run-agents.ts';
import type { RunDriver } from './run-driver.ts';
import { RunError } from './run-error.ts';
import { storedOptions } from './run-options.ts';

/**
 * What a decision or a host's results do to a paused run. `RunManager` calls these under its per-run
 * lock once the pause is saved.
 */
export class PausedRunResumer {
  readonly #store: RunStore;
  readonly #agents: RunAgents;
  readonly #driver: RunDriver;

  constructor(store: RunStore, agents: RunAgents, driver: RunDriver) {
    this.#store = store;
    this.#agents = agents;
    this.#driver = driver;
  }

  /**
   * Take a decision on a paused write (see `takeDecision`); when it was the last one the pause waited
   * for and this caller wins the claim, drive the run on from its checkpoint on the same log.
   */
  async decide(
    userId: string,
    runId: string,
    toolCallId: string,
    decision: 'approve' | 'reject',
    note?: string,
  ): Promise<RunLog> {
    const store = this.#store;
    const owned = await ownedRun(store, userId, runId);
    const taken = await takeDecision(
      store,
      runId,
      toolCallId,
      decision,
      note,
      async () => owned,
      this.#agents.ofRun(owned).messages,
    );
    const log = await this.#logOf(userId, runId);
    if (!taken.ready) return log;
    const { run, checkpoint, decisions } = taken;
    // Whoever decides last resumes, here or on another instance: one compare-and-set picks one.
    if (!(await this.#driver.claimResume(runId))) return log;
    this.#driver.own(log, run.conversationId, run.messageId);
    const runOptions = storedOptions(checkpoint);
    const context = agentContextOf(runId, run.conversationId, userId, runOptions);
    this.#driver.drive(runId, log, context, runOptions, (agent) =>
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
  async submit(
    userId: string,
    runId: string,
    submitted: ToolResultSubmission[],
  ): Promise<{ log: RunLog; resumed: boolean }> {
    const intake = await takeHostResults(this.#store, runId, submitted, () =>
      ownedRun(this.#store, userId, runId),
    );
    const log = await this.#logOf(userId, runId);
    if (!intake.ready || !(await this.#driver.claimResume(runId))) return { log, resumed: false };
    const { run, checkpoint, answers } = intake;
    this.#driver.own(log, run.conversationId, run.messageId);
    const runOptions = storedOptions(checkpoint);
    const context = agentContextOf(runId, run.conversationId, userId, runOptions);
    this.#driver.drive(runId, log, context, runOptions, (agent) =>
      agent.resumeWithToolResults(checkpoint, answers),
    );
    return { log, resumed: true };
  }

  /** The run's log as a reader gets it, if the user owns the run. */
  async #logOf(userId: string, runId: string): Promise<RunLog> {
    return this.#driver.logOf(await ownedRun(this.#store, userId, runId));
  }
}

/** The stored call as `saveToolCall` takes it back: without its timestamps and the host's result. */
async function toolCallToSave(store: RunStore, runId: string, toolCallId: string) {
  const call = await store.getToolCall(runId, toolCallId);
  if (call === undefined) throw new RunError('not_found', 'no such tool call');
  const { createdAt: _createdAt, updatedAt: _updatedAt, hostResult: _hostResult, ...rest } = call;
  return rest;
}
