import { NDJSON_CONTENT_TYPE, type RunEvent, SSE_CONTENT_TYPE } from '../../protocol/index.ts';
import type { RunLog } from '../../runtime/index.ts';
import { endsStream, RETRY_MS, type StreamLogOptions, streamLog } from '../stream-run.ts';
import type { ResponseContext } from './response-object.ts';
import { ResponsesEventMapper, type ResponsesStreamEvent } from './responses-event-mapper.ts';

const encoder = new TextEncoder();

/** Where a Responses stream starts: after a sequence number (resume), or after a native seq (a resume POST). */
export type ResponseStreamStart = { afterSequence: number } | { afterNativeSeq: number };

/** The whole log from its start, so the mapper numbers events exactly as the first stream did. */
function fullReplay(log: RunLog): RunEvent[] {
  const replay = log.since(0);
  return 'snapshot' in replay ? [replay.snapshot, ...replay.events] : replay.events;
}

function include(start: ResponseStreamStart, native: RunEvent, mapped: ResponsesStreamEvent): boolean {
  if ('afterSequence' in start) return mapped.sequence_number > start.afterSequence;
  return native.type !== 'done' && native.seq > start.afterNativeSeq;
}

/** One Responses event as written on the wire: an SSE frame with `id:` and `event:`, or an NDJSON line. */
export function encodeResponsesEvent(event: ResponsesStreamEvent, ndjson: boolean): string {
  const json = JSON.stringify(event);
  return ndjson ? `${json}\n` : `id: ${event.sequence_number}\nevent: ${event.type}\ndata: ${json}\n\n`;
}

/**
 * A Responses stream of a run: OpenAI-style events named in `event:` lines (SSE, the default) or one
 * JSON object per line (`Accept: application/x-ndjson`), each with its `sequence_number` as the SSE
 * `id`. The log is replayed from its start through a fresh mapper and only the part after `start`
 * is written, so a resumed stream continues the numbering exactly. 204 when the response has ended
 * or waits for the host and there is nothing after `start`.
 */
export function streamResponse(
  log: RunLog,
  context: ResponseContext,
  start: ResponseStreamStart,
  accept: string | undefined,
  options: StreamLogOptions = {},
): Response {
  const ndjson = accept?.includes(NDJSON_CONTENT_TYPE) ?? false;
  const replay = fullReplay(log);
  if (endsStream(log)) {
    // Nothing more will come on this stream: answer 204 when the reader already has everything.
    const dry = new ResponsesEventMapper(context);
    const pending = replay.some((event) =>
      event.type === 'done' ? false : dry.push(event).some((mapped) => include(start, event, mapped)),
    );
    if (!pending)
      return new Response(null, { status: 204, ...(options.headers ? { headers: options.headers } : {}) });
  }
  const mapper = new ResponsesEventMapper(context);
  return streamLog(
    log,
    replay,
    {
      contentType: ndjson ? NDJSON_CONTENT_TYPE : `${SSE_CONTENT_TYPE}; charset=utf-8`,
      ...(ndjson ? {} : { prelude: encoder.encode(`retry: ${RETRY_MS}\n\n`) }),
      encode: (event) => {
        if (event.type === 'done') return null;
        const text = mapper
          .push(event)
          .filter((mapped) => include(start, event, mapped))
          .map((mapped) => encodeResponsesEvent(mapped, ndjson))
          .join('');
        return text === '' ? null : encoder.encode(text);
      },
      heartbeat: encoder.encode(ndjson ? '\n' : ': ping\n\n'),
    },
    options,
  );
}

/** The Response object of a run as it stands: the log folded through the same mapper. */
export function responseObjectOf(log: RunLog, context: ResponseContext) {
  const mapper = new ResponsesEventMapper(context);
  for (const event of fullReplay(log)) if (event.type !== 'done') mapper.push(event);
  return mapper.response();
}
