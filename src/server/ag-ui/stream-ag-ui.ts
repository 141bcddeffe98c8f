import { SSE_CONTENT_TYPE } from '../../protocol/index.ts';
import type { LogFace, LogFrame, RunLog } from '../../runtime/index.ts';
import { encodeUtf8 } from '../encode-utf8.ts';
import { endsStream, SSE_HEARTBEAT, SSE_PRELUDE, type StreamLogOptions, streamLog } from '../stream-run.ts';
import {
  type AgUiFaceMapper,
  type AgUiStreamContext,
  agUiLogFace,
  agUiStreamFace,
  encodeAgUiEvents,
  runStartedEvent,
  terminalEvents,
} from './ag-ui-log-face.ts';

const CONTENT_TYPE = `${SSE_CONTENT_TYPE}; charset=utf-8`;
const decoder = new TextDecoder();

function textOf(frame: LogFrame): string {
  return typeof frame === 'string' ? frame : decoder.decode(frame);
}

/**
 * What a reader starting after `afterSeq` is written first: `RUN_STARTED`, and when the face began
 * from a snapshot after that seq (the log no longer held the run's start), the whole message as it
 * stood; then the seq the face's frames continue from.
 */
function beginning(
  log: RunLog,
  face: LogFace<AgUiFaceMapper>,
  afterSeq: number,
  context: AgUiStreamContext,
): { text: string; afterSeq: number; ended: boolean } {
  let text = encodeAgUiEvents([runStartedEvent(log, context)], undefined);
  if (afterSeq >= face.preambleSeq) return { text, afterSeq, ended: false };
  if (face.preamble !== null) text += textOf(face.preamble);
  const terminal = face.mapper.events.terminalAt(face.preambleSeq);
  if (terminal !== undefined) text += encodeAgUiEvents(terminalEvents(terminal, context), face.preambleSeq);
  return { text, afterSeq: face.preambleSeq, ended: terminal !== undefined };
}

/** A whole AG-UI run known up front (it ended already): one body, no subscription. */
function finished(log: RunLog, text: string, options: StreamLogOptions): Response {
  return new Response(`retry: 1000\n\n${text}`, {
    status: 200,
    headers: {
      'content-type': CONTENT_TYPE,
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
      'x-runstream-run-id': log.runId,
      'x-content-type-options': 'nosniff',
      ...options.headers,
    },
  });
}

/**
 * One AG-UI run of a native run, as `@ag-ui/client`'s `HttpAgent` reads it: `RUN_STARTED` with the
 * client's ids, the face's frames of the native events after `afterSeq`, live ones as they come,
 * and, where the stretch ends (the run pauses or finishes), the state snapshot and `RUN_FINISHED` or
 * `RUN_ERROR`. Closing the connection only unsubscribes: the run goes on.
 */
export function streamAgUi(
  log: RunLog,
  afterSeq: number,
  context: AgUiStreamContext,
  options: StreamLogOptions = {},
): Response {
  const face = agUiLogFace(log);
  const streamFace = agUiStreamFace(face, context);
  const begin = beginning(log, face, afterSeq, context);
  if (begin.ended) return finished(log, begin.text, options);
  if (endsStream(log) && begin.afterSeq >= log.lastSeq) {
    // Nothing new will come (a race a caller lost): an AG-UI run that ends as the native one stands.
    const terminal = face.mapper.events.terminalAt(log.lastSeq);
    const end =
      terminal === undefined ? '' : encodeAgUiEvents(terminalEvents(terminal, context), log.lastSeq);
    return finished(log, begin.text + end, options);
  }
  return streamLog(
    {
      log,
      face: streamFace,
      head: [SSE_PRELUDE, encodeUtf8(begin.text)],
      afterSeq: begin.afterSeq,
      contentType: CONTENT_TYPE,
      end: null,
      heartbeat: SSE_HEARTBEAT,
    },
    options,
  );
}

/**
 * A reconnect (`GET /v1/ag-ui/runs/{id}/events`): the rest of the AG-UI run the reader was in, from
 * `Last-Event-ID`, or the latest AG-UI run of the native run from its start. An AG-UI run that has
 * ended is written whole at once; a live one is followed. 204 when the reader has everything and the
 * run waits or has ended.
 */
export function reconnectAgUi(
  log: RunLog,
  lastEventId: number | undefined,
  context: AgUiStreamContext,
  options: StreamLogOptions = {},
): Response {
  const face = agUiLogFace(log);
  const { endings } = face.mapper.events;
  const after = Math.min(lastEventId ?? latestStretchStart(log, endings), log.lastSeq);
  const end = endings.find((seq) => seq > after);
  if (end === undefined) {
    if (endsStream(log))
      return new Response(null, { status: 204, ...(options.headers ? { headers: options.headers } : {}) });
    return streamAgUi(log, after, context, options);
  }
  const streamFace = agUiStreamFace(face, context);
  const begin = beginning(log, face, after, context);
  let text = begin.text;
  if (!begin.ended)
    for (let seq = begin.afterSeq + 1; seq <= end; seq += 1) {
      const frame = streamFace.frameAt(seq);
      if (frame !== null && frame !== undefined) text += textOf(frame);
    }
  return finished(log, text, options);
}

/** Where the latest AG-UI run of a native run began: after the stretch end before it, or at 0. */
function latestStretchStart(log: RunLog, endings: readonly number[]): number {
  const before = endsStream(log) ? log.lastSeq : log.lastSeq + 1;
  let start = 0;
  for (const seq of endings) if (seq < before) start = seq;
  return start;
}
