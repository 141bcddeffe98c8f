import type { LogFace, RunLog } from '../runtime/index.ts';
import { encodeUtf8 } from './encode-utf8.ts';

/** Characters (or bytes) of frames one write takes at most when a reader has many to catch up on. */
export const MAX_WRITE_CHARS = 32 * 1024;

/** What one stream writes: a face of a log, from a position, after some bytes of its own. */
export interface LogStreamPlan {
  log: RunLog;
  face: LogFace;
  /** Written first: the prelude (`retry:`), and whatever the replay needs beyond the face (a snapshot). */
  head: Uint8Array[];
  /** The stream writes the face's frames of the events after this seq. */
  afterSeq: number;
  contentType: string;
  /** The bytes that end a stream normally (the protocol's `done`), if any. */
  end: Uint8Array | null;
  /** An idle-time keep-alive that readers ignore. */
  heartbeat: Uint8Array;
}

/** The frames after one seq joined and encoded once, shared by every reader at that position. */
interface Joined {
  from: number;
  through: number;
  bytes: Uint8Array | null;
  /** `through` is a stretch's end (`run.finished`, `run.paused`). */
  ended: boolean;
  /** Stopped at the size limit, before the newest event. */
  capped: boolean;
}

/**
 * Readers of one run are mostly at the same place: the newest events, arrived in one turn. The
 * last join per face is kept, so a thousand followers copy those frames together once, not once each.
 */
const lastJoins = new WeakMap<LogFace, Joined>();

function isEnding(log: RunLog, seq: number): boolean {
  const type = log.eventAt(seq)?.type;
  return type === 'run.finished' || type === 'run.paused';
}

/**
 * A stream's position in a run's log. It holds no events and no queue, only a seq: the frames it has
 * yet to write stay in the log's ring, encoded once for everyone. A stream ends after the first event
 * that ends a stretch (`run.finished` or `run.paused`) appended once it began, or, when it began after
 * the run finished or paused, once it has written everything up to there. A replayed pause that the
 * run has since resumed from does not end it.
 */
export class LogCursor {
  readonly #log: RunLog;
  readonly #face: LogFace;
  #seq: number;
  /** The stream starts after the stretch ended: it ends once it reaches this seq. */
  readonly #endsAt: number;
  /** The log's newest seq when the stream began: an ending event after it ends the stream. */
  readonly #liveAfter: number;
  #ended = false;

  constructor(plan: Pick<LogStreamPlan, 'log' | 'face' | 'afterSeq'>) {
    this.#log = plan.log;
    this.#face = plan.face;
    this.#seq = plan.afterSeq;
    const { log } = plan;
    this.#endsAt = log.finished || log.paused ? log.lastSeq : Number.POSITIVE_INFINITY;
    this.#liveAfter = log.lastSeq;
    if (this.#seq >= this.#endsAt) this.#ended = true;
  }

  /** Everything up to the end of the stretch was taken: write the end and close. */
  get ended(): boolean {
    return this.#ended;
  }

  /** Nothing to write until the log grows. */
  get caughtUp(): boolean {
    return this.#ended || this.#seq >= this.#log.lastSeq;
  }

  /** How many events the stream is behind the log. */
  get lag(): number {
    return Math.max(0, this.#log.lastSeq - this.#seq);
  }

  /** The face no longer holds the next event this stream needs (it fell out of the log's ring). */
  get lost(): boolean {
    return !this.caughtUp && this.#face.frameAt(this.#seq + 1) === undefined;
  }

  /**
   * The next bytes to write (about `maxChars` characters of frames at most, never less than one
   * frame), or `null` when there are none now. Moves the position past them.
   */
  next(maxChars = MAX_WRITE_CHARS): Uint8Array | null {
    while (!this.caughtUp && !this.lost) {
      const joined = this.#join(maxChars);
      this.#seq = joined.through;
      if ((joined.ended && joined.through > this.#liveAfter) || this.#seq >= this.#endsAt) this.#ended = true;
      if (joined.bytes !== null) return joined.bytes;
    }
    // A reader that started ahead of this copy (it had read further on another instance) already
    // has the stretch's end when the copy catches up to it there: its events are not written again,
    // so nothing above sees the end; without this the stream would wait until the copy is dropped.
    const log = this.#log;
    if (
      !this.#ended &&
      (log.finished || log.paused) &&
      log.lastSeq > this.#liveAfter &&
      this.#seq >= log.lastSeq
    )
      this.#ended = true;
    return null;
  }

  #join(maxChars: number): Joined {
    const log = this.#log;
    const from = this.#seq;
    const cached = lastJoins.get(this.#face);
    if (
      cached !== undefined &&
      cached.from === from &&
      (cached.through === log.lastSeq || cached.ended || cached.capped)
    )
      return cached;
    let text = '';
    /** Frames kept as bytes, with the text before each encoded in between (rare: kept faces). */
    let parts: Uint8Array[] | undefined;
    let size = 0;
    let through = from;
    let ended = false;
    while (through < log.lastSeq && size < maxChars) {
      const frame = this.#face.frameAt(through + 1);
      if (frame === undefined) break;
      through += 1;
      if (typeof frame === 'string') {
        text += frame;
        size += frame.length;
      } else if (frame !== null) {
        parts ??= [];
        if (text !== '') parts.push(encodeUtf8(text));
        text = '';
        parts.push(frame);
        size += frame.length;
      }
      // Joins stop at every stretch end, so one join serves every reader: each decides for itself.
      if (isEnding(log, through)) {
        ended = true;
        break;
      }
    }
    const capped = !ended && through < log.lastSeq && size >= maxChars;
    if (parts !== undefined && text !== '') parts.push(encodeUtf8(text));
    const bytes = parts !== undefined ? concatBytes(parts) : text === '' ? null : encodeUtf8(text);
    const joined: Joined = { from, through, bytes, ended, capped };
    lastJoins.set(this.#face, joined);
    return joined;
  }
}

function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0] as Uint8Array;
  let size = 0;
  for (const part of parts) size += part.length;
  // Node's pooled, unzeroed allocation when there is one: every byte is overwritten below.
  const bytes = typeof Buffer === 'function' ? Buffer.allocUnsafe(size) : new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    bytes.set(part, offset);
    offset += part.length;
  }
  return bytes;
}
