import { type EventLog, MemoryEventLog } from '../../bus/index.ts';
import type { RunPatch, RunRecord, ToolAuditEntry } from '../../store/index.ts';
import { Agent, type AgentOutcome } from '../agent/agent-loop.ts';
import type { AgentContext } from '../agent/agent-options.ts';
import { closeOpenBlocks } from '../agent/close-open-blocks.ts';
import type { ResolvedAgent } from '../agent/resolved-agent.ts';
import type { RunMessages } from '../agent/run-messages.ts';
import { OwnedRunLogs } from '../log/owned-run-logs.ts';
import type { RunLog } from '../log/run-log.ts';
import { RunReplicas } from '../log/run-replicas.ts';
import { cancelPendingCalls } from '../tools/cancel-pending-calls.ts';
import { ToolAuditRecorder } from '../tools/tool-audit-recorder.ts';
import { agentContextOf } from './agent-context-of.ts';
import { awaitStretchEnd } from './await-stretch-end.ts';
import { driveRun, type RunOutcome } from './drive-run.ts';
import { finishedUsage } from './finished-usage.ts';
import { appendInterruption, type InterruptReason } from './interrupt-run.ts';
import { KeyedSerialQueue } from './keyed-serial-queue.ts';
import type { RunAgents } from './run-agents.ts';
import { RunCancelled } from './run-cancelled.ts';
import { RunInterrupted } from './run-interrupted.ts';
import { RunLeaseKeeper } from './run-lease-keeper.ts';
import type { RunManagerOptions } from './run-manager-options.ts';
import { type RunCheckpoint, type StoredRunOptions, storedOptions } from './run-options.ts';
import { settleStretch } from './settle-stretch.ts';

/** A run this instance drives. */
export interface LiveRun {
  log: RunLog;
  /** The texts of the run's agent, for what the manager itself says in the run (an interruption). */
  messages: RunMessages;
  controller: AbortController;
  /** Settles when the current stretch (start or resume) has ended and been persisted. */
  settled: Promise<RunOutcome>;
}

/**
 * The runs this instance drives, and everything it holds for them: their agents in the background
 * (one stretch at a time: a start or a resume, until it finishes or pauses), the logs it appends
 * to, each run's state writes in event order, the audit entries, the copies of runs others drive,
 * and, with a shared `eventLog`, the leases that say which instance owns which running run.
 * `RunManager` decides when a stretch starts; this says how it runs and how it ends.
 */
export class RunDriver {
  readonly #options: RunManagerOptions;
  readonly #agents: RunAgents;
  readonly #instanceId: string;
  readonly #shared: boolean;
  readonly #leaseMs: number;
  readonly #live = new Map<string, LiveRun>();
  /** Each run's state writes, in event order. */
  readonly #writes = new KeyedSerialQueue();
  readonly #audit: ToolAuditRecorder;
  readonly #replicas: RunReplicas;
  readonly #logs: OwnedRunLogs;
  readonly #leases: RunLeaseKeeper;
  #closed = false;

  constructor(options: RunManagerOptions, agents: RunAgents) {
    this.#options = options;
    this.#agents = agents;
    this.#instanceId = options.instanceId ?? `inst_${crypto.randomUUID().replaceAll('-', '').slice(0, 12)}`;
    this.#shared = options.eventLog !== undefined;
    const eventLog: EventLog =
      options.eventLog ??
      new MemoryEventLog(options.logCapacity !== undefined ? { capacity: options.logCapacity } : {});
    this.#leaseMs = options.leaseMs ?? 10_000;
    this.#audit = new ToolAuditRecorder(options.audit, options.onPersistenceError);
    this.#replicas = new RunReplicas({
      messagesOf: (run) => agents.ofRun(run).messages,
      store: options.store,
      eventLog,
      watchMs: Math.max(100, Math.floor(this.#leaseMs / 2)),
      ...(options.logCapacity !== undefined ? { capacity: options.logCapacity } : {}),
      ...(options.onPersistenceError !== undefined ? { onError: options.onPersistenceError } : {}),
    });
    this.#logs = new OwnedRunLogs({
      store: options.store,
      eventLog,
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
                agents.default.messages.liveLogUnreachable,
            ),
          ),
    });
    this.#leases = new RunLeaseKeeper({
      store: options.store,
      instanceId: this.#instanceId,
      leaseMs: this.#leaseMs,
      liveRunIds: () => this.#live.keys(),
      onStopRequested: (runId, reason) => this.stop(runId, reason),
      onLeaseLost: (runId) => this.#loseRun(runId),
      onTakenOver: (run) => this.interrupt(run, 'instance_lost'),
      ...(options.onPersistenceError !== undefined ? { onError: options.onPersistenceError } : {}),
    });
    if (this.#shared) this.#leases.start();
  }

  /** This instance's name on the leases it holds. */
  get instanceId(): string {
    return this.#instanceId;
  }

  /** Whether the runs' logs are shared by several instances (runs then carry leases). */
  get shared(): boolean {
    return this.#shared;
  }

  /** The stretch this instance drives for the run, if any. */
  live(runId: string): LiveRun | undefined {
    return this.#live.get(runId);
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

  /** The log this instance drives for the run, or its copy of it (see `RunReplicas`). */
  async logOf(run: RunRecord): Promise<RunLog> {
    return this.#live.get(run.id)?.log ?? this.#replicas.get(run);
  }

  /** A new log for a run this instance drives from here (see `OwnedRunLogs.open`). */
  open(runId: string, conversationId: string, messageId: string): RunLog {
    return this.#logs.open(runId, conversationId, messageId);
  }

  /** From now on this instance appends to `log`, a copy it held (see `OwnedRunLogs.own`). */
  own(log: RunLog, conversationId: string, messageId: string): void {
    this.#logs.own(log, conversationId, messageId);
  }

  /** The lease a run this instance takes now carries (none without a shared log). */
  leaseFields(): { leaseOwner: string | null; leaseExpiresAt: number | null } {
    if (!this.#shared) return { leaseOwner: this.#options.instanceId ?? null, leaseExpiresAt: null };
    return { leaseOwner: this.#instanceId, leaseExpiresAt: this.#leases.expiresAt() };
  }

  /** One instance resumes a paused run, and takes its lease; a stale stop request is cleared. */
  async claimResume(runId: string): Promise<boolean> {
    const claimed = await this.#options.store.transitionRun(
      runId,
      { status: ['paused'] },
      { status: 'running', stopRequested: null, ...this.leaseFields() },
    );
    return claimed !== undefined;
  }

  /**
   * Drive `work` on a new agent for the run: when it ends, its ending is settled into the store (see
   * `settleStretch`) and the run stops being live; until then it is, with its abort controller.
   */
  drive(
    runId: string,
    log: RunLog,
    context: AgentContext,
    runOptions: StoredRunOptions,
    work: (agent: Agent) => Promise<AgentOutcome>,
  ): void {
    const { store } = this.#options;
    const controller = new AbortController();
    const definition = this.#agents.agent(runOptions.agentId);
    const agent = this.#agentFor(definition, log, context, runOptions, controller.signal);
    const settled = (async (): Promise<RunOutcome> => {
      const outcome = await driveRun(log, controller.signal, () => work(agent), definition.messages);
      try {
        await this.#writes.idle(runId);
        const finished = await settleStretch({
          store,
          log,
          conversationId: context.conversationId,
          outcome,
          runOptions,
          finishRun: (patch) => this.#finishWrite(runId, patch),
          persistedThrough: this.#logs.persistedThrough(runId),
          stillOwned: async () =>
            !this.#shared || (await store.getRun(runId))?.leaseOwner === this.#instanceId,
          onError: this.#options.onPersistenceError,
        });
        if (!finished) this.#logs.stopMirror(runId);
      } finally {
        this.#live.delete(runId);
        await this.#logs.releaseEnd(log);
      }
      return outcome;
    })();
    this.#live.set(runId, { log, controller, settled, messages: definition.messages });
  }

  /** Stop the stretch this instance drives for the run, if any (`reason` as the run's cancel reason). */
  stop(runId: string, reason: string): void {
    this.#live.get(runId)?.controller.abort(new RunCancelled(reason));
  }

  /** Stop the run's live stretch, if any, and wait until its ending and state writes are stored. */
  async stopAndSettle(runId: string, reason: string): Promise<void> {
    const live = this.#live.get(runId);
    if (live === undefined) return;
    live.controller.abort(new RunCancelled(reason));
    await live.settled;
    await this.#writes.idle(runId);
  }

  /**
   * Stop a paused run. It has no owner: the instance that receives the stop ends it, if it wins the
   * run (a compare-and-set from `paused`); one resumed or stopped elsewhere meanwhile is left to that
   * instance. Its open blocks close as cancelled, the calls it waited on end cancelled (store and
   * audit), and the ending is stored before the log is let go.
   */
  async cancelPaused(run: RunRecord, reason: string): Promise<void> {
    const { store } = this.#options;
    const checkpoint = (await store.getCheckpoint(run.id)) as RunCheckpoint | undefined;
    const log = await this.#replicas.get(run);
    const cancelled = await store.transitionRun(
      run.id,
      { status: ['paused'] },
      { status: 'cancelled', cancelReason: reason, leaseOwner: null, leaseExpiresAt: null },
    );
    if (cancelled === undefined) return;
    this.#logs.own(log, run.conversationId, run.messageId);
    closeOpenBlocks(log, 'cancelled');
    log.append({ type: 'run.finished', status: 'cancelled', reason, ...finishedUsage(log) });
    if (checkpoint !== undefined) {
      const context = agentContextOf(run.id, run.conversationId, run.userId, storedOptions(checkpoint));
      await cancelPendingCalls(
        store,
        this.#audit,
        run,
        context,
        checkpoint,
        reason,
        this.#options.onPersistenceError,
      );
    }
    await this.#writes.idle(run.id);
    await store.updateRun(run.id, { lastSeq: log.lastSeq });
    await store.saveCheckpoint(run.id, null);
    await this.#logs.releaseEnd(log);
  }

  /** Until the run's audit entries are written. */
  auditIdle(runId: string): Promise<void> {
    return this.#audit.idle(runId);
  }

  /**
   * Until the run's current stretch has ended; by default bounded by two lease times, after which a
   * dead owner's run has been taken over.
   */
  awaitStretchEnd(run: RunRecord, limitMs = 2 * this.#leaseMs + 5000): Promise<void> {
    return awaitStretchEnd(
      this.#options.store,
      run,
      async (current) => this.#live.get(current.id)?.log ?? this.#replicas.get(current),
      { limitMs, checkMs: Math.min(500, this.#leaseMs / 4), stopped: () => this.#closed },
    );
  }

  /** Finish a run nobody drives: continued from what this instance knows of it, then interrupted. */
  async interrupt(run: RunRecord, reason: InterruptReason): Promise<void> {
    const log = await this.#logs.continueRun(run);
    appendInterruption(
      log,
      reason,
      run.conversationId,
      run.messageId,
      this.#agents.ofRun(run).messages.interrupted,
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

  /** Take over the running runs whose lease lapsed (see `RunLeaseKeeper.sweep`). */
  sweepLeases(): Promise<void> {
    return this.#leases.sweep();
  }

  /** Stop driving every run (shutdown): they end as interrupted, persisted. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#leases.stop();
    const live = [...this.#live.values()];
    for (const run of live) run.controller.abort(new RunInterrupted('server_shutdown'));
    await Promise.all(live.map((run) => run.settled));
    this.#replicas.close();
  }

  /** Another instance holds the run now (it took over a lease this one failed to renew in time). */
  #loseRun(runId: string): void {
    this.#logs.stopMirror(runId);
    this.#live.get(runId)?.controller.abort(new RunInterrupted('lease_lost'));
  }

  /** The ending of a stretch, written only while this instance still holds the run's lease. */
  async #finishWrite(runId: string, patch: RunPatch): Promise<void> {
    if (!this.#shared) {
      await this.#options.store.updateRun(runId, patch);
      return;
    }
    await this.#options.store.transitionRun(runId, { leaseOwner: this.#instanceId }, patch);
  }

  #agentFor(
    definition: ResolvedAgent,
    log: RunLog,
    context: AgentContext,
    runOptions: StoredRunOptions,
    signal: AbortSignal,
  ): Agent {
    const audit = this.#audit;
    const policies = [...(this.#options.policies ?? []), ...(definition.policies ?? [])];
    return new Agent({
      model: definition.model,
      tools: definition.tools,
      skills: definition.skills,
      messages: definition.messages,
      log,
      context,
      signal,
      hostTools: runOptions.hostTools,
      ...(policies.length > 0 ? { policies } : {}),
      ...(audit.enabled
        ? { onToolAudit: (entry: ToolAuditEntry) => audit.record(context.runId, entry) }
        : {}),
      ...(definition.maxSteps !== undefined ? { maxIterations: definition.maxSteps } : {}),
    });
  }
}
