import {
  encodeRunEventNdjson,
  encodeRunEventSse,
  type LoggedRunEvent,
  NDJSON_CONTENT_TYPE,
  type RunEvent,
  SSE_CONTENT_TYPE,
} from '../protocol/index.ts';
import type { RunLog } from '../runtime/index.ts';

export const HEARTBEAT_MS = 15_000;
export const RETRY_MS = 1_000;

/** A run stream ends when the run finishes or pauses: nothing more comes until a decision. */
function endsStream(log: RunLog): boolean {
  return log.finished || log.state.status === 'paused';
}

/**
 * A streaming response of a run's events after `afterSeq`: the replay (or a snapshot when the log
 * no longer holds it), then live events, then `done` when the run finishes or pauses. SSE by
 * default, NDJSON when asked. 204 for a run that has ended and is caught up, so a native EventSource
 * stops reconnecting. Closing the connection only unsubscribes: the run goes on.
 */
export function streamRun(
  log: RunLog,
  afterSeq: number,
  accept: string | undefined,
  options: { heartbeatMs?: number } = {},
): Response {
  const ndjson = accept?.includes(NDJSON_CONTENT_TYPE) ?? false;
  if (endsStream(log) && afterSeq >= log.lastSeq) return new Response(null, { status: 204 });
  const encoder = new TextEncoder();
  let first = true;
  const encode = (event: RunEvent) => {
    const text = ndjson
      ? encodeRunEventNdjson(event)
      : encodeRunEventSse(event, first ? { retry: RETRY_MS } : {});
    first = false;
    return encoder.encode(text);
  };
  let cleanup: () => void = () => {};
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      let closed = false;
      const finish = () => {
        if (closed) return;
        closed = true;
        controller.enqueue(encode({ type: 'done', runId: log.runId, at: Date.now() }));
        cleanup();
        controller.close();
      };
      const replay = log.since(afterSeq);
      if ('snapshot' in replay) controller.enqueue(encode(replay.snapshot));
      for (const event of replay.events) controller.enqueue(encode(event));
      if (endsStream(log)) {
        finish();
        return;
      }
      const unsubscribe = log.subscribe((event: LoggedRunEvent) => {
        if (closed) return;
        controller.enqueue(encode(event));
        if (event.type === 'run.finished' || event.type === 'run.paused') finish();
      });
      // Comments keep proxies from timing out an idle stream; readers ignore them.
      const heartbeat = setInterval(() => {
        if (!closed) controller.enqueue(encoder.encode(ndjson ? '\n' : ': ping\n\n'));
      }, options.heartbeatMs ?? HEARTBEAT_MS);
      cleanup = () => {
        clearInterval(heartbeat);
        unsubscribe();
      };
    },
    cancel() {
      // The client went away (a disconnect, not a stop): stop writing, leave the run alone.
      cleanup();
    },
  });
  return new Response(body, {
    status: 200,
    headers: {
      'content-type': ndjson ? NDJSON_CONTENT_TYPE : `${SSE_CONTENT_TYPE}; charset=utf-8`,
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
      'x-runstream-run-id': log.runId,
    },
  });
}
