import type { ChatMessage, ChatModel } from '../models/index.ts';
import { type Message, toMessage } from '../protocol/index.ts';
import type { HostToolResult, RunRecord, RunStore, StoredMessage, ToolCallRecord } from '../store/index.ts';
import {
  Agent,
  type AgentCheckpoint,
  type AgentContext,
  type AgentOutcome,
  closeOpenBlocks,
  HOST_TOOL_FAILED,
  LOAD_SKILL_TOOL,
  waitsForToolResults,
} from './agent-loop.ts';
import { driveRun, type RunOutcome } from './drive-run.ts';
import {
  type HostToolDefinition,
  HostToolDefinitionSchema,
  MAX_HOST_TOOLS,
  type ToolResultSubmission,
} from './host-tool.ts';
import { RunCancelled } from './run-cancelled.ts';
import { CONFIRMATION_PENDING_MESSAGE, RunError, TOOL_RESULTS_PENDING_MESSAGE } from './run-error.ts';
import { RunLog } from './run-log.ts';
import type { Skill } from './skill.ts';
import type { AnyTool } from './tool.ts';
import { type ToolAuditEntry, type ToolAuditLog, toolAuditEntry } from './tool-audit.ts';
import type { ToolPolicy } from './tool-policy.ts';

export const INTERRUPTED_MESSAGE = '本轮异常中断，请核对刚才提交的操作是否已经生效。';

export interface RunManagerOptions {
  store: RunStore;
  model: ChatModel;
  tools: readonly AnyTool[];
  skills: readonly Skill[];
  systemPrompt: string;
  maxIterations?: number;
  /** Events kept per run for replay. Default 10,000. */
  logCapacity?: number;
  /** Names this server instance on the runs it drives. */
  instanceId?: string;
  newId?: (prefix: string) => string;
  /** Told about a failed write of a run's state (it is retried when the stretch ends), or of an audit entry. */
  onPersistenceError?: (runId: string, error: unknown) => void;
  /**
   * Governance hooks, checked in order for every tool call (server, host and `load_skill`) after its
   * arguments validate and before it runs, shows its card or pauses for the host.
   */
  policies?: readonly ToolPolicy[];
  /** Where each tool call's audit entry goes once its outcome is known (best effort). */
  audit?: ToolAuditLog;
}

/** How a run is started, beyond its message. */
export interface RunOptions {
  /** Tools the caller declares and executes itself; the run waits for their results. */
  hostTools?: HostToolDefinition[];
  /** Appended to the system prompt for this run. */
  instructions?: string;
  /** The caller's trace id (1–200 characters): on `run.started`, tool contexts and audit entries. */
  traceId?: string;
  /** Which face started the run. Default `chat`. */
  face?: 'chat' | 'responses';
}

/** The run's options as its checkpoint keeps them, so a resume (also after a restart) has them. */
interface StoredRunOptions {
  hostTools: HostToolDefinition[];
  instructions?: string;
  traceId?: string;
  face: 'chat' | 'responses';
}

/** What is saved while a run is paused: where the agent stands, and how the run was started. */
interface RunCheckpoint extends AgentCheckpoint {
  options?: StoredRunOptions;
}

interface LiveRun {
  log: RunLog;
  controller: AbortController;
  /** Settles when the current stretch (start or resume) has ended and been persisted. */
  settled: Promise<RunOutcome>;
}

/**
 * Runs outlive connections: the manager owns each run's log and drives its agent in the background;
 * HTTP handlers only start runs, read their logs and send decisions or stops. Every method takes the
 * caller's user id and refuses (as `not_found`) anything that user does not own.
 */
export class RunManager {
  readonly #options: RunManagerOptions;
  readonly #live = new Map<string, LiveRun>();
  /** Logs of runs that stopped driving (finished or paused), kept for replay until evicted. */
  readonly #recent = new Map<string, RunLog>();
  readonly #persisting = new Map<string, Promise<void>>();
  readonly #auditing = new Map<string, Promise<void>>();
  readonly #locks = new Map<string, Promise<void>>();

  constructor(options: RunManagerOptions) {
    this.#options = options;
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
    const { store } = this.#options;
    const runOptions = this.#checkRunOptions(options);
    const conversation = await store.getConversation(conversationId);
    if (conversation === undefined || conversation.userId !== userId) {
      throw new RunError('not_found', 'no such conversation');
    }
    const active = await store.findActiveRun(conversationId);
    if (active !== undefined) throw await this.#activeRunError(active);
    const history = await store.listMessages(conversationId);
    const runId = this.#newId('run');
    const messageId = this.#newId('msg');
    // Claim the conversation first (the store allows one active run), so a message that loses a
    // race is refused before it is stored rather than left behind without an answer.
    await store
      .createRun({
        id: runId,
        conversationId,
        messageId,
        userId,
        status: 'running',
        cancelReason: null,
        lastSeq: 0,
        leaseOwner: this.#options.instanceId ?? null,
        leaseExpiresAt: null,
      })
      .catch(async (error: unknown) => {
        if ((error as { code?: string }).code !== 'active_run_exists') throw error;
        const winner = await store.findActiveRun(conversationId);
        if (winner?.status === 'paused') throw await this.#activeRunError(winner);
        throw new RunError('run_in_progress', '上一轮回答还在进行中，请稍候或先停止它');
      });
    try {
      await store.addUserMessage(conversationId, text, clientMessageId);
    } catch (error) {
      await store.updateRun(runId, { status: 'failed', leaseOwner: null });
      throw error;
    }
    const log = this.#openLog(runId, conversationId, messageId);
    log.append({
      type: 'run.started',
      conversationId,
      messageId,
      ...(runOptions.traceId !== undefined ? { traceId: runOptions.traceId } : {}),
    });
    const systemPrompt =
      runOptions.instructions !== undefined && runOptions.instructions !== ''
        ? `${this.#options.systemPrompt}\n\n${runOptions.instructions}`
        : this.#options.systemPrompt;
    const transcript: ChatMessage[] = [
      { role: 'system', content: systemPrompt },
      ...historyToTranscript(history),
      { role: 'user', content: text },
    ];
    this.#drive(runId, log, this.#context(runId, conversationId, userId, runOptions), runOptions, (agent) =>
      agent.start(transcript),
    );
    return log;
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
    await this.settled(runId);
    return this.#withRunLock(runId, () => this.#decide(userId, runId, toolCallId, decision, note));
  }

  async #decide(
    userId: string,
    runId: string,
    toolCallId: string,
    decision: 'approve' | 'reject',
    note?: string,
  ): Promise<RunLog> {
    const { store } = this.#options;
    const run = await this.#ownedRun(userId, runId);
    const call = await store.getToolCall(runId, toolCallId);
    if (call === undefined || call.effect !== 'write')
      throw new RunError('not_found', 'no such confirmation');
    if (call.decision !== null)
      throw new RunError('decision_conflict', '这个操作已经确认过了', { decision: call.decision });
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
      throw new RunError('decision_conflict', '这个操作已经确认过了', { decision: result.decision });
    }
    const checkpoint = (await store.getCheckpoint(runId)) as RunCheckpoint | undefined;
    if (checkpoint === undefined) throw new RunError('not_paused', 'the run has nothing to resume');
    const decisions = new Map<string, 'approve' | 'reject'>();
    for (const pending of checkpoint.pending) {
      const recorded = await store.getToolCall(runId, pending.toolCallId);
      if (recorded?.decision) decisions.set(pending.toolCallId, recorded.decision.decision);
    }
    const log = await this.logOf(userId, runId);
    if (decisions.size < checkpoint.pending.length) return log;
    await store.updateRun(runId, { status: 'running', leaseOwner: this.#options.instanceId ?? null });
    this.#recent.delete(runId);
    const runOptions = storedOptions(checkpoint);
    const context = this.#context(runId, run.conversationId, userId, runOptions);
    this.#drive(runId, log, context, runOptions, (agent) =>
      agent.resume(checkpoint, decisions, async (pending) => {
        // One execution however many decisions race: the store hands out a single claim.
        const claimed = await store.claimExecution(runId, pending.toolCallId);
        if (claimed)
          await store.saveToolCall({
            ...(await this.#toolCall(runId, pending.toolCallId)),
            status: 'running',
          });
        return claimed;
      }),
    );
    return log;
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
    await this.settled(runId);
    return this.#withRunLock(runId, () => this.#submitToolResults(userId, runId, results));
  }

  async #submitToolResults(
    userId: string,
    runId: string,
    submitted: ToolResultSubmission[],
  ): Promise<{ log: RunLog; resumed: boolean }> {
    const { store } = this.#options;
    const results = checkSubmission(submitted);
    const fresh: { toolCallId: string; result: HostToolResult }[] = [];
    for (const [toolCallId, result] of results) {
      const call = await store.getToolCall(runId, toolCallId);
      if (call === undefined || call.effect !== 'host') {
        throw new RunError('unknown_tool_call', `no host tool call ${toolCallId} in this run`, {
          toolCallId,
        });
      }
      if (call.hostResult === undefined) fresh.push({ toolCallId, result });
      else if (!sameResult(call.hostResult, result)) {
        throw new RunError('tool_result_conflict', `tool call ${toolCallId} already has another result`, {
          toolCallId,
          result: call.hostResult,
        });
      }
    }
    const run = await this.#ownedRun(userId, runId);
    const checkpoint = (await store.getCheckpoint(runId)) as RunCheckpoint | undefined;
    const waiting = run.status === 'paused' && checkpoint !== undefined && waitsForToolResults(checkpoint);
    if (fresh.length > 0) {
      if (run.status !== 'paused' && run.status !== 'running') {
        throw new RunError('run_finished', 'the run is no longer waiting for tool results', {
          status: run.status,
        });
      }
      if (!waiting) {
        throw new RunError('not_waiting_for_tool_results', 'the run is not waiting for tool results', {
          status: run.status,
          ...(run.status === 'paused' ? { reason: 'confirmation' } : {}),
        });
      }
      const expected = new Set((checkpoint.hostPending ?? []).map((call) => call.toolCallId));
      for (const { toolCallId } of fresh) {
        if (!expected.has(toolCallId))
          throw new RunError('unknown_tool_call', `the run is not waiting for tool call ${toolCallId}`, {
            toolCallId,
          });
      }
      for (const { toolCallId, result } of fresh) {
        const recorded = await store.recordToolResult(runId, toolCallId, result);
        // Lost a race with another process: the same result is fine, another one is a conflict.
        if (!recorded.applied && !sameResult(recorded.existing, result)) {
          throw new RunError('tool_result_conflict', `tool call ${toolCallId} already has another result`, {
            toolCallId,
            result: recorded.existing,
          });
        }
      }
    }
    const log = await this.logOf(userId, runId);
    if (!waiting) return { log, resumed: false };
    // Every call of the pause needs its result; a retry also finishes a resume a crash cut short.
    const hostPending = checkpoint.hostPending ?? [];
    const answers = new Map<string, HostToolResult>();
    const records = new Map<string, ToolCallRecord>();
    for (const pending of hostPending) {
      const record = await store.getToolCall(runId, pending.toolCallId);
      if (record?.hostResult === undefined) return { log, resumed: false };
      answers.set(pending.toolCallId, record.hostResult);
      records.set(pending.toolCallId, record);
    }
    // One resume however many submissions race (here or in another process sharing the file).
    const first = hostPending[0];
    if (first === undefined || !(await store.claimExecution(runId, first.toolCallId))) {
      return { log, resumed: false };
    }
    for (const [toolCallId, record] of records) {
      const answer = answers.get(toolCallId) as HostToolResult;
      const { createdAt: _createdAt, updatedAt: _updatedAt, hostResult: _hostResult, ...rest } = record;
      await store.saveToolCall(
        'output' in answer
          ? { ...rest, status: 'done', result: parseOutput(answer.output) }
          : { ...rest, status: 'failed', error: { code: HOST_TOOL_FAILED, message: answer.error } },
      );
    }
    await store.updateRun(runId, { status: 'running', leaseOwner: this.#options.instanceId ?? null });
    this.#recent.delete(runId);
    const runOptions = storedOptions(checkpoint);
    const context = this.#context(runId, run.conversationId, userId, runOptions);
    this.#drive(runId, log, context, runOptions, (agent) => agent.resumeWithToolResults(checkpoint, answers));
    return { log, resumed: true };
  }

  /** The explicit stop. Idempotent: stopping a finished run changes nothing. */
  async cancel(userId: string, runId: string, reason = 'user_stop'): Promise<RunRecord> {
    await this.#ownedRun(userId, runId);
    return this.#withRunLock(runId, () => this.#cancel(userId, runId, reason));
  }

  async #cancel(userId: string, runId: string, reason: string): Promise<RunRecord> {
    const { store } = this.#options;
    const live = this.#live.get(runId);
    if (live) {
      live.controller.abort(new RunCancelled(reason));
      await live.settled;
      await this.#persisting.get(runId);
    }
    // Re-read: a stretch the stop reached only as it paused has still paused.
    const run = await this.#ownedRun(userId, runId);
    if (run.status === 'paused') {
      const log = await this.logOf(userId, runId);
      const checkpoint = (await store.getCheckpoint(runId)) as RunCheckpoint | undefined;
      closeOpenBlocks(log, 'cancelled');
      log.append({ type: 'run.finished', status: 'cancelled', reason });
      if (checkpoint !== undefined) await this.#cancelPending(run, checkpoint, reason);
      await this.#persisting.get(runId);
      await store.updateRun(runId, {
        status: 'cancelled',
        cancelReason: reason,
        lastSeq: log.lastSeq,
        leaseOwner: null,
      });
    }
    await this.#auditing.get(runId);
    return (await store.getRun(runId)) as RunRecord;
  }

  /**
   * Resolves when the run's current stretch has ended (finished or paused) and been persisted, its
   * audit entries included.
   */
  async settled(runId: string): Promise<void> {
    await this.#live.get(runId)?.settled;
    await this.#persisting.get(runId);
    await this.#auditing.get(runId);
  }

  /** The run record, if the user owns it. */
  async getRun(userId: string, runId: string): Promise<RunRecord> {
    return this.#ownedRun(userId, runId);
  }

  /**
   * The run's log for streaming: the live one, a recent one, or one rebuilt from the persisted
   * message (then replay from before it is a snapshot).
   */
  async logOf(userId: string, runId: string): Promise<RunLog> {
    const run = await this.#ownedRun(userId, runId);
    const existing = this.#live.get(runId)?.log ?? this.#recent.get(runId);
    if (existing) return existing;
    const messages = await this.#options.store.listMessages(run.conversationId);
    const stored = messages.find((message) => message.role === 'assistant' && message.runId === runId);
    const initial = stored?.role === 'assistant' ? stored.message : undefined;
    const log = this.#openLog(runId, run.conversationId, run.messageId, initial);
    this.#recent.set(runId, log);
    return log;
  }

  /**
   * At start-up: runs a crash left `running` become `interrupted`, and their message says so, so the
   * shopper checks whether a write went through.
   */
  async recoverInterruptedRuns(): Promise<number> {
    const { store } = this.#options;
    const orphans = await store.listRunsByStatus('running');
    for (const run of orphans) {
      const messages = await store.listMessages(run.conversationId);
      const stored = messages.find((message) => message.role === 'assistant' && message.runId === run.id);
      const log = this.#openLog(
        run.id,
        run.conversationId,
        run.messageId,
        stored?.role === 'assistant' ? stored.message : undefined,
      );
      if (log.state.runId === null)
        log.append({ type: 'run.started', conversationId: run.conversationId, messageId: run.messageId });
      closeOpenBlocks(log, 'interrupted');
      const blockId = `blk_interrupted_${log.lastSeq + 1}`;
      log.append({ type: 'block.started', blockId, kind: 'error' });
      log.append({ type: 'block.delta', blockId, text: INTERRUPTED_MESSAGE });
      log.append({ type: 'block.ended', blockId, endedAt: Date.now(), durationMs: 0, status: 'done' });
      log.append({ type: 'run.finished', status: 'interrupted', reason: 'server_restart' });
      await this.#persisting.get(run.id);
      await store.updateRun(run.id, {
        status: 'interrupted',
        cancelReason: 'server_restart',
        lastSeq: log.lastSeq,
        leaseOwner: null,
      });
    }
    return orphans.length;
  }

  /** Stop driving every run (shutdown): they end as interrupted, persisted. */
  async close(): Promise<void> {
    const live = [...this.#live.values()];
    for (const run of live) run.controller.abort(new Error('server_shutdown'));
    await Promise.all(live.map((run) => run.settled));
  }

  #drive(
    runId: string,
    log: RunLog,
    context: AgentContext,
    runOptions: StoredRunOptions,
    work: (agent: Agent) => Promise<AgentOutcome>,
  ): void {
    const { store } = this.#options;
    const controller = new AbortController();
    const agent = this.#agent(log, context, runOptions, controller.signal);
    const settled = (async (): Promise<RunOutcome> => {
      const outcome = await driveRun(log, controller.signal, () => work(agent));
      try {
        await this.#persisting.get(runId);
        // The final state once more: it repairs any boundary write that failed on the way.
        await store.saveAssistantMessage(
          context.conversationId,
          log.state.messageId ?? '',
          runId,
          toMessage(log.state),
        );
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
          await store.updateRun(runId, { status: 'paused', lastSeq: log.lastSeq, leaseOwner: null });
        } else {
          const status =
            log.state.status === 'running' || log.state.status === 'idle' || log.state.status === 'paused'
              ? 'failed'
              : log.state.status;
          await store.updateRun(runId, {
            status,
            cancelReason: outcome.status === 'cancelled' ? outcome.reason : null,
            lastSeq: log.lastSeq,
            leaseOwner: null,
          });
          await store.saveCheckpoint(runId, null);
        }
      } catch (error) {
        // The store refused the ending: say so, and free the conversation rather than leave the run
        // `running` forever (the next start-up's recovery marks it interrupted otherwise).
        this.#options.onPersistenceError?.(runId, error);
        await store
          .updateRun(runId, { status: 'failed', lastSeq: log.lastSeq, leaseOwner: null })
          .catch(() => undefined);
      } finally {
        this.#live.delete(runId);
        this.#persisting.delete(runId);
        this.#recent.set(runId, log);
        this.#evictRecent();
      }
      return outcome;
    })();
    this.#live.set(runId, { log, controller, settled });
  }

  /**
   * Decisions and stops of one run happen one at a time: a stop racing an approval, or two
   * approvals of two pending writes, must not both move the run (one instance; the scale-out work
   * moves this to the store).
   */
  async #withRunLock<T>(runId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#locks.get(runId) ?? Promise.resolve();
    let release: () => void = () => {};
    const current = new Promise<void>((resolve) => {
      release = resolve;
    });
    const chained = previous.then(() => current);
    this.#locks.set(runId, chained);
    await previous;
    try {
      return await work();
    } finally {
      release();
      if (this.#locks.get(runId) === chained) this.#locks.delete(runId);
    }
  }

  #agent(log: RunLog, context: AgentContext, runOptions: StoredRunOptions, signal: AbortSignal): Agent {
    return new Agent({
      model: this.#options.model,
      tools: this.#options.tools,
      skills: this.#options.skills,
      log,
      context,
      signal,
      hostTools: runOptions.hostTools,
      ...(this.#options.policies !== undefined ? { policies: this.#options.policies } : {}),
      ...(this.#options.audit !== undefined
        ? { onToolAudit: (entry: ToolAuditEntry) => this.#recordAudit(context.runId, entry) }
        : {}),
      ...(this.#options.maxIterations !== undefined ? { maxIterations: this.#options.maxIterations } : {}),
    });
  }

  #context(
    runId: string,
    conversationId: string,
    userId: string,
    runOptions: StoredRunOptions,
  ): AgentContext {
    return {
      runId,
      conversationId,
      userId,
      face: runOptions.face,
      ...(runOptions.traceId !== undefined ? { traceId: runOptions.traceId } : {}),
    };
  }

  /** Refuse options that cannot make a run, before anything is stored. */
  /**
   * Refuse run options that `startRun` would refuse (`invalid_request`), before the caller creates
   * anything for the run (the Responses API checks before it opens a conversation).
   */
  checkRunOptions(options: RunOptions): void {
    this.#checkRunOptions(options);
  }

  #checkRunOptions(options: RunOptions): StoredRunOptions {
    if (typeof options !== 'object' || options === null)
      throw new RunError('invalid_request', 'run options must be an object');
    const { hostTools = [], instructions, traceId, face = 'chat' } = options;
    if (!Array.isArray(hostTools)) throw new RunError('invalid_request', 'hostTools must be an array');
    if (hostTools.length > MAX_HOST_TOOLS)
      throw new RunError('invalid_request', `at most ${MAX_HOST_TOOLS} host tools may be declared`);
    const reserved = new Set([LOAD_SKILL_TOOL, ...this.#options.tools.map((tool) => tool.name)]);
    const names = new Set<string>();
    const definitions: HostToolDefinition[] = [];
    for (const [index, candidate] of hostTools.entries()) {
      const parsed = HostToolDefinitionSchema.safeParse(candidate);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new RunError(
          'invalid_request',
          `host tool ${index}: ${issue?.path.join('.') ?? ''} ${issue?.message ?? 'is invalid'}`.trim(),
          { index },
        );
      }
      const { name } = parsed.data;
      if (reserved.has(name))
        throw new RunError('invalid_request', `host tool ${name} has the name of a server tool`, { name });
      if (names.has(name))
        throw new RunError('invalid_request', `host tool ${name} is declared twice`, { name });
      names.add(name);
      definitions.push({ name, description: parsed.data.description, parameters: parsed.data.parameters });
    }
    if (instructions !== undefined && typeof instructions !== 'string')
      throw new RunError('invalid_request', 'instructions must be a string');
    if (traceId !== undefined && (typeof traceId !== 'string' || traceId.length < 1 || traceId.length > 200))
      throw new RunError('invalid_request', 'a trace id has 1 to 200 characters');
    if (face !== 'chat' && face !== 'responses')
      throw new RunError('invalid_request', 'face must be chat or responses');
    return {
      hostTools: definitions,
      face,
      ...(instructions !== undefined ? { instructions } : {}),
      ...(traceId !== undefined ? { traceId } : {}),
    };
  }

  /** Why a new message is refused while `active` runs or waits. */
  async #activeRunError(active: RunRecord): Promise<RunError> {
    if (active.status !== 'paused')
      return new RunError('run_in_progress', '上一轮回答还在进行中，请稍候或先停止它', { runId: active.id });
    const checkpoint = (await this.#options.store.getCheckpoint(active.id)) as RunCheckpoint | undefined;
    if (checkpoint !== undefined && waitsForToolResults(checkpoint))
      return new RunError('tool_results_pending', TOOL_RESULTS_PENDING_MESSAGE, { runId: active.id });
    return new RunError('confirmation_pending', CONFIRMATION_PENDING_MESSAGE, { runId: active.id });
  }

  /** A paused run was stopped: the calls it waited on end cancelled, in the store and the audit log. */
  async #cancelPending(run: RunRecord, checkpoint: RunCheckpoint, reason: string): Promise<void> {
    const runOptions = storedOptions(checkpoint);
    const context = this.#context(run.id, run.conversationId, run.userId, runOptions);
    const now = Date.now();
    const calls = [
      ...checkpoint.pending.map((call) => ({
        ...call,
        executor: 'server' as const,
        effect: 'write' as const,
      })),
      ...(checkpoint.hostPending ?? []).map((call) => ({
        ...call,
        executor: 'host' as const,
        effect: 'host' as const,
      })),
    ];
    for (const call of calls) {
      const audit = call.audit ?? { decision: 'allow' as const, openedAt: now };
      this.#recordAudit(
        run.id,
        toolAuditEntry(
          context,
          {
            toolCallId: call.toolCallId,
            name: call.name,
            args: call.args,
            executor: call.executor,
            effect: call.effect,
            audit,
          },
          'cancelled',
          { error: `run_cancelled: ${reason}`, durationMs: now - audit.openedAt, at: now },
        ),
      );
      try {
        const record = await this.#toolCall(run.id, call.toolCallId);
        await this.#options.store.saveToolCall({ ...record, status: 'cancelled' });
      } catch (error) {
        this.#options.onPersistenceError?.(run.id, error);
      }
    }
  }

  /** Audit entries of a run are written in order, best effort: a failure is reported, never thrown. */
  #recordAudit(runId: string, entry: ToolAuditEntry): void {
    const { audit, onPersistenceError } = this.#options;
    if (audit === undefined) return;
    const previous = this.#auditing.get(runId) ?? Promise.resolve();
    const next = previous
      .then(() => audit.record(entry))
      .catch((error: unknown) => {
        try {
          onPersistenceError?.(runId, error);
        } catch {
          // Nothing more can be done about it.
        }
      });
    this.#auditing.set(runId, next);
    void next.then(() => {
      if (this.#auditing.get(runId) === next) this.#auditing.delete(runId);
    });
  }

  #openLog(runId: string, conversationId: string, messageId: string, initial?: Message): RunLog {
    return new RunLog(runId, {
      ...(this.#options.logCapacity !== undefined ? { capacity: this.#options.logCapacity } : {}),
      ...(initial ? { initial } : {}),
      onBoundary: (message) => {
        // Writes are chained per run so they land in event order, never concurrently.
        const previous = this.#persisting.get(runId) ?? Promise.resolve();
        const next = previous
          .then(() => this.#options.store.saveAssistantMessage(conversationId, messageId, runId, message))
          .then(() => this.#options.store.updateRun(runId, { lastSeq: message.lastSeq }))
          .then(
            () => undefined,
            // One failed write must not poison the next ones; the end of the stretch writes the
            // final message again, so a transient failure (SQLITE_BUSY) loses nothing.
            (error: unknown) => this.#options.onPersistenceError?.(runId, error),
          );
        this.#persisting.set(runId, next);
      },
    });
  }

  async #ownedRun(userId: string, runId: string): Promise<RunRecord> {
    const run = await this.#options.store.getRun(runId);
    // Another user's run is indistinguishable from a missing one.
    if (run === undefined || run.userId !== userId) throw new RunError('not_found', 'no such run');
    return run;
  }

  async #toolCall(runId: string, toolCallId: string) {
    const call = await this.#options.store.getToolCall(runId, toolCallId);
    if (call === undefined) throw new RunError('not_found', 'no such tool call');
    const { createdAt: _createdAt, updatedAt: _updatedAt, hostResult: _hostResult, ...rest } = call;
    return rest;
  }

  #evictRecent(): void {
    const limit = 1000;
    while (this.#recent.size > limit) {
      const oldest = this.#recent.keys().next().value;
      if (oldest === undefined) break;
      this.#recent.delete(oldest);
    }
  }

  #newId(prefix: string): string {
    return (
      this.#options.newId?.(prefix) ?? `${prefix}_${crypto.randomUUID().replaceAll('-', '').slice(0, 20)}`
    );
  }
}

/** Earlier turns as the model sees them: the shopper's words and the assistant's answers. */
function historyToTranscript(messages: readonly StoredMessage[]): ChatMessage[] {
  return messages.flatMap((message): ChatMessage[] => {
    if (message.role === 'user') return [{ role: 'user', content: message.text }];
    const answer = message.message.blocks
      .filter((block) => block.kind === 'answer')
      .map((block) => (block.kind === 'answer' ? block.text : ''))
      .join('\n');
    return answer.length > 0 ? [{ role: 'assistant', content: answer }] : [];
  });
}

/** The options a checkpoint was saved with; checkpoints of older versions had none. */
function storedOptions(checkpoint: RunCheckpoint): StoredRunOptions {
  return checkpoint.options ?? { hostTools: [], face: 'chat' };
}

/**
 * A submission as results by call id, refused whole (`invalid_request`) when any entry is malformed
 * or one call gets two different results.
 */
function checkSubmission(submitted: unknown): Map<string, HostToolResult> {
  if (!Array.isArray(submitted) || submitted.length === 0)
    throw new RunError('invalid_request', 'submit at least one tool result');
  const results = new Map<string, HostToolResult>();
  for (const [index, entry] of submitted.entries()) {
    const { toolCallId, output, error } = (entry ?? {}) as {
      toolCallId?: unknown;
      output?: unknown;
      error?: unknown;
    };
    if (typeof toolCallId !== 'string' || toolCallId === '')
      throw new RunError('invalid_request', `tool result ${index} has no toolCallId`, { index });
    const hasOutput = output !== undefined;
    const hasError = error !== undefined;
    if (
      hasOutput === hasError ||
      (hasOutput && typeof output !== 'string') ||
      (hasError && typeof error !== 'string')
    )
      throw new RunError(
        'invalid_request',
        `tool result ${index} needs exactly one of output and error, a string`,
        {
          index,
          toolCallId,
        },
      );
    const result: HostToolResult = hasOutput ? { output: output as string } : { error: error as string };
    const earlier = results.get(toolCallId);
    if (earlier !== undefined && !sameResult(earlier, result))
      throw new RunError('invalid_request', `tool call ${toolCallId} has two different results`, {
        toolCallId,
      });
    results.set(toolCallId, result);
  }
  return results;
}

function sameResult(a: HostToolResult, b: HostToolResult): boolean {
  if ('output' in a) return 'output' in b && a.output === b.output;
  return 'error' in b && a.error === b.error;
}

/** A host's output as stored on its tool call: the JSON it holds, or the text itself. */
function parseOutput(output: string): unknown {
  try {
    return JSON.parse(output);
  } catch {
    return output;
  }
}
