import {
  copyOwnedBlocks,
  createMessageState,
  fromMessage,
  type LoggedRunEvent,
  type Message,
  type MessageState,
  patchState,
  type RunEventDraft,
  type RunSnapshotEvent,
  reduceOwned,
  toMessage,
} from '../../protocol/index.ts';
import { KeptFrames } from './kept-frames.ts';
import {
  type LogFace,
  type LogFaceDefinition,
  type LogFaceMapper,
  type LogFrame,
  MADE_ON_READ,
} from './log-face.ts';

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

/** A face that keeps its frames: its mapper, and every frame since it began. */
interface FaceSlots<Mapper extends LogFaceMapper> extends LogFace<Mapper> {
  /** One per seq from `firstSeq` on. */
  frames: KeptFrames;
  /** The seq of the face's first frame. */
  firstSeq: number;
  /** The mapper makes some frames when read (`frameOf`): kept only once their events leave the ring. */
  makesOnRead: boolean;
  preamble: LogFrame | null;
  preambleSeq: number;
}

/**
 * One run's append-only event log: it stamps `seq` and `at`, keeps the reduced message (the same
 * `reduce` the client runs), holds a bounded ring of events for replay, and tells subscribers about
 * each new event. Runs outlive connections: the log belongs to the run, streams only read it.
 *
 * The ring grows to its capacity and then overwrites its oldest slot: no copying per event however
 * long the run. Each wire face either makes its frames when read or keeps them (see `face`).
 */
export class RunLog {
  readonly runId: string;
  readonly #capacity: number;
  readonly #now: () => number;
  #onBoundary: RunLogOptions['onBoundary'];
  #onAppend: RunLogOptions['onAppend'];
  /** Slot of seq s: (s - #firstSeq) % capacity; filled by push until the ring is full. */
  readonly #ring: LoggedRunEvent[] = [];
  /** The seq the first ring slot was written for: the first event this copy holds. */
  readonly #firstSeq: number;
  readonly #faces = new Map<string, LogFace>();
  /** The faces that map events as they arrive, for the per-event loop (an array: no iterator per event). */
  #faceList: FaceSlots<LogFaceMapper>[] = [];
  readonly #listeners = new Set<(event: LoggedRunEvent) => void>();
  /**
   * The listeners as an array, made anew (never changed) after one comes or goes: the per-event loop
   * needs no iterator, and a listener that leaves while being told about an event breaks nothing.
   */
  #listenerList: ((event: LoggedRunEvent) => void)[] | undefined;
  readonly #abandonListeners = new Set<() => void>();
  #abandoned = false;
  #state: MessageState;

  constructor(runId: string, options: RunLogOptions = {}) {
    this.runId = runId;
    this.#capacity = Math.max(1, options.capacity ?? 10_000);
    this.#now = options.now ?? Date.now;
    this.#onBoundary = options.onBoundary;
    this.#onAppend = options.onAppend;
    // The state is reduced in place (`reduceOwned`): it must share no open block with the caller.
    this.#state = options.initial
      ? patchState(fromMessage(options.initial), { blocks: copyOwnedBlocks(options.initial.blocks) })
      : createMessageState();
    this.#firstSeq = this.#state.lastSeq + 1;
  }

  /** The message as of the newest event: a copy, which later events leave as it is. */
  get state(): MessageState {
    return patchState(this.#state, { blocks: copyOwnedBlocks(this.#state.blocks) });
  }

  /** The persisted form of `state`, equally a copy. */
  message(): Message {
    return toMessage(this.state);
  }

  get lastSeq(): number {
    return this.#state.lastSeq;
  }

  /** The oldest seq the ring still holds (`lastSeq + 1` when it holds none). */
  get oldestSeq(): number {
    return Math.max(this.#firstSeq, this.#state.lastSeq + 1 - this.#ring.length);
  }

  /** Whether the run reached a terminal status (nothing more will be appended). */
  get finished(): boolean {
    const { status } = this.#state;
    return (
      status === 'completed' || status === 'cancelled' || status === 'failed' || status === 'interrupted'
    );
  }

  /**
   * Stamp and take in a new event. The draft becomes the event (it is given its `runId`, `seq` and
   * `at`, not copied: a copy per event is a polymorphic spread, several times the cost of the rest),
   * so pass a fresh object and do not change it afterwards.
   */
  append(draft: RunEventDraft): LoggedRunEvent {
    const event = draft as LoggedRunEvent;
    event.runId = this.runId;
    event.seq = this.#state.lastSeq + 1;
    event.at = this.#now();
    this.#take(event);
    if (BOUNDARIES.has(event.type) && this.#onBoundary !== undefined) this.#onBoundary(this.message(), event);
    this.#onAppend?.(event);
    this.#tell(event);
    return event;
  }

  /**
   * `append` of a delta, most of what a run appends: the event is made whole at once, in its final
   * shape (the fields in `append`'s order), rather than a draft that grows three fields.
   */
  appendDelta(blockId: string, text: string): LoggedRunEvent {
    const event: LoggedRunEvent = {
      type: 'block.delta',
      blockId,
      text,
      runId: this.runId,
      seq: this.#state.lastSeq + 1,
      at: this.#now(),
    };
    this.#take(event);
    this.#onAppend?.(event);
    this.#tell(event);
    return event;
  }

  /**
   * Take in an event another instance stamped (this log is a replica following the shared log):
   * reduced, buffered and told to subscribers like an appended one, never persisted or mirrored
   * here, since its owner does that. A replay (seq already seen) is ignored.
   */
  ingest(event: LoggedRunEvent): void {
    if (event.seq <= this.#state.lastSeq) return;
    this.#take(event);
    this.#tell(event);
  }

  #tell(event: LoggedRunEvent): void {
    this.#listenerList ??= [...this.#listeners];
    const listeners = this.#listenerList;
    for (let index = 0; index < listeners.length; index += 1)
      (listeners[index] as (e: LoggedRunEvent) => void)(event);
  }

  /** Reduce, keep in the ring, and map for every face: once per event, whoever reads it. */
  #take(event: LoggedRunEvent): void {
    this.#state = reduceOwned(this.#state, event);
    const slot = this.#slotOf(event.seq);
    const faces = this.#faceList;
    if (slot === this.#ring.length) this.#ring.push(event);
    else {
      // The ring lets its oldest event go: frames made on read are kept from now on.
      const leaving = this.#ring[slot];
      // (A gap in the seqs, which the log's feeders refuse, would leave the slot empty.)
      if (leaving !== undefined)
        for (let index = 0; index < faces.length; index += 1) {
          const face = faces[index] as FaceSlots<LogFaceMapper>;
          if (face.makesOnRead) keepFrameOf(face, leaving);
        }
      this.#ring[slot] = event;
    }
    for (let index = 0; index < faces.length; index += 1) {
      const face = faces[index] as FaceSlots<LogFaceMapper>;
      takeFrame(face, face.mapper.map(event));
    }
  }

  #slotOf(seq: number): number {
    return (seq - this.#firstSeq) % this.#capacity;
  }

  /** The event with this seq while the ring holds it. */
  eventAt(seq: number): LoggedRunEvent | undefined {
    if (seq < this.oldestSeq || seq > this.#state.lastSeq) return undefined;
    return this.#ring[this.#slotOf(seq)];
  }

  /**
   * A wire face of this log: created on first use (its mapper then maps the events the ring holds,
   * in order), after which every event is mapped once as it arrives. Readers take its frames.
   */
  face<Mapper extends LogFaceMapper>(definition: LogFaceDefinition<Mapper>): LogFace<Mapper> {
    const existing = this.#faces.get(definition.key);
    if (existing !== undefined) return existing as unknown as LogFace<Mapper>;
    const mapper = definition.create();
    if (definition.onRead === true) {
      const face: LogFace<Mapper> = {
        mapper,
        preamble: null,
        preambleSeq: 0,
        frameAt: (seq) => {
          const event = this.eventAt(seq);
          if (event === undefined) return undefined;
          const frame = mapper.map(event);
          return frame === MADE_ON_READ ? (mapper.frameOf?.(event) ?? null) : frame;
        },
      };
      this.#faces.set(definition.key, face as unknown as FaceSlots<LogFaceMapper>);
      return face;
    }
    // One frame per seq from the face's first event on, kept for as long as the log is (those made
    // on read, once the ring lets their events go).
    const frames = new KeptFrames();
    const makesOnRead = mapper.frameOf !== undefined;
    const face: FaceSlots<Mapper> = {
      mapper,
      frames,
      firstSeq: this.oldestSeq,
      makesOnRead,
      preamble: null,
      preambleSeq: 0,
      frameAt: (seq) => {
        const index = seq - face.firstSeq;
        if (!frames.isDeferred(index)) return frames.at(index);
        const event = this.eventAt(seq);
        return event === undefined ? undefined : (mapper.frameOf?.(event) ?? null);
      },
    };
    if (definition.fromStart && this.oldestSeq > 1 && this.#state.lastSeq > 0) {
      // The log no longer holds the run's start: the face begins from the whole message as of the
      // newest event, as a snapshot, and maps what comes after it.
      const snapshot = this.snapshot();
      const preamble = mapper.map(snapshot);
      face.preamble = preamble === MADE_ON_READ ? (mapper.frameOf?.(snapshot) ?? null) : preamble;
      face.preambleSeq = snapshot.seq;
      face.firstSeq = snapshot.seq + 1;
    } else {
      for (let seq = this.oldestSeq; seq <= this.#state.lastSeq; seq += 1) {
        const event = this.#ring[this.#slotOf(seq)];
        takeFrame(face, event === undefined ? null : mapper.map(event));
      }
    }
    this.#faces.set(definition.key, face as unknown as FaceSlots<LogFaceMapper>);
    this.#faceList.push(face as unknown as FaceSlots<LogFaceMapper>);
    return face;
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
    this.#listenerList = undefined;
    for (const listener of listeners) listener();
  }

  get abandoned(): boolean {
    return this.#abandoned;
  }

  /**
   * Everything after `afterSeq`: the events themselves while the ring still holds them; else a
   * snapshot of the whole message as of the newest event, after which live events follow.
   */
  since(afterSeq: number): Replay {
    const oldest = this.oldestSeq;
    if (afterSeq + 1 >= oldest || afterSeq >= this.#state.lastSeq) {
      const events: LoggedRunEvent[] = [];
      for (let seq = Math.max(afterSeq + 1, oldest); seq <= this.#state.lastSeq; seq += 1) {
        const event = this.#ring[this.#slotOf(seq)];
        if (event !== undefined) events.push(event);
      }
      return { events };
    }
    return { snapshot: this.snapshot(), events: [] };
  }

  /** The whole message as of the newest event, as the event a reader gets instead of a gap. */
  snapshot(): RunSnapshotEvent {
    return {
      type: 'run.snapshot',
      runId: this.runId,
      seq: this.#state.lastSeq,
      at: this.#now(),
      message: this.message(),
    };
  }

  /** Hear every new event; `onAbandon` when this copy stops receiving them (see `abandon`). */
  subscribe(listener: (event: LoggedRunEvent) => void, onAbandon?: () => void): () => void {
    this.#listeners.add(listener);
    this.#listenerList = undefined;
    if (onAbandon !== undefined) this.#abandonListeners.add(onAbandon);
    return () => {
      if (this.#listeners.delete(listener)) this.#listenerList = undefined;
      if (onAbandon !== undefined) this.#abandonListeners.delete(onAbandon);
    };
  }
}

/** A kept face takes the frame its mapper made for the next event, or numbers it to make on read. */
function takeFrame(face: FaceSlots<LogFaceMapper>, frame: LogFrame | null | typeof MADE_ON_READ): void {
  if (frame === MADE_ON_READ) face.frames.defer();
  else face.frames.push(frame);
}

/** The frame of an event the ring lets go, made on read until now, is kept. */
function keepFrameOf(face: FaceSlots<LogFaceMapper>, event: LoggedRunEvent): void {
  const index = event.seq - face.firstSeq;
  if (face.frames.isDeferred(index)) face.frames.fill(index, face.mapper.frameOf?.(event) ?? null);
}
