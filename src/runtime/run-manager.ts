import {
  type ControlChannel,
  type ControlSignal,
  type EventLog,
  MemoryControlChannel,
  MemoryEventLog,
} from '../bus/index.ts';
import type { RunPatch, RunRecord } from '../store/index.ts';
import { awaitStretchEnd } from './await-stretch-end.ts';
import { type CancelRunDeps, cancelRun } from './cancel-run.ts';
import { agentContextOf, type DriveStretchDeps, driveStretch, type LiveRun } from './drive-stretch.ts';
import type { ToolResultSubmission } from './host-tool.ts';
import { appendInterruption, type InterruptReason } from './interrupt-run.ts';
import { KeyedSerialQueue } from './keyed-serial-queue.ts';
import { OwnedRunLogs } from './owned-run-logs.ts';
import type { ResolvedAgent } from './resolved-agent.ts';
import { decideAndResume, type ResumePausedRunDeps, submitAndResume } from './resume-paused-run.ts';
import { RunCancelled } from './run-cancelled.ts';
import { RunError } from './run-error.ts';
import { RunInterrupted } from './run-interrupted.ts';
import { RunLeaseKeeper } from './run-lease-keeper.ts';
import type { RunLog } from './run-log.ts';
import type { RunManagerOptions } from './run-manager-options.ts';
import { checkRunOptions, type RunOptions, type StoredRunOptions } from './run-options.ts';
import { RunReplicas } from './run-replicas.ts';
import { type StartRunDeps, startRun } from './start-run.ts';
import { ToolAuditRecorder } from './tool-audit-recorder.ts';

export type { RunManagerOptions } from './run-manager-options.ts';
export type { RunOptions } from './run-options.ts';

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
  readonly #agents: ReadonlyMap<string, ResolvedAgent>;
  readonly #defaultAgent: ResolvedAgent;
  readonly #instanceId: string;
  readonly #shared: boolean;
  readonly #eventLog: EventLog;
  readonly #control: ControlChannel;
  readonly #leaseMs: number;
  readonly #live = new Map<string, LiveRun>();
  readonly #logs: OwnedRunLogs;
  readonly #replicas: RunReplicas;
  readonly #leases: RunLeaseKeeper;
  /** Each run's state writes, in event order. */
  readonly #writes = new KeyedSerialQueue();
  readonly #audit: ToolAuditRecorder;
  /**
   * Decisions and stops of one run happen one at a time in this process: an optimisation only, since
   * the store's compare-and-set decides between instances.
   */
  readonly #locks = new KeyedSerialQueue();
  readonly #controlSubscription: Promise<() => void>;
  /** What the parts kept in their own files (starting, driving, resuming, stopping) borrow from it. */
  readonly #deps: StartRunDeps & DriveStretchDeps & ResumePausedRunDeps & CancelRunDeps;
  #closed = false;

  constructor(options: RunManagerOptions) {
    this.#options = options;
    const [first] = options.agents;
    if (first === undefined) throw new TypeError('a RunManager needs at least one agent');
    this.#defaultAgent = first;
    this.#agents = new Map(options.agents.map((agent) => [agent.id, agent]));
    if (this.#agents.size !== options.agents.length) throw new TypeError('agent ids must be unique');
    this.#instanceId = options.instanceId ?? `inst_${crypto.randomUUID().replaceAll('-', '').slice(0, 12)}`;
    this.#shared = options.eventLog !== undefined;
    this.#eventLog =
      options.eventLog ??
      new MemoryEventLog(options.logCapacity !== undefined ? { capacity: options.logCapacity } : {});
    this.#control = options.control ?? new MemoryControlChannel();
    this.#leaseMs = options.leaseMs ?? 10_000;
    this.#audit = new ToolAuditRecorder(options.audit, options.onPersistenceError);
    this.#replicas = new RunReplicas({
      messagesOf: (run) => this.#agentOfRun(run).messages,
      store: options.store,
      eventLog: this.#eventLog,
      watchMs: Math.max(100, Math.floor(this.#leaseMs / 2)),
      ...(options.logCapacity !== undefined ? { capacity: options.logCapacity } : {}),
      ...(options.onPersistenceError !== undefined ? { onError: options.onPersistenceError } : {}),
    });
    this.#logs = new OwnedRunLogs({
      store: options.store,
      eventLog: this.#eventLog,
      replicas: this.#replicas,
      writes: this.#writes,
      mirror: this.#shared,
      ...(options.logCapacity !== undefined ? { capacity: options.logCapacity } : {}),
      ...(options.liveLogGiveUpMs !== undefined ? { liveLogGiveUpMs: options.liveLogGiveUpMs } : {}),
      ...(options.onPersistenceError !== undefined ? { onPersistenceError: options.onPersistenceError } : {}),
      onLost: (runId) => this.#loseRun(runId),
      onUnreachable: (runId) =>
        this.#live
          .get(runId)
          ?.controller.abort(
            new RunInterrupted(
              'live_log_unreachable',
              this.#live.get(runId)?.messages.liveLogUnreachable ??
                this.#defaultAgent.messages.liveLogUnreachable,
            ),
          ),
    });
    this.#leases = new RunLeaseKeeper({
      store: options.store,
      instanceId: this.#instanceId,
      leaseMs: this.#leaseMs,
      liveRunIds: () => this.#live.keys(),
      onStopRequested: (runId, reason) => this.#live.get(runId)?.controller.abort(new RunCancelled(reason)),
      onLeaseLost: (runId) => this.#loseRun(runId),
      onTakenOver: (run) => this.#interrupt(run, 'instance_lost'),
      ...(options.onPersistenceError !== undefined ? { onError: options.onPersistenceError } : {}),
    });
    this.#deps = {
      options,
      shared: this.#shared,
      instanceId: this.#instanceId,
      live: this.#live,
      writes: this.#writes,
      logs: this.#logs,
      audit: this.#audit,
      replicas: this.#replicas,
      control: this.#control,
      finishWrite: (runId, patch) => this.#finishWrite(runId, patch),
      awaitStretchEnd: (run) => this.#awaitStretchEnd(run),
      checkRunOptions: (runOptions, agent) => this.#checkRunOptions(runOptions, agent),
      agentOf: (agentId) => this.agent(agentId),
      agentOfRun: (run) => this.#agentOfRun(run),
      liveRun: (runId) => this.#live.get(runId),
      newId: (prefix) => this.#newId(prefix),
      leaseFields: () => this.#leaseFields(),
      ownedRun: (userId, runId) => this.#ownedRun(userId, runId),
      logOf: (userId, runId) => this.logOf(userId, runId),
      claimResume: (runId) => this.#claimResume(runId),
      contextOf: agentContextOf,
      drive: (runId, log, context, runOptions, work) =>
        driveStretch(this.#deps, runId, log, context, runOptions, work),
    };
    if (this.#shared) this.#leases.start();
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
    if (agentId === undefined || agentId === '') return this.#defaultAgent;
    const agent = this.#agents.get(agentId);
    if (agent === undefined) throw new RunError('unknown_agent', `no agent named ${agentId} runs here`);
    return agent;
  }

  /** A run's agent for what the manager says in it; an unknown one falls back to the default's texts. */
  #agentOfRun(run: RunRecord): ResolvedAgent {
    return this.#agents.get(run.agentId ?? '') ?? this.#defaultAgent;
  }

  /** This instance's name on the leases it holds. */
  get instanceId(): string {
    return this.#instanceId;
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
    return startRun(this.#deps, userId, conversationId, text, clientMessageId, options);
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
    return this.#locks.run(runId, () =>
      decideAndResume(this.#deps, userId, runId, toolCallId, decision, note),
    );
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
    return this.#locks.run(runId, () => submitAndResume(this.#deps, userId, runId, results));
  }

  /**
   * The explicit stop. Idempotent: stopping a finished run changes nothing. A run another instance
   * drives is stopped by recording the request in the store and signalling its owner; the call
   * returns once the run has ended (its owner stopped it, or, if it died, whoever took it over).
   */
  async cancel(userId: string, runId: string, reason = 'user_stop'): Promise<RunRecord> {
    await this.#ownedRun(userId, runId);
    return this.#locks.run(runId, () => cancelRun(this.#deps, userId, runId, reason));
  }

  /**
   * Resolves when the run's current stretch has ended (finished or paused) and been persisted, its
   * audit entries included.
   */
  async settled(runId: string): Promise<void> {
    await this.#live.get(runId)?.settled;
    await this.#writes.idle(runId);
    await this.#audit.idle(runId);
  }

  /** The run record, if the user owns it. */
  async getRun(userId: string, runId: string): Promise<RunRecord> {
    return this.#ownedRun(userId, runId);
  }

  /**
   * The run's log for streaming: the one this instance drives, or this process's copy of it (kept
   * current from the shared log; built from the persisted message when there is none, and then
   * replay from before it is a snapshot).
   */
  async logOf(userId: string, runId: string): Promise<RunLog> {
    const run = await this.#ownedRun(userId, runId);
    return this.#live.get(runId)?.log ?? this.#replicas.get(run);
  }

  /**
   * At start-up. With the in-process log (one instance), every run a crash left `running` becomes
   * `interrupted`, its message saying so, so the shopper checks whether a write went through. With
   * a shared log, only runs whose lease lapsed are taken over: other instances' runs go on.
   */
  async recoverInterruptedRuns(): Promise<number> {
    const { store } = this.#options;
    if (this.#shared) {
      const before = new Set((await store.listRunsByStatus('running')).map((run) => run.id));
      await this.#leases.sweep();
      const after = new Set((await store.listRunsByStatus('running')).map((run) => run.id));
      return [...before].filter((runId) => !after.has(runId)).length;
    }
    const orphans = await store.listRunsByStatus('running');
    for (const run of orphans) await this.#interrupt(run, 'server_restart');
    return orphans.length;
  }

  /** Stop driving every run (shutdown): they end as interrupted, persisted. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#leases.stop();
    const live = [...this.#live.values()];
    for (const run of live) run.controller.abort(new RunInterrupted('server_shutdown'));
    await Promise.all(live.map((run) => run.settled));
    this.#replicas.close();
    const unsubscribe = await this.#controlSubscription.catch(() => undefined);
    unsubscribe?.();
  }

  /** A stop signalled by another instance for a run this one drives: the store says why. */
  async #onControl(signal: ControlSignal): Promise<void> {
    const live = this.#live.get(signal.runId);
    if (live === undefined || signal.kind !== 'stop') return;
    const run = await this.#options.store.getRun(signal.runId).catch(() => undefined);
    const reason = run?.stopRequested;
    if (reason) live.controller.abort(new RunCancelled(reason));
  }

  /** Another instance holds the run now (it took over a lease this one failed to renew in time). */
  #loseRun(runId: string): void {
    this.#logs.stopMirror(runId);
    this.#live.get(runId)?.controller.abort(new RunInterrupted('lease_lost'));
  }

  /** Finish a run nobody drives: continued from what this instance knows of it, then interrupted. */
  async #interrupt(run: RunRecord, reason: InterruptReason): Promise<void> {
    const log = await this.#logs.continueRun(run);
    appendInterruption(
      log,
      reason,
      run.conversationId,
      run.messageId,
      this.#agentOfRun(run).messages.interrupted,
    );
    await this.#writes.idle(run.id);
    await this.#finishWrite(run.id, {
      status: 'interrupted',
      cancelReason: reason,
      lastSeq: log.lastSeq,
      leaseOwner: null,
    });
    await this.#logs.releaseEnd(log);
  }

  /**
   * Until the run's current stretch has ended; by default bounded by two lease times, after which a
   * dead owner's run has been taken over.
   */
  #awaitStretchEnd(run: RunRecord, limitMs = 2 * this.#leaseMs + 5000): Promise<void> {
    return awaitStretchEnd(
      this.#options.store,
      run,
      async (current) => this.#live.get(current.id)?.log ?? this.#replicas.get(current),
      { limitMs, checkMs: Math.min(500, this.#leaseMs / 4), stopped: () => this.#closed },
    );
  }

  /** The ending of a stretch, written only while this instance still holds the run's lease. */
  async #finishWrite(runId: string, patch: RunPatch): Promise<void> {
    if (!this.#shared) {
      await this.#options.store.updateRun(runId, patch);
      return;
    }
    await this.#options.store.transitionRun(runId, { leaseOwner: this.#instanceId }, patch);
  }

  /** One instance resumes a paused run, and takes its lease; a stale stop request is cleared. */
  async #claimResume(runId: string): Promise<boolean> {
    const claimed = await this.#options.store.transitionRun(
      runId,
      { status: ['paused'] },
      { status: 'running', stopRequested: null, ...this.#leaseFields() },
    );
    return claimed !== undefined;
  }

  #leaseFields(): { leaseOwner: string | null; leaseExpiresAt: number | null } {
    if (!this.#shared) return { leaseOwner: this.#options.instanceId ?? null, leaseExpiresAt: null };
    return { leaseOwner: this.#instanceId, leaseExpiresAt: this.#leases.expiresAt() };
  }

  /**
   * A decision or a tool result may reach this instance before the owner (here or elsewhere) has
   * saved the pause the shopper saw: the card shows on the owner's own stream at once, while the
   * store, and the shared log, get the pause a moment later. Wait for that, briefly.
   */
  async #awaitPauseSaved(runId: string): Promise<void> {
    await this.settled(runId);
    if (!this.#shared) return;
    const run = await this.#options.store.getRun(runId);
    if (run?.status === 'running') await this.#awaitStretchEnd(run, 10_000);
  }

  /**
   * Refuse run options that `startRun` would refuse (`invalid_request`), before the caller creates
   * anything for the run (the Responses API checks before it opens a conversation): host tools are
   * checked against the tools of the agent the run will have (default: the default agent).
   */
  checkRunOptions(options: RunOptions, agentId?: string): void {
    this.#checkRunOptions(options, this.agent(agentId));
  }

  #checkRunOptions(options: RunOptions, agent: ResolvedAgent): StoredRunOptions {
    return checkRunOptions(
      options,
      agent.tools.map((tool) => tool.name),
    );
  }

  async #ownedRun(userId: string, runId: string): Promise<RunRecord> {
    const run = await this.#options.store.getRun(runId);
    // Another user's run is indistinguishable from a missing one.
    if (run === undefined || run.userId !== userId) throw new RunError('not_found', 'no such run');
    return run;
  }

  #newId(prefix: string): string {
    return (
      this.#options.newId?.(prefix) ?? `${prefix}_${crypto.randomUUID().replaceAll('-', '').slice(0, 20)}`
    );
  }
}
