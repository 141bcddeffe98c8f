import type { LoggedRunEvent } from '../protocol/index.ts';

/**
 * A run's events, shared by every instance that serves it: the owner appends, any instance reads
 * and follows. The log is the live tail, not the record: it may be capped, expire after the run
 * ends, or lose everything (a Redis restart), and the store's persisted message (written at block
 * boundaries) then answers as a snapshot, so a reader never depends on the log alone.
 */
export interface EventLog {
  /**
   * Append consecutive events (`seq` n, n+1, …) to the run's log. Refused with `EventLogConflict`
   * unless n is the log's last seq + 1, so two writers can never both append seq n. An empty log
   * (new, expired or lost) accepts any n: what came before is in the store.
   */
  append(runId: string, events: readonly LoggedRunEvent[], options?: AppendOptions): Promise<void>;
  /** The events after `afterSeq` that the log holds, and whether they are all of them. */
  read(runId: string, afterSeq: number): Promise<EventLogRead>;
  /**
   * The events after `afterSeq` as they arrive, ending after the first `run.finished` or
   * `run.paused` (the end of a stretch: a resume may happen anywhere, much later). Throws
   * `EventLogGap` when the log no longer holds the next event (trimmed past a slow follower, or
   * lost), so the caller answers with a snapshot. Stops quietly when `signal` aborts.
   */
  follow(runId: string, afterSeq: number, options?: { signal?: AbortSignal }): AsyncIterable<LoggedRunEvent>;
  /** The run has ended: its log may go after the configured time to live. */
  expire(runId: string): Promise<void>;
  close(): Promise<void>;
}

export interface AppendOptions {
  /**
   * `continues` (the default): refused unless the first event's seq is the log's last + 1 (or the
   * log is empty). `follows`: refused only when the log already holds that seq or a later one. That
   * is enough once a writer's first append of a stretch was checked, since any second writer's
   * append of the same seq is still refused, and on Redis it saves a read per append.
   */
  check?: 'continues' | 'follows';
}

export interface EventLogRead {
  events: LoggedRunEvent[];
  /**
   * True when `events` are every event after `afterSeq` up to the newest: the log holds `afterSeq + 1`
   * (or `afterSeq` is its newest). False when it was trimmed, expired or lost: use the store.
   */
  complete: boolean;
  /** The newest seq the log holds, or `null` when it holds nothing. */
  lastSeq: number | null;
}

/** Another writer appended first: the log's newest seq is `lastSeq`, not `expected - 1`. */
export class EventLogConflict extends Error {
  override readonly name = 'EventLogConflict';
  readonly code = 'seq_conflict';
  constructor(
    readonly runId: string,
    readonly expected: number,
    readonly lastSeq: number,
  ) {
    super(`run ${runId}: expected to append seq ${expected}, but the log ends at ${lastSeq}`);
  }
}

/** The log no longer holds the next event a follower needs. */
export class EventLogGap extends Error {
  override readonly name = 'EventLogGap';
  readonly code = 'log_gap';
  constructor(
    readonly runId: string,
    readonly afterSeq: number,
  ) {
    super(`run ${runId}: the log no longer holds the events after seq ${afterSeq}`);
  }
}

/** Whether a follower stops after this event. */
export function endsStretch(event: LoggedRunEvent): boolean {
  return event.type === 'run.finished' || event.type === 'run.paused';
}

/** The seqs of a batch must follow each other, or the batch is a bug of the caller. */
export function assertConsecutive(runId: string, events: readonly LoggedRunEvent[]): void {
  for (let index = 1; index < events.length; index += 1) {
    const previous = events[index - 1] as LoggedRunEvent;
    const event = events[index] as LoggedRunEvent;
    if (event.seq !== previous.seq + 1)
      throw new RangeError(`run ${runId}: seq ${event.seq} does not follow ${previous.seq} in one append`);
    if (event.runId !== runId)
      throw new RangeError(`an event of run ${event.runId} appended to run ${runId}`);
  }
  const first = events[0];
  if (first !== undefined && first.runId !== runId)
    throw new RangeError(`an event of run ${first.runId} appended to run ${runId}`);
}
