import { type EventLog, EventLogGap } from '../../bus/index.ts';
import type { Message } from '../../protocol/index.ts';
import type { RunRecord, RunStatus, RunStore } from '../../store/index.ts';
import { closeOpenBlocks } from '../agent/close-open-blocks.ts';
import type { RunMessages } from '../agent/run-messages.ts';
import { finishedUsage } from '../runs/finished-usage.ts';
import { RunLog } from './run-log.ts';

export interface RunReplicasOptions {
  /** The texts of a run's agent: what a copy says when the store lost the run's ending. */
  messagesOf(run: RunRecord): RunMessages;
  store: RunStore;
  eventLog: EventLog;
  /** Events a replica keeps for replay. */
  capacity?: number;
  /** How often a following replica checks the store, in case the shared log went quiet for good. */
  watchMs?: number;
  /** How long a finished run's copy stays for replays. Default 60 s. */
  keepMs?: number;
  /** At most this many copies are kept; the oldest go first. Default 1,000. */
  maxReplicas?: number;
  /**
   * Finished runs' copies hold at most this many events together; the oldest copies go first (a
   * later reader gets the store's snapshot instead of the events). Default 50,000: copies of long
   * runs kept for their keep time would otherwise grow without bound under load.
   */
  maxKeptEvents?: number;
  onError?: (runId: string, error: unknown) => void;
}

interface Replica {
  log: RunLog;
  controller: AbortController;
  /** A follow of the shared log keeps it current. */
  following: boolean;
  /** The store's snapshot only: the shared log lacked the next event when it was built. */
  snapshotOnly: boolean;
  /** Watch checks in a row that found the store ended while this copy had not heard. */
  stale: number;
  expiry?: ReturnType<typeof setTimeout>;
}

/**
 * This process's copies of runs it does not drive: built from the store's persisted message plus
 * the shared log's tail, then kept current by one follow of the shared log, however many readers
 * stream from it here (they all subscribe to the same copy, so its frames are encoded once). The
 * owner's own log is adopted here when its stretch ends, so replays keep their events.
 */
export class RunReplicas {
  readonly #options: RunReplicasOptions;
  readonly #replicas = new Map<string, Replica>();
  readonly #building = new Map<string, Promise<RunLog>>();
  readonly #watch: ReturnType<typeof setInterval>;

  constructor(options: RunReplicasOptions) {
    this.#options = options;
    this.#watch = setInterval(() => void this.#checkFollowing(), options.watchMs ?? 5000);
    this.#watch.unref?.();
  }

  /** The copy of `run` to read from: a current one, or one built now. */
  async get(run: RunRecord): Promise<RunLog> {
    const existing = this.#replicas.get(run.id);
    if (existing !== undefined && !existing.log.abandoned && isCurrent(existing, run)) return existing.log;
    if (existing !== undefined) this.#drop(run.id);
    let building = this.#building.get(run.id);
    if (building === undefined) {
      building = this.#build(run).finally(() => this.#building.delete(run.id));
      this.#building.set(run.id, building);
    }
    return building;
  }

  /** Keep the log a stretch of this instance just ended (finished or paused) for later readers. */
  adopt(log: RunLog): void {
    this.#drop(log.runId);
    const replica = newReplica(log);
    this.#replicas.set(log.runId, replica);
    if (log.finished) this.#expireLater(replica);
    this.#evict();
  }

  /** Forget the copy without ending its readers (this instance is about to drive the run). */
  release(runId: string): void {
    this.#drop(runId, false);
  }

  /** Forget the copy and send its readers to reconnect (a fresh copy replaces it). */
  discard(runId: string): void {
    this.#drop(runId);
  }

  /** The copy this process holds, if any, without building one. */
  peek(runId: string): RunLog | undefined {
    return this.#replicas.get(runId)?.log;
  }

  get size(): number {
    return this.#replicas.size;
  }

  close(): void {
    clearInterval(this.#watch);
    for (const runId of [...this.#replicas.keys()]) this.#drop(runId);
  }

  async #build(run: RunRecord): Promise<RunLog> {
    const { store, eventLog } = this.#options;
    const capacity = this.#options.capacity !== undefined ? { capacity: this.#options.capacity } : {};
    // The whole run from the shared log when it still holds it from seq 1: replays then keep their
    // events. Otherwise the store's persisted message, plus the tail the store has not caught up with
    // (deltas since the last block boundary).
    const whole = await eventLog.read(run.id, 0).catch((error: unknown) => {
      this.#options.onError?.(run.id, error);
      return undefined;
    });
    let log: RunLog;
    let tail = whole;
    if (whole?.complete && whole.events[0]?.seq === 1) {
      log = new RunLog(run.id, capacity);
      for (const event of whole.events) log.ingest(event);
    } else {
      const messages = await store.listMessages(run.conversationId);
      const stored = messages.find((message) => message.role === 'assistant' && message.runId === run.id);
      const initial: Message | undefined = stored?.role === 'assistant' ? stored.message : undefined;
      log = new RunLog(run.id, { ...capacity, ...(initial !== undefined ? { initial } : {}) });
      tail = await eventLog.read(run.id, log.lastSeq).catch((error: unknown) => {
        this.#options.onError?.(run.id, error);
        return undefined;
      });
      if (tail?.complete) for (const event of tail.events) log.ingest(event);
      if (!log.finished && !log.paused && isEnded(run.status))
        endBehindStore(log, run.status, run.cancelReason, this.#options.messagesOf(run).endingNotSaved);
    }
    const replica = newReplica(log);
    this.#replicas.set(run.id, replica);
    const live = (run.status === 'running' || run.status === 'paused') && !log.finished && !log.paused;
    // When the shared log holds later events but not the next one, this copy is the store's
    // snapshot; the watch rebuilds it once the store moves on.
    const contiguous = tail === undefined || tail.complete || tail.lastSeq === null;
    if (live && contiguous) void this.#follow(replica);
    else if (live) replica.snapshotOnly = true;
    else if (log.finished) this.#expireLater(replica);
    this.#evict();
    return log;
  }

  async #follow(replica: Replica): Promise<void> {
    const { log, controller } = replica;
    replica.following = true;
    try {
      for await (const event of this.#options.eventLog.follow(log.runId, log.lastSeq, {
        signal: controller.signal,
      }))
        log.ingest(event);
    } catch (error) {
      if (!(error instanceof EventLogGap)) this.#options.onError?.(log.runId, error);
      // Lost track: readers move to a fresh copy on their next request.
      if (this.#replicas.get(log.runId) === replica) this.#drop(log.runId);
      return;
    } finally {
      replica.following = false;
    }
    if (log.finished && this.#replicas.get(log.runId) === replica) this.#expireLater(replica);
  }

  /**
   * Copies that can no longer catch up by themselves: a snapshot-only copy once the store moved on,
   * and a following copy of a run the store says ended without the shared log telling (its owner
   * could not reach the log). Checked twice in a row, so a follow that merely lags is left alone.
   */
  async #checkFollowing(): Promise<void> {
    for (const [runId, replica] of this.#replicas) {
      if (!replica.following && !replica.snapshotOnly) continue;
      const run = await this.#options.store.getRun(runId).catch(() => undefined);
      if (run === undefined || this.#replicas.get(runId) !== replica) continue;
      const behind = replica.snapshotOnly
        ? run.status !== 'running' || run.lastSeq > replica.log.lastSeq
        : run.status !== 'running' && !replica.log.finished && !replica.log.paused;
      replica.stale = behind ? replica.stale + 1 : 0;
      if (replica.stale >= 2) this.#drop(runId);
    }
  }

  #expireLater(replica: Replica): void {
    if (replica.expiry !== undefined) return;
    replica.expiry = setTimeout(() => {
      if (this.#replicas.get(replica.log.runId) === replica) this.#drop(replica.log.runId);
    }, this.#options.keepMs ?? 60_000);
    replica.expiry.unref?.();
  }

  #drop(runId: string, abandon = true): void {
    const replica = this.#replicas.get(runId);
    if (replica === undefined) return;
    this.#replicas.delete(runId);
    replica.controller.abort();
    if (replica.expiry !== undefined) clearTimeout(replica.expiry);
    if (abandon) replica.log.abandon();
  }

  #evict(): void {
    const limit = this.#options.maxReplicas ?? 1000;
    for (const runId of this.#replicas.keys()) {
      if (this.#replicas.size <= limit) break;
      this.#drop(runId);
    }
    const budget = this.#options.maxKeptEvents ?? 50_000;
    let kept = 0;
    for (const { log } of this.#replicas.values()) if (log.finished) kept += heldEvents(log);
    for (const [runId, { log }] of this.#replicas) {
      if (kept <= budget) break;
      if (!log.finished) continue;
      kept -= heldEvents(log);
      // Nothing more comes to a finished copy: its readers finish from it, later ones get a snapshot.
      this.#drop(runId, false);
    }
  }
}

type EndedStatus = Exclude<RunStatus, 'running' | 'paused'>;

function isEnded(status: RunStatus): status is EndedStatus {
  return status !== 'running' && status !== 'paused';
}

/**
 * A store that refused a run's ending (a full disk) still took its `failed`, so the persisted message
 * stops where the last write that fit left it, open blocks and `running` included. A copy built from
 * it would keep its readers waiting for events that never come (the run's own log is gone after a
 * restart or its keep time): it ends here, as the run record says, open blocks interrupted.
 */
function endBehindStore(log: RunLog, status: EndedStatus, cancelReason: string | null, text: string): void {
  closeOpenBlocks(log, 'interrupted');
  const blockId = `blk_not_saved_${log.lastSeq + 1}`;
  log.append({ type: 'block.started', blockId, kind: 'error' });
  log.append({ type: 'block.delta', blockId, text });
  log.append({ type: 'block.ended', blockId, endedAt: Date.now(), durationMs: 0, status: 'done' });
  log.append({
    type: 'run.finished',
    status,
    ...(status === 'failed' ? { error: { code: 'ending_not_saved', message: text } } : {}),
    ...(status !== 'failed' && cancelReason ? { reason: cancelReason } : {}),
    ...finishedUsage(log),
  });
}

/** The events a copy holds in its ring. */
function heldEvents(log: RunLog): number {
  return log.lastSeq - log.oldestSeq + 1;
}

function newReplica(log: RunLog): Replica {
  return { log, controller: new AbortController(), following: false, snapshotOnly: false, stale: 0 };
}

/** Whether a copy still describes the run as the store has it now. */
function isCurrent(replica: Replica, run: RunRecord): boolean {
  const { log } = replica;
  if (log.finished) return true;
  // A following copy hears whatever comes (the watch catches one whose log went quiet for good).
  if (replica.following) return true;
  if (replica.snapshotOnly) return run.status === 'running' && run.lastSeq <= log.lastSeq;
  // A stretch that ended paused; if the run moved on since, this copy is stale.
  if (log.paused) return run.status === 'paused' && run.lastSeq <= log.lastSeq;
  return false;
}
