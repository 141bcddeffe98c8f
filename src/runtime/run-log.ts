import {
  createMessageState,
  fromMessage,
  type LoggedRunEvent,
  type Message,
  type MessageState,
  type RunEventDraft,
  type RunSnapshotEvent,
  reduce,
  toMessage,
} from '../protocol/index.ts';

export interface RunLogOptions {
  /** Events kept for replay; older ones are answered with a snapshot. Default 10,000. */
  capacity?: number;
  /** Continue a persisted message (a resumed run): `seq` goes on from its `lastSeq`. */
  initial?: Message;
  now?: () => number;
  /**
   * Called with the message after every event that changes its shape (a block starts, ends or
   * changes status, the run pauses, resumes or finishes), never for a delta or a hint: the brief's
   * "persist at block boundaries and terminal events".
   */
  onBoundary?: (message: Message, event: LoggedRunEvent) => void;
}

/** Events after which the persisted message must be written. */
const BOUNDARIES = new Set<LoggedRunEvent['type']>([
  'run.started',
  'block.started',
  'block.updated',
  'block.ended',
  'run.paused',
  'run.resumed',
  'run.finished',
]);

export type Replay = { events: LoggedRunEvent[] } | { snapshot: RunSnapshotEvent; events: LoggedRunEvent[] };

/**
 * One run's append-only event log: it stamps `seq` and `at`, keeps the reduced message (the same
 * `reduce` the client runs), holds a bounded buffer for replay, and tells subscribers about each new
 * event. Runs outlive connections: the log belongs to the run, streams only read it.
 */
export class RunLog {
  readonly runId: string;
  readonly #capacity: number;
  readonly #now: () => number;
  readonly #onBoundary: RunLogOptions['onBoundary'];
  readonly #buffer: LoggedRunEvent[] = [];
  readonly #listeners = new Set<(event: LoggedRunEvent) => void>();
  #state: MessageState;

  constructor(runId: string, options: RunLogOptions = {}) {
    this.runId = runId;
    this.#capacity = options.capacity ?? 10_000;
    this.#now = options.now ?? Date.now;
    this.#onBoundary = options.onBoundary;
    this.#state = options.initial ? fromMessage(options.initial) : createMessageState();
  }

  get state(): MessageState {
    return this.#state;
  }

  get lastSeq(): number {
    return this.#state.lastSeq;
  }

  /** Whether the run reached a terminal status (nothing more will be appended). */
  get finished(): boolean {
    return ['completed', 'cancelled', 'failed', 'interrupted'].includes(this.#state.status);
  }

  append(draft: RunEventDraft): LoggedRunEvent {
    const event = {
      ...draft,
      runId: this.runId,
      seq: this.#state.lastSeq + 1,
      at: this.#now(),
    } as LoggedRunEvent;
    this.#state = reduce(this.#state, event);
    this.#buffer.push(event);
    if (this.#buffer.length > this.#capacity) this.#buffer.splice(0, this.#buffer.length - this.#capacity);
    if (BOUNDARIES.has(event.type)) this.#onBoundary?.(toMessage(this.#state), event);
    for (const listener of this.#listeners) listener(event);
    return event;
  }

  /**
   * Everything after `afterSeq`: the events themselves while the buffer still holds them; else a
   * snapshot of the whole message as of the newest event, after which live events follow.
   */
  since(afterSeq: number): Replay {
    const oldest = this.#buffer[0]?.seq ?? this.#state.lastSeq + 1;
    if (afterSeq + 1 >= oldest || afterSeq >= this.#state.lastSeq) {
      return { events: this.#buffer.filter((event) => event.seq > afterSeq) };
    }
    const snapshot: RunSnapshotEvent = {
      type: 'run.snapshot',
      runId: this.runId,
      seq: this.#state.lastSeq,
      at: this.#now(),
      message: toMessage(this.#state),
    };
    return { snapshot, events: [] };
  }

  subscribe(listener: (event: LoggedRunEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
