import type { ChatMessage, ChatModel } from '../models/index.ts';
import { type Message, toMessage } from '../protocol/index.ts';
import type { RunRecord, RunStore, StoredMessage } from '../store/index.ts';
import { Agent, type AgentCheckpoint, type AgentOutcome, closeOpenBlocks } from './agent-loop.ts';
import { driveRun, type RunOutcome } from './drive-run.ts';
import { RunCancelled } from './run-cancelled.ts';
import { CONFIRMATION_PENDING_MESSAGE, RunError } from './run-error.ts';
import { RunLog } from './run-log.ts';
import type { Skill } from './skill.ts';
import type { AnyTool } from './tool.ts';

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
  /** Told about a failed write of a run's state (it is retried when the stretch ends). */
  onPersistenceError?: (runId: string, error: unknown) => void;
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
  readonly #locks = new Map<string, Promise<void>>();

  constructor(options: RunManagerOptions) {
    this.#options = options;
  }

  /** Start a run for a new user message; refuses while the conversation has an active run. */
  async startRun(
    userId: string,
    conversationId: string,
    text: string,
    clientMessageId?: string,
  ): Promise<RunLog> {
    const { store } = this.#options;
    const conversation = await store.getConversation(conversationId);
    if (conversation === undefined || conversation.userId !== userId) {
      throw new RunError('not_found', 'no such conversation');
    }
    const active = await store.findActiveRun(conversationId);
    if (active?.status === 'paused') {
      throw new RunError('confirmation_pending', CONFIRMATION_PENDING_MESSAGE, { runId: active.id });
    }
    if (active?.status === 'running') {
      throw new RunError('run_in_progress', '上一轮回答还在进行中，请稍候或先停止它', { runId: active.id });
    }
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
        if (winner?.status === 'paused') {
          throw new RunError('confirmation_pending', CONFIRMATION_PENDING_MESSAGE, { runId: winner.id });
        }
        throw new RunError('run_in_progress', '上一轮回答还在进行中，请稍候或先停止它');
      });
    try {
      await store.addUserMessage(conversationId, text, clientMessageId);
    } catch (error) {
      await store.updateRun(runId, { status: 'failed', leaseOwner: null });
      throw error;
    }
    const log = this.#openLog(runId, conversationId, messageId);
    log.append({ type: 'run.started', conversationId, messageId });
    const transcript: ChatMessage[] = [
      { role: 'system', content: this.#options.systemPrompt },
      ...historyToTranscript(history),
      { role: 'user', content: text },
    ];
    this.#drive(runId, log, { runId, conversationId, userId }, (agent) => agent.start(transcript));
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
    const checkpoint = (await store.getCheckpoint(runId)) as AgentCheckpoint | undefined;
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
    this.#drive(runId, log, { runId, conversationId: run.conversationId, userId }, (agent) =>
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
      closeOpenBlocks(log, 'cancelled');
      log.append({ type: 'run.finished', status: 'cancelled', reason });
      await this.#persisting.get(runId);
      await store.updateRun(runId, {
        status: 'cancelled',
        cancelReason: reason,
        lastSeq: log.lastSeq,
        leaseOwner: null,
      });
    }
    return (await store.getRun(runId)) as RunRecord;
  }

  /** Resolves when the run's current stretch has ended (finished or paused) and been persisted. */
  async settled(runId: string): Promise<void> {
    await this.#live.get(runId)?.settled;
    await this.#persisting.get(runId);
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
    context: { runId: string; conversationId: string; userId: string },
    work: (agent: Agent) => Promise<AgentOutcome>,
  ): void {
    const { store } = this.#options;
    const controller = new AbortController();
    const agent = this.#agent(log, context, controller.signal);
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
          await store.saveCheckpoint(runId, outcome.checkpoint);
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

  #agent(
    log: RunLog,
    context: { runId: string; conversationId: string; userId: string },
    signal: AbortSignal,
  ): Agent {
    return new Agent({
      model: this.#options.model,
      tools: this.#options.tools,
      skills: this.#options.skills,
      log,
      context,
      signal,
      ...(this.#options.maxIterations !== undefined ? { maxIterations: this.#options.maxIterations } : {}),
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
    const { createdAt: _createdAt, updatedAt: _updatedAt, ...rest } = call;
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
