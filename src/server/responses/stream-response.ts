import {
  type LoggedRunEvent,
  NDJSON_CONTENT_TYPE,
  type RunSnapshotEvent,
  SSE_CONTENT_TYPE,
} from '../../protocol/index.ts';
import {
  type LogFace,
  type LogFaceDefinition,
  type LogFaceMapper,
  type LogFrame,
  MADE_ON_READ,
  type RunLog,
} from '../../runtime/index.ts';
import { encodeUtf8 } from '../encode-utf8.ts';
import {
  endsStream,
  NDJSON_HEARTBEAT,
  SSE_HEARTBEAT,
  SSE_PRELUDE,
  type StreamLogOptions,
  streamLog,
} from '../stream-run.ts';
import type { ResponseContext, ResponseObject } from './response-object.ts';
import {
  type DeltaTarget,
  ResponsesEventMapper,
  type ResponsesStreamEvent,
} from './responses-event-mapper.ts';

/** Where a Responses stream starts: after a sequence number (resume), or after a native seq (a resume POST). */
export type ResponseStreamStart = { afterSequence: number } | { afterNativeSeq: number };

/** One Responses event as written on the wire: an SSE frame with `id:` and `event:`, or an NDJSON line. */
export function encodeResponsesEvent(event: ResponsesStreamEvent, ndjson: boolean): string {
  const json = responsesEventJson(event);
  return ndjson ? `${json}\n` : `id: ${event.sequence_number}\nevent: ${event.type}\ndata: ${json}\n\n`;
}

/** The keys of a text delta as the mapper builds it, in order. */
const TEXT_DELTA_KEYS = [
  'type',
  'sequence_number',
  'item_id',
  'output_index',
  'content_index',
  'delta',
  'logprobs',
];

/** The JSON of the last item id written: a block's deltas repeat it, and the same string is a pointer check. */
let lastItemId = '';
let lastItemIdJson = '""';

/**
 * `JSON.stringify(event)`, the same text; an answer's text delta (most of a response) with exactly the
 * mapper's keys is written field by field, as the native protocol's deltas are (keys walked with
 * `for…in`: no array per event; an inherited key breaks the match and takes the general path).
 */
function responsesEventJson(event: ResponsesStreamEvent): string {
  if (event.type !== 'response.output_text.delta') return JSON.stringify(event);
  let count = 0;
  for (const key in event) {
    if (key !== TEXT_DELTA_KEYS[count]) return JSON.stringify(event);
    count += 1;
  }
  const { sequence_number, item_id, output_index, content_index, delta, logprobs } = event;
  if (
    count !== TEXT_DELTA_KEYS.length ||
    !Number.isSafeInteger(sequence_number) ||
    typeof item_id !== 'string' ||
    !Number.isSafeInteger(output_index) ||
    content_index !== 0 ||
    typeof delta !== 'string' ||
    !Array.isArray(logprobs) ||
    logprobs.length !== 0
  )
    return JSON.stringify(event);
  return textDeltaJson(sequence_number, item_id, output_index as number, delta);
}

/** The JSON of an answer's text delta, the mapper's keys in its order. */
export function textDeltaJson(
  sequenceNumber: number,
  itemId: string,
  outputIndex: number,
  delta: string,
): string {
  if (itemId !== lastItemId) {
    lastItemId = itemId;
    lastItemIdJson = JSON.stringify(itemId);
  }
  return `{"type":"response.output_text.delta","sequence_number":${sequenceNumber},"item_id":${lastItemIdJson},"output_index":${outputIndex},"content_index":0,"delta":${JSON.stringify(delta)},"logprobs":[]}`;
}

/** What a face needs of an event mapper of either shape (`ResponsesEventMapper`, `PlainResponsesMapper`). */
export interface ResponsesEventFolder {
  push(event: LoggedRunEvent | RunSnapshotEvent): ResponsesStreamEvent[];
  /**
   * Folds a delta and gives its event's sequence number; `null`: the delta has no event;
   * `undefined`: it must go through `push` (it finishes something held back).
   */
  pushDelta(event: Extract<LoggedRunEvent, { type: 'block.delta' }>): number | null | undefined;
  deltaTarget(blockId: string): DeltaTarget | undefined;
  deltaEvent(
    event: Extract<LoggedRunEvent, { type: 'block.delta' }>,
    sequenceNumber: number,
  ): ResponsesStreamEvent | undefined;
}

/**
 * A Responses face of a log, in either shape: one event mapper per log and wire format folds the run
 * once, as its events are appended, and each native event's Responses events are kept encoded beside
 * it (all of them, since readers resume by `sequence_number`). Every reader, and `GET`, reads those.
 */
export class ResponsesFaceMapper<Events extends ResponsesEventFolder = ResponsesEventMapper>
  implements LogFaceMapper
{
  readonly events: Events;
  readonly #ndjson: boolean;
  /** The sequence number each delta's Responses event was given, by native seq. */
  readonly #deltaSequences = new SequenceNumbers();

  constructor(events: Events, ndjson: boolean) {
    this.events = events;
    this.#ndjson = ndjson;
  }

  map(event: LoggedRunEvent | RunSnapshotEvent): LogFrame | null | typeof MADE_ON_READ {
    if (event.type === 'block.delta') {
      // Most of a run: folded now, its frame made when read (from the event, its sequence number and
      // its block's item), like the native face's, instead of kept beside it.
      const sequence = this.events.pushDelta(event);
      if (sequence === null) return null;
      if (sequence !== undefined) {
        this.#deltaSequences.set(event.seq, sequence);
        return MADE_ON_READ;
      }
    }
    const mapped = this.events.push(event);
    if (mapped.length === 0) return null;
    let text = '';
    for (const one of mapped) text += encodeResponsesEvent(one, this.#ndjson);
    // The log keeps it as UTF-8, beside the frames before it (see `KeptFrames`).
    return text;
  }

  frameOf(event: LoggedRunEvent | RunSnapshotEvent): LogFrame | null {
    if (event.type !== 'block.delta') return null;
    const sequence = this.#deltaSequences.get(event.seq);
    if (sequence === undefined) return null;
    const target = this.events.deltaTarget(event.blockId);
    if (target?.type !== 'response.output_text.delta') {
      const mapped = this.events.deltaEvent(event, sequence);
      return mapped === undefined ? null : encodeResponsesEvent(mapped, this.#ndjson);
    }
    // An answer's text, most of a response: written from its block's target, no event object.
    const json = textDeltaJson(sequence, target.itemId, target.outputIndex, event.text);
    return this.#ndjson
      ? `${json}\n`
      : `id: ${sequence}\nevent: response.output_text.delta\ndata: ${json}\n\n`;
  }
}

/** Numbers by seq, for seqs that arrive in increasing order: a typed array, not an entry per seq. */
export class SequenceNumbers {
  #firstSeq = -1;
  #values = new Int32Array(256).fill(-1);

  set(seq: number, value: number): void {
    if (this.#firstSeq === -1) this.#firstSeq = seq;
    const index = seq - this.#firstSeq;
    if (index < 0) return;
    if (index >= this.#values.length) {
      const grown = new Int32Array(Math.max(this.#values.length * 2, index + 1)).fill(-1);
      grown.set(this.#values);
      this.#values = grown;
    }
    this.#values[index] = value;
  }

  get(seq: number): number | undefined {
    const value = this.#values[seq - this.#firstSeq];
    return value === undefined || value === -1 ? undefined : value;
  }
}

function responsesFace(log: RunLog, context: ResponseContext, ndjson: boolean): LogFace<ResponsesFaceMapper> {
  const definition: LogFaceDefinition<ResponsesFaceMapper> = {
    key: ndjson ? 'responses-ndjson' : 'responses-sse',
    create: () => new ResponsesFaceMapper(new ResponsesEventMapper(context), ndjson),
    fromStart: true,
  };
  return log.face(definition);
}

/** The Response object of a run as it stands: the face's fold, kept current as events arrive. */
export function responseObjectOf(log: RunLog, context: ResponseContext): ResponseObject {
  return responsesFace(log, context, false).mapper.events.response();
}

const decoder = new TextDecoder();

function bytesOf(frame: LogFrame): Uint8Array {
  return typeof frame === 'string' ? encodeUtf8(frame) : frame;
}

/** The sequence number of each event in one frame of the face (SSE frames or NDJSON lines). */
function splitFrame(text: string, ndjson: boolean): { sequence: number; text: string }[] {
  // JSON never holds a raw line break, so frames split exactly at blank lines (SSE) or newlines.
  const parts = text.split(ndjson ? '\n' : '\n\n').filter((part) => part !== '');
  return parts.map((part) => ({
    sequence: ndjson
      ? (JSON.parse(part) as ResponsesStreamEvent).sequence_number
      : Number(/^id: (\d+)/.exec(part)?.[1] ?? '-1'),
    text: ndjson ? `${part}\n` : `${part}\n\n`,
  }));
}

/**
 * Where a reader that has every Responses event up to `afterSequence` starts: the native seq after
 * which the face's frames are wholly new to it, and the part of the frame before that it lacks.
 */
function startAfterSequence(
  log: RunLog,
  face: LogFace<ResponsesFaceMapper>,
  afterSequence: number,
  ndjson: boolean,
): { afterSeq: number; head: Uint8Array[] } {
  if (afterSequence < 0) {
    const head = face.preamble !== null ? [bytesOf(face.preamble)] : [];
    return { afterSeq: face.preambleSeq, head };
  }
  const unseen = (frame: LogFrame | null | undefined, seq: number) => {
    if (frame === null || frame === undefined) return undefined;
    const events = splitFrame(typeof frame === 'string' ? frame : decoder.decode(frame), ndjson);
    if ((events.at(-1)?.sequence ?? -1) <= afterSequence) return undefined;
    const rest = events.filter((event) => event.sequence > afterSequence).map((event) => event.text);
    return { afterSeq: seq, head: [encodeUtf8(rest.join(''))] };
  };
  const fromPreamble = unseen(face.preamble, face.preambleSeq);
  if (fromPreamble !== undefined) return fromPreamble;
  for (let seq = face.preambleSeq + 1; seq <= log.lastSeq; seq += 1) {
    const frame = face.frameAt(seq);
    const found = unseen(frame, seq);
    if (found !== undefined) return found;
  }
  return { afterSeq: log.lastSeq, head: [] };
}

/**
 * A Responses stream of a run: OpenAI-style events named in `event:` lines (SSE, the default) or one
 * JSON object per line (`Accept: application/x-ndjson`), each with its `sequence_number` as the SSE
 * `id`. The numbering is the face's, the same for every reader, so a resumed stream continues it
 * exactly. 204 when the response has ended or waits for the host and there is nothing after `start`.
 */
export function streamResponse(
  log: RunLog,
  context: ResponseContext,
  start: ResponseStreamStart,
  accept: string | undefined,
  options: StreamLogOptions = {},
): Response {
  const ndjson = accept?.includes(NDJSON_CONTENT_TYPE) ?? false;
  const face = responsesFace(log, context, ndjson);
  const begin =
    'afterSequence' in start
      ? startAfterSequence(log, face, start.afterSequence, ndjson)
      : { afterSeq: start.afterNativeSeq, head: [] };
  if (endsStream(log) && begin.head.length === 0 && !hasFramesAfter(log, face, begin.afterSeq))
    // Nothing more will come on this stream, and the reader already has everything.
    return new Response(null, { status: 204, ...(options.headers ? { headers: options.headers } : {}) });
  return streamLog(
    {
      log,
      face,
      head: ndjson ? begin.head : [SSE_PRELUDE, ...begin.head],
      afterSeq: begin.afterSeq,
      contentType: ndjson ? NDJSON_CONTENT_TYPE : `${SSE_CONTENT_TYPE}; charset=utf-8`,
      end: null,
      heartbeat: ndjson ? NDJSON_HEARTBEAT : SSE_HEARTBEAT,
    },
    options,
  );
}

function hasFramesAfter(log: RunLog, face: LogFace, afterSeq: number): boolean {
  for (let seq = afterSeq + 1; seq <= log.lastSeq; seq += 1) if (face.frameAt(seq)) return true;
  return false;
}
