import { type NdjsonDecoderOptions, NdjsonLineParser } from './ndjson-decoder-stream.ts';
import { ProtocolError } from './protocol-error.ts';
import { RUN_EVENT_TYPES, type RunEvent, RunEventSchema } from './run-event.ts';
import { type SseDecoderOptions, SseLineParser, type SseMessage } from './sse-decoder-stream.ts';
import { encodeSseFrame, type SseFrame } from './sse-encoder-stream.ts';

export type WireFormat = 'sse' | 'ndjson';

export const SSE_CONTENT_TYPE = 'text/event-stream';
export const NDJSON_CONTENT_TYPE = 'application/x-ndjson';

/**
 * The SSE frame of one run event: `event:` is the type, `data:` the JSON, and `id:` the `seq`, so a
 * reconnecting reader's `Last-Event-ID` names its position in the log. `done` has no `seq` and so no
 * `id:`: it belongs to one stream, not to the log.
 */
export function toSseFrame(event: RunEvent, options: { retry?: number } = {}): SseFrame {
  const frame: SseFrame = { event: event.type, data: JSON.stringify(event) };
  if (event.type !== 'done') frame.id = String(event.seq);
  if (options.retry !== undefined) frame.retry = options.retry;
  return frame;
}

/**
 * Encode once per event; servers keep these strings (or their bytes) for replay to every reader.
 * The same bytes as `encodeSseFrame(toSseFrame(event))`, built directly: `JSON.stringify` never
 * emits a raw line break, the type names are fixed ASCII and `seq` is an integer, so no field needs
 * the general encoder's splitting and checks (`retry` still goes through them).
 */
export function encodeRunEventSse(event: RunEvent, options: { retry?: number } = {}): string {
  if (options.retry !== undefined) return encodeSseFrame(toSseFrame(event, options));
  const data = runEventJson(event);
  return event.type === 'done'
    ? `event: done\ndata: ${data}\n\n`
    : `id: ${event.seq}\nevent: ${event.type}\ndata: ${data}\n\n`;
}

export function encodeRunEventNdjson(event: RunEvent): string {
  return `${runEventJson(event)}\n`;
}

/** The fields of a delta in the order a run log makes them: the draft's, then `runId`, `seq`, `at`. */
const DELTA_KEYS = ['type', 'blockId', 'text', 'runId', 'seq', 'at'] as const;

/**
 * The JSON of the last block id and run id written: a run's deltas repeat them thousands of times, and
 * comparing the same string object is a pointer check.
 */
let lastBlockId = '';
let lastBlockIdJson = '""';
let lastRunId = '';
let lastRunIdJson = '""';

/**
 * `JSON.stringify(event)`, the same text. Deltas are most of a run and all have one shape, so a delta
 * whose keys are exactly those, in that order, is written field by field: less than the general
 * serializer, which must discover the shape of every object it is given. The keys are walked with
 * `for…in` (no array per event); an inherited enumerable key breaks the match and takes the general
 * path, which ignores it, as it should.
 */
function runEventJson(event: RunEvent): string {
  if (event.type !== 'block.delta') return JSON.stringify(event);
  let count = 0;
  for (const key in event) {
    if (key !== DELTA_KEYS[count]) return JSON.stringify(event);
    count += 1;
  }
  const { blockId, text, runId, seq, at } = event;
  if (
    count !== DELTA_KEYS.length ||
    typeof blockId !== 'string' ||
    typeof text !== 'string' ||
    typeof runId !== 'string' ||
    !Number.isFinite(seq) ||
    !Number.isFinite(at)
  )
    return JSON.stringify(event);
  if (blockId !== lastBlockId) {
    lastBlockId = blockId;
    lastBlockIdJson = JSON.stringify(blockId);
  }
  if (runId !== lastRunId) {
    lastRunId = runId;
    lastRunIdJson = JSON.stringify(runId);
  }
  // A finite number's JSON is its string form (`-0` included: both give "0").
  return `{"type":"block.delta","blockId":${lastBlockIdJson},"text":${JSON.stringify(text)},"runId":${lastRunIdJson},"seq":${seq},"at":${at}}`;
}

const KNOWN_TYPES: ReadonlySet<string> = new Set(RUN_EVENT_TYPES);

export interface ParseRunEventOptions {
  /** Skip zod validation (trusted, already validated input such as a benchmark baseline). */
  validate?: boolean;
}

/**
 * Parse one decoded JSON value into a `RunEvent`. Returns `undefined` for an event type this version
 * does not know, so a newer server can add types without breaking older readers. Anything claiming
 * a known type must satisfy its schema; fields the schema does not name are dropped, for the same
 * reason: a newer server may add fields.
 */
export function parseRunEvent(value: unknown, options: ParseRunEventOptions = {}): RunEvent | undefined {
  const type = typeof value === 'object' && value !== null ? (value as { type?: unknown }).type : undefined;
  if (typeof type !== 'string') throw new ProtocolError('invalid_event', 'a run event needs a string "type"');
  if (!KNOWN_TYPES.has(type)) return undefined;
  if (options.validate === false) return value as RunEvent;
  const result = RunEventSchema.safeParse(value);
  if (!result.success) {
    throw new ProtocolError(
      'invalid_event',
      `invalid ${type} event: ${result.error.issues[0]?.message ?? ''}`,
      {
        cause: result.error,
      },
    );
  }
  return result.data;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ProtocolError('invalid_json', 'event data is not valid JSON', { cause: error });
  }
}

/** Turns one SSE message into a run event, checking that the frame's name agrees with its data. */
export function runEventFromSseMessage(
  message: SseMessage,
  options: ParseRunEventOptions = {},
): RunEvent | undefined {
  const event = parseRunEvent(parseJson(message.data), options);
  if (event !== undefined && message.event !== 'message' && message.event !== event.type) {
    throw new ProtocolError('invalid_event', `SSE event "${message.event}" carries a ${event.type} payload`);
  }
  return event;
}

/** Run events in, wire bytes out, in either format. `retry` is written on the first SSE frame only. */
export class RunEventEncoderStream extends TransformStream<RunEvent, Uint8Array> {
  constructor(format: WireFormat = 'sse', options: { retry?: number } = {}) {
    const encoder = new TextEncoder();
    let first = true;
    super({
      transform(event, controller) {
        const text =
          format === 'ndjson'
            ? encodeRunEventNdjson(event)
            : encodeRunEventSse(event, first && options.retry !== undefined ? { retry: options.retry } : {});
        first = false;
        controller.enqueue(encoder.encode(text));
      },
    });
  }
}

export interface RunEventDecoderOptions
  extends ParseRunEventOptions,
    Pick<SseDecoderOptions, 'onRetry' | 'onComment' | 'maxBufferedChars'>,
    NdjsonDecoderOptions {
  /** Called with the payload's type of events this version does not know (they are skipped). */
  onUnknownEvent?: (type: string) => void;
}

/**
 * Wire bytes in, validated run events out: UTF-8 decoding, SSE or NDJSON framing and
 * `parseRunEvent` in one transform. One stage rather than a pipe of three, because each hand-off
 * between Web streams costs more per event than the parsing itself (see `npm run bench:protocol`).
 */
export class RunEventDecoderStream extends TransformStream<Uint8Array | string, RunEvent> {
  constructor(format: WireFormat = 'sse', options: RunEventDecoderOptions = {}) {
    // ignoreBOM keeps the BOM in the text so each parser applies its rule to string input too.
    const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
    const sse =
      format === 'sse'
        ? new SseLineParser({
            ...(options.onRetry ? { onRetry: options.onRetry } : {}),
            ...(options.onComment ? { onComment: options.onComment } : {}),
            ...(options.maxBufferedChars !== undefined ? { maxBufferedChars: options.maxBufferedChars } : {}),
          })
        : undefined;
    const ndjson = format === 'ndjson' ? new NdjsonLineParser(options) : undefined;
    const emit = (
      value: unknown,
      controller: TransformStreamDefaultController<RunEvent>,
      sseEvent?: string,
    ) => {
      const event = parseRunEvent(value, options);
      if (event === undefined) {
        options.onUnknownEvent?.(String((value as { type?: unknown }).type));
        return;
      }
      if (sseEvent !== undefined && sseEvent !== 'message' && sseEvent !== event.type) {
        throw new ProtocolError('invalid_event', `SSE event "${sseEvent}" carries a ${event.type} payload`);
      }
      controller.enqueue(event);
    };
    super({
      transform(chunk, controller) {
        const text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
        if (sse !== undefined) {
          for (const message of sse.push(text)) emit(parseJson(message.data), controller, message.event);
        } else if (ndjson !== undefined) {
          for (const value of ndjson.push(text)) emit(value, controller);
        }
      },
      flush() {
        // Bytes of an unfinished character belong to the unfinished frame, discarded with it.
        decoder.decode();
        sse?.end();
        ndjson?.end();
      },
    });
  }
}

/** Same as `new RunEventDecoderStream(format, options)`, usable with `pipeThrough`. */
export function createRunEventDecoderStream(
  format: WireFormat = 'sse',
  options: RunEventDecoderOptions = {},
): RunEventDecoderStream {
  return new RunEventDecoderStream(format, options);
}
