import { NDJSON_CONTENT_TYPE, SSE_CONTENT_TYPE } from '../../protocol/index.ts';
import type { LogFace, LogFaceDefinition, LogFrame, RunLog } from '../../runtime/index.ts';
import { encodeUtf8 } from '../encode-utf8.ts';
import {
  NDJSON_HEARTBEAT,
  SSE_HEARTBEAT,
  SSE_PRELUDE,
  type StreamLogOptions,
  streamLog,
} from '../stream-run.ts';
import { PlainResponsesMapper } from './plain-responses-mapper.ts';
import type { Stretch } from './plain-stretch.ts';
import type { ResponseContext, ResponseObject } from './response-object.ts';
import type { ResponsesStreamEvent } from './responses-event-mapper.ts';
import { ResponsesFaceMapper } from './stream-response.ts';

/** The plain face of a log: the Responses face with the plain shape's mapper. */
type PlainFaceMapper = ResponsesFaceMapper<PlainResponsesMapper>;

function plainFace(log: RunLog, context: ResponseContext, ndjson: boolean): LogFace<PlainFaceMapper> {
  const definition: LogFaceDefinition<PlainFaceMapper> = {
    key: ndjson ? 'responses-plain-ndjson' : 'responses-plain-sse',
    create: () => new ResponsesFaceMapper(new PlainResponsesMapper(context), ndjson),
    fromStart: true,
  };
  return log.face(definition);
}

/** The plain fold of a run, kept current as its events arrive. */
export function plainMapperOf(log: RunLog, context: ResponseContext): PlainResponsesMapper {
  return plainFace(log, context, false).mapper.events;
}

/** The plain response named `id` (a stretch of the run), or `undefined` when the run has no such stretch. */
export function plainResponseOf(
  log: RunLog,
  context: ResponseContext,
  id: string,
): ResponseObject | undefined {
  const mapper = plainMapperOf(log, context);
  const stretch = mapper.stretch(id) ?? (id === context.id ? (mapper.last ?? undefined) : undefined);
  return stretch === undefined ? undefined : mapper.response(stretch);
}

const decoder = new TextDecoder();

function eventsOf(frame: LogFrame, ndjson: boolean): { sequence: number; text: string }[] {
  const text = typeof frame === 'string' ? frame : decoder.decode(frame);
  return text
    .split(ndjson ? '\n' : '\n\n')
    .filter((part) => part !== '')
    .map((part) => ({
      sequence: ndjson
        ? (JSON.parse(part) as ResponsesStreamEvent).sequence_number
        : Number(/^id: (\d+)/.exec(part)?.[1] ?? '-1'),
      text: ndjson ? `${part}\n` : `${part}\n\n`,
    }));
}

function planOf(log: RunLog, face: LogFace, ndjson: boolean, head: Uint8Array[], afterSeq: number) {
  return {
    log,
    face,
    head: ndjson ? head : [SSE_PRELUDE, ...head],
    afterSeq,
    contentType: ndjson ? NDJSON_CONTENT_TYPE : `${SSE_CONTENT_TYPE}; charset=utf-8`,
    end: null,
    heartbeat: ndjson ? NDJSON_HEARTBEAT : SSE_HEARTBEAT,
  };
}

/**
 * The plain stream of the stretch that begins after native seq `afterNativeSeq` (a new response: 0;
 * a continuation: the seq before its resume), live until the stretch ends.
 */
export function streamPlainFrom(
  log: RunLog,
  context: ResponseContext,
  afterNativeSeq: number,
  accept: string | undefined,
  options: StreamLogOptions = {},
): Response {
  const ndjson = accept?.includes(NDJSON_CONTENT_TYPE) ?? false;
  const face = plainFace(log, context, ndjson);
  return streamLog(planOf(log, face, ndjson, [], Math.max(afterNativeSeq, face.preambleSeq)), options);
}

/**
 * A stretch's plain stream replayed from its start, the events after `afterSequence` only (-1: all of
 * them), then live ones while the stretch is open. 204 when it has ended and there is nothing after.
 */
export function streamPlainStretch(
  log: RunLog,
  context: ResponseContext,
  stretch: Stretch,
  afterSequence: number,
  accept: string | undefined,
  options: StreamLogOptions = {},
): Response {
  const ndjson = accept?.includes(NDJSON_CONTENT_TYPE) ?? false;
  const face = plainFace(log, context, ndjson);
  const through = stretch.endSeq ?? log.lastSeq;
  let text = '';
  const frames: (LogFrame | null | undefined)[] = face.preambleSeq >= stretch.startSeq ? [face.preamble] : [];
  for (let seq = Math.max(stretch.startSeq, face.preambleSeq + 1); seq <= through; seq += 1)
    frames.push(face.frameAt(seq));
  for (const frame of frames) {
    if (frame === null || frame === undefined) continue;
    for (const event of eventsOf(frame, ndjson)) if (event.sequence > afterSequence) text += event.text;
  }
  const headers = options.headers ?? {};
  if (stretch.endSeq !== null) {
    if (text === '') return new Response(null, { status: 204, headers });
    return new Response((ndjson ? '' : `retry: 1000\n\n`) + text, {
      status: 200,
      headers: {
        'content-type': ndjson ? NDJSON_CONTENT_TYPE : `${SSE_CONTENT_TYPE}; charset=utf-8`,
        'cache-control': 'no-cache, no-transform',
        'x-runstream-run-id': log.runId,
        ...headers,
      },
    });
  }
  return streamLog(planOf(log, face, ndjson, text === '' ? [] : [encodeUtf8(text)], through), options);
}
