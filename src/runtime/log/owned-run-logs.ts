import type { EventLog } from '../../bus/index.ts';
import type { Message } from '../../protocol/index.ts';
import type { RunRecord, RunStore } from '../../store/index.ts';
import type { KeyedSerialQueue } from '../runs/keyed-serial-queue.ts';
import { LogMirror } from './log-mirror.ts';
import { RunLog } from './run-log.ts';
import type { RunReplicas } from './run-replicas.ts';

export interface OwnedRunLogsOptions {
  store: RunStore;
  eventLog: EventLog;
  replicas: RunReplicas;
  /** The per-run queue state writes go through (shared with the manager, which waits on it). */
  writes: KeyedSerialQueue;
  capacity?: number;
  /**
   * Copy every event into the shared log. Off for one instance on its in-process log: nobody else
   * reads it, so the per-event work would buy nothing.
   */
  mirror: boolean;
  liveLogGiveUpMs?: number;
  onPersistenceError?: (runId: string, error: unknown) => void;
  /** Another writer appended to the run's shared log: this instance no longer drives the run. */
  onLost: (runId: string) => void;
  /** The shared log stayed unreachable: the run cannot be followed elsewhere. */
  onUnreachable: (runId: string) => void;
}

/**
 * The logs this instance appends to: each persisted at block boundaries through the store and
 * mirrored into the shared `EventLog`, and let go when their stretch ends (the end released into the
 * shared log once it is in the store, the copy kept for later readers here).
 */
export class OwnedRunLogs {
  readonly #options: OwnedRunLogsOptions;
  readonly #mirrors = new Map<string, LogMirror>();
  /** Per run, the lastSeq of the newest message a boundary write stored. */
  readonly #persisted = new Map<string, number>();

  constructor(options: OwnedRunLogsOptions) {
    this.#options = options;
  }

  /** A new log for a run this instance drives from here. */
  open(runId: string, conversationId: string, messageId: string, initial?: Message): RunLog {
    const log = new RunLog(runId, {
      ...(this.#options.capacity !== undefined ? { capacity: this.#options.capacity } : {}),
      ...(initial ? { initial } : {}),
    });
    this.own(log, conversationId, messageId);
    return log;
  }

  /** From now on this instance appends to `log` (a copy it held): persist and mirror its events. */
  own(log: RunLog, conversationId: string, messageId: string): void {
    const { runId } = log;
    const { store, writes, onPersistenceError } = this.#options;
    this.#options.replicas.release(runId);
    this.#mirrors.get(runId)?.stop();
    this.#mirrors.delete(runId);
    const mirror = this.#options.mirror ? this.#newMirror(runId) : undefined;
    if (mirror !== undefined) this.#mirrors.set(runId, mirror);
    this.#persisted.delete(runId);
    /** The newest message not yet written; a queued write takes whichever is newest when it runs. */
    let unwritten: Message | undefined;
    log.own({
      ...(mirror !== undefined ? { onAppend: (event) => mirror.push(event) } : {}),
      onBoundary: (message) => {
        const queued = unwritten !== undefined;
        unwritten = message;
        // Boundaries often come in bursts (a block ends, the run finishes): one write for them all,
        // since each message is the whole state as of its event. The write waits for the macrotask's
        // end, so the whole burst is in before it takes the newest.
        if (queued) return;
        // Queued per run so writes land in event order, never concurrently. One failed write must not
        // poison the next ones; the end of the stretch writes the final message again unless this
        // wrote it, so a transient failure (SQLITE_BUSY) loses nothing.
        void writes
          .run(runId, async () => {
            await new Promise((resolve) => setImmediate(resolve));
            const newest = unwritten;
            unwritten = undefined;
            if (newest === undefined) return;
            // The run's lastSeq moves with the message, in the same write.
            await store.saveAssistantMessage(conversationId, messageId, runId, newest);
            this.#persisted.set(runId, newest.lastSeq);
          })
          .catch((error: unknown) => onPersistenceError?.(runId, error));
      },
    });
  }

  #newMirror(runId: string): LogMirror {
    const { onPersistenceError } = this.#options;
    return new LogMirror({
      eventLog: this.#options.eventLog,
      runId,
      ...(this.#options.liveLogGiveUpMs !== undefined ? { giveUpMs: this.#options.liveLogGiveUpMs } : {}),
      onLost: () => this.#options.onLost(runId),
      onUnreachable: (error) => {
        onPersistenceError?.(runId, error);
        this.#options.onUnreachable(runId);
      },
    });
  }

  /** The lastSeq of the newest message this instance's boundary writes stored for the run (0: none). */
  persistedThrough(runId: string): number {
    return this.#persisted.get(runId) ?? 0;
  }

  /** Stop copying the run into the shared log (another instance drives it now). */
  stopMirror(runId: string): void {
    this.#mirrors.get(runId)?.stop();
  }

  /**
   * The stretch's ending is in the store: let it into the shared log, wait until it is there, let
   * the run's live log expire, and keep this copy for later readers here.
   */
  async releaseEnd(log: RunLog): Promise<void> {
    const { runId } = log;
    this.#persisted.delete(runId);
    const mirror = this.#mirrors.get(runId);
    if (mirror !== undefined) {
      mirror.release();
      await mirror.flushed();
      if (this.#mirrors.get(runId) === mirror) this.#mirrors.delete(runId);
    }
    // A paused run may wait for days: its live log goes too, and a resume starts it afresh (readers
    // then get the store's snapshot for what came before).
    if (log.finished || log.paused) await this.#options.eventLog.expire(runId).catch(() => undefined);
    this.#options.replicas.adopt(log);
  }

  /**
   * A log to continue a run nobody drives (a takeover): this process's copy caught up with the shared
   * log when there is one, so its readers see what is appended; else one built from the store's
   * message and the shared log's tail (what a dead owner streamed after its last block boundary),
   * and readers of an older copy are sent to reconnect.
   */
  async continueRun(run: RunRecord): Promise<RunLog> {
    const copy = await this.#caughtUpCopy(run);
    if (copy !== undefined) {
      this.own(copy, run.conversationId, run.messageId);
      return copy;
    }
    const { store, eventLog, replicas } = this.#options;
    replicas.discard(run.id);
    const messages = await store.listMessages(run.conversationId);
    const stored = messages.find((message) => message.role === 'assistant' && message.runId === run.id);
    let initial: Message | undefined = stored?.role === 'assistant' ? stored.message : undefined;
    const tail = await eventLog.read(run.id, initial?.lastSeq ?? 0).catch(() => undefined);
    if (tail !== undefined && !tail.complete && tail.lastSeq !== null && initial !== undefined)
      // The log holds later events but not the next one: continue its numbering from the store's state.
      initial = { ...initial, lastSeq: tail.lastSeq };
    const log = this.open(run.id, run.conversationId, run.messageId, initial);
    if (tail?.complete) for (const event of tail.events) log.ingest(event);
    return log;
  }

  async #caughtUpCopy(run: RunRecord): Promise<RunLog | undefined> {
    const copy = this.#options.replicas.peek(run.id);
    if (copy === undefined || copy.abandoned || copy.finished) return undefined;
    const tail = await this.#options.eventLog.read(run.id, copy.lastSeq).catch(() => undefined);
    if (tail === undefined || !tail.complete) return undefined;
    for (const event of tail.events) copy.ingest(event);
    return copy;
  }
}
