import type { LoggedRunEvent, RunSnapshotEvent } from '../../protocol/index.ts';

/**
 * How one wire face (the native SSE, NDJSON, the Responses dialect …) turns a run's events into the
 * text it writes. A mapper is created once per log and face and sees every event once, in seq
 * order, when it is appended, so a face that folds the run (Responses numbers its own events) folds
 * it once per process, not once per reader. `null`: the event has nothing on this face.
 *
 * A frame is text, or its UTF-8 bytes. Text costs least for a frame made and written at once (the
 * writer joins what it has to write and encodes it once per write, shared by readers at the same
 * position); a face that keeps its frames keeps them as UTF-8 in slabs outside the JavaScript heap
 * the garbage collector copies, at half the size of a string of Chinese text (see `KeptFrames`).
 *
 * A face that needs the run from its start (`fromStart`) is first given a `run.snapshot` when the log
 * no longer holds seq 1 (a resumed run, a very long one); the others only map the events the log
 * holds, since a reader that needs older ones gets a snapshot of its own.
 */
/** One event's frame on a face: its text, or that text's UTF-8 bytes. */
export type LogFrame = string | Uint8Array;

/**
 * What a kept face's mapper answers for an event whose frame it can make again whenever asked (see
 * `LogFaceMapper.frameOf`): nothing is kept for it while the log's ring holds the event.
 */
export const MADE_ON_READ: unique symbol = Symbol('made on read');

export interface LogFaceMapper {
  map(event: LoggedRunEvent | RunSnapshotEvent): LogFrame | null | typeof MADE_ON_READ;
  /**
   * For a face that folds the run but whose frames of most events depend on little of the fold (a
   * Responses delta needs only the sequence number it was given and its block's item): the frame of
   * an event `map` answered `MADE_ON_READ` for, the same text every time. The face makes such frames
   * when read, joined and encoded once per write like those of a face that keeps none, and keeps them
   * only once the ring lets their events go.
   */
  frameOf?(event: LoggedRunEvent | RunSnapshotEvent): LogFrame | null;
}

export interface LogFaceDefinition<Mapper extends LogFaceMapper> {
  /** Faces with the same key share one mapper per log (e.g. `sse`, `ndjson`, `responses-sse`). */
  key: string;
  create(): Mapper;
  fromStart?: boolean;
  /**
   * Keep no frames: map an event when a reader asks for it, while the log's ring holds the event. For
   * a face that needs no fold (each event's frame depends on that event alone), where keeping a frame
   * beside every event would double what the log holds, and what the garbage collector copies while a
   * run streams. Readers at the same position share one encoding of what they write (see the server's
   * `LogCursor`), so live followers still cost one encoding per event.
   *
   * Otherwise the face maps each event once, as it is appended, and keeps every frame since it began,
   * also those of events the ring has dropped: for a face that folds the run and whose readers resume
   * by its own numbering (Responses' `sequence_number`), which a snapshot of the native log cannot
   * continue. Such a mapper may still make most frames when read (`MADE_ON_READ`, `frameOf`): those
   * are kept only once the ring lets their events go.
   */
  onRead?: boolean;
}

/**
 * A face's frames of one log, the same for every reader of the run (live or replaying): made when
 * read, or mapped once and kept (see `onRead`).
 */
export interface LogFace<Mapper extends LogFaceMapper = LogFaceMapper> {
  readonly mapper: Mapper;
  /**
   * The frame of the event with this seq: `null` when it has none on this face, `undefined` when
   * the face no longer holds (or never held) the event.
   */
  frameAt(seq: number): LogFrame | null | undefined;
  /**
   * For a face that maps from the start: the frame of the snapshot it began with when the log no
   * longer held seq 1 (`null` otherwise), and the seq that snapshot stood at (0 without one).
   */
  readonly preamble: LogFrame | null;
  readonly preambleSeq: number;
}
