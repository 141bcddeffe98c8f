import type { ServerResponse } from 'node:http';
import {
  encodeRunEventNdjson,
  encodeRunEventSse,
  NDJSON_CONTENT_TYPE,
  type RunEvent,
  SSE_CONTENT_TYPE,
} from '../protocol/index.ts';
import type { LogFaceDefinition, LogFaceMapper, RunLog } from '../runtime/index.ts';
import { encodeUtf8 } from './encode-utf8.ts';
import { LogCursor, type LogStreamPlan } from './log-cursor.ts';
import { writeLogToNode } from './node-log-stream.ts';
import { nodeResponseOf } from './node-response-of.ts';

export const HEARTBEAT_MS = 15_000;
export const RETRY_MS = 1_000;
/** Frames a Web stream queues ahead of a slow reader before it waits for the reader to pull. */
const HIGH_WATER_FRAMES = 64;

/**
 * The protocol's own faces: an event's frame is its JSON alone, so frames are made when read, not
 * kept beside each event; the readers at one position (every live follower of a run) share one
 * encoding of what they write. Serialising costs about as much as writing (PERF-NOTES): it is paid
 * once per event for them all, not per subscriber.
 */
const SSE_MAPPER: LogFaceMapper = { map: encodeRunEventSse };
const NDJSON_MAPPER: LogFaceMapper = { map: encodeRunEventNdjson };
export const SSE_FACE: LogFaceDefinition<LogFaceMapper> = {
  key: 'sse',
  create: () => SSE_MAPPER,
  onRead: true,
};
export const NDJSON_FACE: LogFaceDefinition<LogFaceMapper> = {
  key: 'ndjson',
  create: () => NDJSON_MAPPER,
  onRead: true,
};

export const SSE_PRELUDE = encodeUtf8(`retry: ${RETRY_MS}\n\n`);
export const SSE_HEARTBEAT = encodeUtf8(': ping\n\n');
export const NDJSON_HEARTBEAT = encodeUtf8('\n');

export interface StreamLogOptions {
  heartbeatMs?: number;
  headers?: Record<string, string>;
  /**
   * The Node response when the server runs on Node (`@hono/node-server` passes it as
   * `context.env.outgoing`): the stream is then written into it directly (`writeLogToNode`).
   */
  outgoing?: ServerResponse;
}

/**
 * A streaming response of a run's events after `afterSeq`: the replay (or a snapshot when the log
 * no longer holds it), then live events, then `done` when the run finishes or pauses. SSE by
 * default (a `retry:` frame first), NDJSON when asked. 204 for a run that has ended and is caught up,
 * so a native EventSource stops reconnecting.
 *
 * `afterSeq` may be ahead of this instance's copy of the run (the reader got more from another
 * instance): its events up to there are not sent again.
 */
export function streamRun(
  log: RunLog,
  afterSeq: number,
  accept: string | undefined,
  options: StreamLogOptions = {},
): Response {
  const ndjson = accept?.includes(NDJSON_CONTENT_TYPE) ?? false;
  if (endsStream(log) && afterSeq >= log.lastSeq)
    return new Response(null, { status: 204, ...(options.headers ? { headers: options.headers } : {}) });
  const face = log.face(ndjson ? NDJSON_FACE : SSE_FACE);
  const head: Uint8Array[] = ndjson ? [] : [SSE_PRELUDE];
  let after = afterSeq;
  if (afterSeq + 1 < log.oldestSeq && afterSeq < log.lastSeq) {
    // The log no longer holds the next event: the whole message as of now, then what follows.
    const snapshot = log.snapshot();
    head.push(encodeUtf8(ndjson ? encodeRunEventNdjson(snapshot) : encodeRunEventSse(snapshot)));
    after = snapshot.seq;
  }
  const done: RunEvent = { type: 'done', runId: log.runId, at: Date.now() };
  return streamLog(
    {
      log,
      face,
      head,
      afterSeq: after,
      contentType: ndjson ? NDJSON_CONTENT_TYPE : `${SSE_CONTENT_TYPE}; charset=utf-8`,
      end: encodeUtf8(ndjson ? encodeRunEventNdjson(done) : encodeRunEventSse(done)),
      heartbeat: ndjson ? NDJSON_HEARTBEAT : SSE_HEARTBEAT,
    },
    options,
  );
}

/**
 * The streaming body shared by every face: the plan's head, then the face's frames of the log's
 * events after the plan's seq, live ones as they come, ending when the run finishes or pauses.
 * Frames are written only as fast as the reader takes them, and a slow reader costs a position in
 * the log, not copies. Closing the connection only unsubscribes: the run goes on.
 */
export function streamLog(plan: LogStreamPlan, options: StreamLogOptions = {}): Response {
  if (options.outgoing !== undefined && !options.outgoing.headersSent)
    return writeLogToNode(options.outgoing, plan, {
      heartbeatMs: options.heartbeatMs ?? HEARTBEAT_MS,
      headers: options.headers ?? {},
    });
  const { log } = plan;
  const cursor = new LogCursor(plan);
  let closed = false;
  let cleanup: () => void = () => {};
  /** Move frames into the stream while the reader has room; set once the stream starts. */
  let pump: () => void = () => {};
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        for (const bytes of plan.head) controller.enqueue(bytes);
        pump = () => {
          while (!closed && (controller.desiredSize ?? 0) > 0) {
            const bytes = cursor.next();
            if (bytes === null) break;
            controller.enqueue(bytes);
          }
          if (closed) return;
          if (cursor.lost) {
            // Too far behind what the log holds: end without `done`; the reader resumes.
            closed = true;
            cleanup();
            controller.close();
          } else if (cursor.ended) {
            closed = true;
            if (plan.end !== null) controller.enqueue(plan.end);
            cleanup();
            controller.close();
          }
        };
        if (cursor.ended) {
          pump();
          return;
        }
        const unsubscribe = log.subscribe(
          () => {
            if (!closed) pump();
          },
          () => {
            // This instance's copy of the log lost track of the shared one: end without `done`, so
            // the reader reconnects with Last-Event-ID and gets the fresh copy (a snapshot if need be).
            if (closed) return;
            closed = true;
            cleanup();
            controller.close();
          },
        );
        // Comments keep proxies from timing out an idle stream; readers ignore them.
        const heartbeat = setInterval(() => {
          if (!closed && cursor.caughtUp) controller.enqueue(plan.heartbeat);
        }, options.heartbeatMs ?? HEARTBEAT_MS);
        cleanup = () => {
          clearInterval(heartbeat);
          unsubscribe();
        };
        pump();
      },
      pull() {
        pump();
      },
      cancel() {
        // The client went away (a disconnect, not a stop): stop writing, leave the run alone.
        closed = true;
        cleanup();
      },
    },
    new CountQueuingStrategy({ highWaterMark: HIGH_WATER_FRAMES }),
  );
  return new Response(body, {
    status: 200,
    headers: {
      'content-type': plan.contentType,
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
      'x-runstream-run-id': log.runId,
      'x-content-type-options': 'nosniff',
      ...options.headers,
    },
  });
}

/** A run stream ends when the run finishes or pauses: nothing more comes until a decision. */
export function endsStream(log: RunLog): boolean {
  return log.finished || log.paused;
}

/**
 * How a run stream is written for this request, on every face: the heartbeat interval, the request's
 * trace id (the middleware that echoes it runs after a stream written straight to Node has sent its
 * headers), and Node's response when the server runs on Node.
 */
export function streamLogOptionsOf(
  context: { env: unknown; get(key: 'traceId'): string },
  heartbeatMs: number | undefined,
): StreamLogOptions {
  const outgoing = nodeResponseOf(context);
  return {
    ...(heartbeatMs === undefined ? {} : { heartbeatMs }),
    headers: { 'x-request-id': context.get('traceId') },
    ...(outgoing !== undefined ? { outgoing } : {}),
  };
}
