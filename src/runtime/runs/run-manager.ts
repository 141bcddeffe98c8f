import { type ControlChannel, type ControlSignal, MemoryControlChannel } from '../../bus/index.ts';
import type { RunRecord } from '../../store/index.ts';
import type { ResolvedAgent } from '../agent/resolved-agent.ts';
import type { RunLog } from '../log/run-log.ts';
import type { ToolResultSubmission } from '../tools/host-tool.ts';
import { RunStopper } from './cancel-run.ts';
import { KeyedSerialQueue } from './keyed-serial-queue.ts';
import { ownedRun } from './owned-run.ts';
import { PausedRunResumer } from './resume-paused-run.ts';
import { RunAgents } from './run-agents.ts';
import { RunCancelled } from './run-cancelled.ts';
import { RunDriver } from './run-driver.ts';
import type { RunManagerOptions } from './run-manager-options.ts';
import { checkRunOptions, type RunOptions } from './run-options.ts';
import { RunStarter } from './start-run.ts';

/**
 * Runs outlive connections: the manager drives each run's agent in the background and keeps its
 * log; HTTP handlers only start runs, read their logs and send decisions or stops. Every method
 * takes the caller's user id and refuses (as `not_found`) anything that user does not own.
 *
 * What decides between concurrent requests is the store (compare-and-set on the run, the decision
 * and the tool result rows), so several instances can share one database: with a shared
 * `eventLog`, each running run has an owner holding its lease, other instances follow its log,
 * forward stops, and resume paused runs themselves. The per-run lock below only saves work within
 * one process.
 */
export class RunManager {
  readonly #options: RunManagerOptions;
  readonly #agents: RunAgents;
  readonly #control: ControlChannel;
  /** The runs this instance drives, their logs, writes, audit and leases. */
  readonly #driver: RunDriver;
  readonly #starter: RunStarter;
  readonly #resumer: PausedRunResumer;
  readonly #stopper: RunStopper;
  /**
   * Decisions and stops of one run happen one at a time in this process: an optimisation only, since
   * the store's compare-and-set decides between instances.
   */
  readonly #locks = new KeyedSerialQueue();
  readonly #controlSubscription: Promise<() => void>;

  constructor(options: RunManagerOptions) {
    this.#options = options;
    this.#agents = new RunAgents(options.agents);
    this.#control = options.control ?? new MemoryControlChannel();
    this.#driver = new RunDriver(options, this.#agents);
    this.#starter = new RunStarter(options.store, this.#agents, this.#driver, (prefix) =>
      this.#newId(prefix),
    );
    this.#resumer = new PausedRunResumer(options.store, this.#agents, this.#driver);
    this.#stopper = new RunStopper(options.store, this.#control, this.#driver, options.onPersistenceError);
    this.#controlSubscription = this.#control.subscribe((signal) => void this.#onControl(signal));
    this.#controlSubscription.catch((error: unknown) => options.onPersistenceError?.('', error));
  }

  /** The agents this manager runs; the first is the default. */
  get agents(): readonly ResolvedAgent[] {
    return this.#options.agents;
  }

  /**
   * The agent of that id; `''` or undefined is the default one. An id this manager does not run is
   * `unknown_agent` (a conversation of an agent that was removed from the server).
   */
  agent(agentId?: string): ResolvedAgent {
    return this.#agents.agent(agentId);
  }

  /** This instance's name on the leases it holds. */
  get instanceId(): string {
    return this.#driver.instanceId;
  }

  /**
   * Start a run for a new user message; refuses while the conversation has an active run. `options`
   * are checked before anything is stored: a host tool named like a server tool (or `load_skill`),
   * twice, or not as a model API accepts, is refused with `invalid_request`.
   */
  async startRun(
    userId: string,
    conversationId: string,
    text: string,
    clientMessageId?: string,
    options: RunOptions = {},
  ): Promise<RunLog> {
    return this.#starter.start(userId, conversationId, text, clientMessageId, options);
  }

  /**
   * Decide on a paused write. Single-use: a second decision (a double click) changes nothing and is
   * refused with the first decision. When every pending write is decided, the run resumes.
   */
  async decide(
    userId: string,
    runId: string,
    toolCallId: string,
    decision: 'approve' | 'reject',
    note?: string,
  ): Promise<RunLog> {
    await this.#ownedRun(userId, runId);
    // A decision that arrives while the run is still pausing waits until the pause is saved.
    await this.#awaitPauseSaved(runId);
    return this.#locks.run(runId, () => this.#resumer.decide(userId, runId, toolCallId, decision, note));
  }

  /**
   * Submit the host's results of host tool calls the run paused for. Validated whole before anything
   * is stored; each result is single-use: the same result again is a no-op, a different one is a
   * `tool_result_conflict`. When every call of the pause has its result, the run resumes on the same
   * log (`resumed: true`); until then it keeps waiting.
   */
  async submitToolResults(
    userId: string,
    runId: string,
    results: ToolResultSubmission[],
  ): Promise<{ log: RunLog; resumed: boolean }> {
    await this.#ownedRun(userId, runId);
    // Results that arrive while the run is still pausing wait until the pause is saved.
    await this.#awaitPauseSaved(runId);
    return this.#locks.run(runId, () => this.#resumer.submit(userId, runId, results));
  }

  /**
   * The explicit stop. Idempotent: stopping a finished run changes nothing. A run another instance
   * drives is stopped by recording the request in the store and signalling its owner; the call
   * returns once the run has ended (its owner stopped it, or, if it died, whoever took it over).
   */
  async cancel(userId: string, runId: string, reason = 'user_stop'): Promise<RunRecord> {
    await this.#ownedRun(userId, runId);
    return this.#locks.run(runId, () => this.#stopper.cancel(userId, runId, reason));
  }

  /**
   * Resolves when the run's current stretch has ended (finished or paused) and been persisted, its
   * audit entries included.
   */
  async settled(runId: string): Promise<void> {
    await this.#driver.settled(runId);
  }

  /**
   * The run record, if the user owns it. A reader that just got the stream's `done` asks at once:
   * when the log this instance drives has ended but the store does not say so yet, the answer waits
   * for the store, so it never contradicts what the reader saw.
   */
  async getRun(userId: string, runId: string): Promise<RunRecord> {
    const run = await this.#ownedRun(userId, runId);
    if (!(await this.#settleEnded(runId))) return run;
    return this.#ownedRun(userId, runId);
  }

  /**
   * Waits for the stretch of this run that this instance drives when its log has already ended
   * (finished or paused) but may not be persisted yet; `false`, at once, when there is none.
   */
  async #settleEnded(runId: string): Promise<boolean> {
    const live = this.#driver.live(runId);
    if (live === undefined || !(live.log.finished || live.log.paused)) return false;
    await this.#driver.settled(runId).catch(() => undefined);
    return true;
  }

  /**
   * Waits until the conversation's active run, when its log has ended on this instance, is what
   * the store says too: a conversation read right after a stream's `done` shows the message as
   * the stream left it.
   */
  async settleConversation(conversationId: string): Promise<void> {
    const active = await this.#options.store.findActiveRun(conversationId);
    if (active !== undefined) await this.#settleEnded(active.id);
  }

  /**
   * The run's log for streaming: the one this instance drives, or this process's copy of it (kept
   * current from the shared log; built from the persisted message when there is none, and then
   * replay from before it is a snapshot).
   */
  async logOf(userId: string, runId: string): Promise<RunLog> {
    return this.#driver.logOf(await this.#ownedRun(userId, runId));
  }

  /**
   * At start-up. With the in-process log (one instance), every run a crash left `running` becomes
   * `interrupted`, its message saying so, so the shopper checks whether a write went through. With
   * a shared log, only runs whose lease lapsed are taken over: other instances' runs go on.
   */
  async recoverInterruptedRuns(): Promise<number> {
    const { store } = this.#options;
    if (this.#driver.shared) {
      const before = new Set((await store.listRunsByStatus('running')).map((run) => run.id));
      await this.#driver.sweepLeases();
      const after = new Set((await store.listRunsByStatus('running')).map((run) => run.id));
      return [...before].filter((runId) => !after.has(runId)).length;
    }
    const orphans = await store.listRunsByStatus('running');
    for (const run of orphans) await this.#driver.interrupt(run, 'server_restart');
    return orphans.length;
  }

  /** Stop driving every run (shutdown): they end as interrupted, persisted. */
  async close(): Promise<void> {
    await this.#driver.close();
    const unsubscribe = await this.#controlSubscription.catch(() => undefined);
    unsubscribe?.();
  }

  /** A stop signalled by another instance for a run this one drives: the store says why. */
  async #onControl(signal: ControlSignal): Promise<void> {
    const live = this.#driver.live(signal.runId);
    if (live === undefined || signal.kind !== 'stop') return;
    const run = await this.#options.store.getRun(signal.runId).catch(() => undefined);
    const reason = run?.stopRequested;
    if (reason) live.controller.abort(new RunCancelled(reason));
  }

  /**
   * A decision or a tool result may reach this instance before the owner (here or elsewhere) has
   * saved the pause the shopper saw: the card shows on the owner's own stream at once, while the
   * store, and the shared log, get the pause a moment later. Wait for that, briefly.
   */
  async #awaitPauseSaved(runId: string): Promise<void> {
    await this.settled(runId);
    if (!this.#driver.shared) return;
    const run = await this.#options.store.getRun(runId);
    if (run?.status === 'running') await this.#driver.awaitStretchEnd(run, 10_000);
  }

  /**
   * Refuse run options that `startRun` would refuse (`invalid_request`), before the caller creates
   * anything for the run (the Responses API checks before it opens a conversation): host tools are
   * checked against the tools of the agent the run will have (default: the default agent).
   */
  checkRunOptions(options: RunOptions, agentId?: string): void {
    checkRunOptions(
      options,
      this.agent(agentId).tools.map((tool) => tool.name),
    );
  }

  #ownedRun(userId: string, runId: string): Promise<RunRecord> {
    return ownedRun(this.#options.store, userId, runId);
  }

  #newId(prefix: string): string {
    return (
      this.#options.newId?.(prefix) ?? `${prefix}_${crypto.randomUUID().replaceAll('-', '').slice(0, 20)}`
    );
  }
}
