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
  /** Called with every event this log stamps (not with ingested ones): the owner's mirror to the shared log. */
  onAppend?: (event: LoggedRunEvent) => void;
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
  #onBoundary: RunLogOptions['onBoundary'];
  #onAppend: RunLogOptions['onAppend'];
  readonly #buffer: LoggedRunEvent[] = [];
  readonly #listeners = new Set<(event: LoggedRunEvent) => void>();
  readonly #abandonListeners = new Set<() => void>();
  #abandoned = false;
  #state: MessageState;

  constructor(runId: string, options: RunLogOptions = {}) {
    this.runId = runId;
    this.#capacity = options.capacity ?? 10_000;
    this.#now = options.now ?? Date.now;
    this.#onBoundary = options.onBoundary;
    this.#onAppend = options.onAppend;
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
    this.#onAppend?.(event);
    for (const listener of this.#listeners) listener(event);
    return event;
  }

  /**
   * Take in an event another instance stamped (this log is a replica following the shared log):
   * reduced, buffered and told to subscribers like an appended one, never persisted or mirrored
   * here, since its owner does that. A replay (seq already seen) is ignored.
   */
  ingest(event: LoggedRunEvent): void {
    if (event.seq <= this.#state.lastSeq) return;
    this.#state = reduce(this.#state, event);
    this.#buffer.push(event);
    if (this.#buffer.length > this.#capacity) this.#buffer.splice(0, this.#buffer.length - this.#capacity);
    for (const listener of this.#listeners) listener(event);
  }

  /**
   * This process drives the run from here on (a paused copy it resumes): what it appends from now
   * on is persisted and mirrored through these hooks.
   */
  own(hooks: Pick<RunLogOptions, 'onBoundary' | 'onAppend'>): void {
    this.#onBoundary = hooks.onBoundary;
    this.#onAppend = hooks.onAppend;
  }

  /** Whether the run is waiting (for a decision or host tool results). */
  get paused(): boolean {
    return this.#state.status === 'paused';
  }

  /**
   * This copy stops receiving events (a replica that lost track of the shared log, and is replaced
   * by a fresh one): subscribers end their streams, and readers reconnect to the fresh copy.
   */
  abandon(): void {
    if (this.#abandoned) return;
    this.#abandoned = true;
    const listeners = [...this.#abandonListeners];
    this.#abandonListeners.clear();
    this.#listeners.clear();
    for (const listener of listeners) listener();
  }

  get abandoned(): boolean {
    return this.#abandoned;
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

  /** Hear every new event; `onAbandon` when this copy stops receiving them (see `abandon`). */
  subscribe(listener: (event: LoggedRunEvent) => void, onAbandon?: () => void): () => void {
    this.#listeners.add(listener);
    if (onAbandon !== undefined) this.#abandonListeners.add(onAbandon);
    return () => {
      this.#listeners.delete(listener);
      if (onAbandon !== undefined) this.#abandonListeners.delete(onAbandon);
    };
  }
}
