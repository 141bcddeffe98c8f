import type { ServerResponse } from 'node:http';
import {
  encodeRunEventNdjson,
  encodeRunEventSse,
  NDJSON_CONTENT_TYPE,
  type RunEvent,
  SSE_CONTENT_TYPE,
} from '../protocol/index.ts';
import type { RunLog } from '../runtime/index.ts';
import { writeLogToNode } from './node-log-stream.ts';

export const HEARTBEAT_MS = 15_000;
export const RETRY_MS = 1_000;
/** Frames a stream queues ahead of a slow reader before it waits for the socket to drain. */
const HIGH_WATER_FRAMES = 64;

const encoder = new TextEncoder();
/**
 * Each event is encoded once, whoever reads it and however often it is replayed: serialising costs
 * about as much as writing (PERF-NOTES), so it must not be paid per subscriber.
 */
const sseBytes = new WeakMap<object, Uint8Array>();
const ndjsonBytes = new WeakMap<object, Uint8Array>();

function bytesOf(event: RunEvent, ndjson: boolean): Uint8Array {
  const cache = ndjson ? ndjsonBytes : sseBytes;
  let bytes = cache.get(event);
  if (bytes === undefined) {
    bytes = encoder.encode(ndjson ? encodeRunEventNdjson(event) : encodeRunEventSse(event));
    cache.set(event, bytes);
  }
  return bytes;
}

export interface StreamLogOptions {
  heartbeatMs?: number;
  headers?: Record<string, string>;
  /**
   * Live events up to this seq are not sent: this instance's copy of a run can lag behind what
   * the reader already got from another instance (its Last-Event-ID). Default: the replay's last.
   */
  skipThroughSeq?: number;
  /**
   * The Node response when the server runs on Node (`@hono/node-server` passes it as
   * `context.env.outgoing`): the stream is then written into it directly (`writeLogToNode`).
   */
  outgoing?: ServerResponse;
}

/** How a log stream writes its frames: the protocol's own encoders, or another face's (Responses). */
export interface LogStreamEncoding {
  contentType: string;
  /** Bytes before the first event, e.g. the SSE `retry:` frame. */
  prelude?: Uint8Array;
  /** The bytes of one event; `null` when it has none on this face. */
  encode(event: RunEvent): Uint8Array | null;
  /** The bytes that end a stream normally (the protocol's `done`), if any. */
  end?(): Uint8Array | null;
  /** An idle-time keep-alive that readers ignore. */
  heartbeat: Uint8Array;
}

/**
 * A streaming response of a run's events after `afterSeq`: the replay (or a snapshot when the log
 * no longer holds it), then live events, then `done` when the run finishes or pauses. SSE by
 * default (a `retry:` frame first), NDJSON when asked. 204 for a run that has ended and is caught up,
 * so a native EventSource stops reconnecting.
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
  const replay = log.since(afterSeq);
  return streamLog(
    log,
    'snapshot' in replay ? [replay.snapshot, ...replay.events] : replay.events,
    {
      contentType: ndjson ? NDJSON_CONTENT_TYPE : `${SSE_CONTENT_TYPE}; charset=utf-8`,
      ...(ndjson ? {} : { prelude: encoder.encode(`retry: ${RETRY_MS}\n\n`) }),
      encode: (event) => bytesOf(event, ndjson),
      end: () => bytesOf({ type: 'done', runId: log.runId, at: Date.now() }, ndjson),
      heartbeat: encoder.encode(ndjson ? '\n' : ': ping\n\n'),
    },
    { ...options, skipThroughSeq: afterSeq },
  );
}

/**
 * The streaming body shared by every face: `replay`, then the log's live events, ending when the run
 * finishes or pauses. The stream is pulled: frames are encoded into the socket only as fast as the
 * reader takes them, and a slow reader costs a queue of event references, not copies. Closing the
 * connection only unsubscribes: the run goes on.
 */
export function streamLog(
  log: RunLog,
  replay: readonly RunEvent[],
  encoding: LogStreamEncoding,
  options: StreamLogOptions = {},
): Response {
  const lastReplayed = replay.reduce((last, event) => ('seq' in event ? Math.max(last, event.seq) : last), 0);
  const skipThrough = Math.max(options.skipThroughSeq ?? 0, lastReplayed);
  if (options.outgoing !== undefined && !options.outgoing.headersSent)
    return writeLogToNode(options.outgoing, log, replay, encoding, {
      heartbeatMs: options.heartbeatMs ?? HEARTBEAT_MS,
      headers: options.headers ?? {},
      skipThrough,
    });
  const queue: RunEvent[] = [...replay];
  let ending = false;
  let closed = false;
  let cleanup: () => void = () => {};
  /** Move queued frames into the stream while the reader has room; set once the stream starts. */
  let pump: () => void = () => {};
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        if (encoding.prelude) controller.enqueue(encoding.prelude);
        pump = () => {
          while (!closed && queue.length > 0 && (controller.desiredSize ?? 0) > 0) {
            const bytes = encoding.encode(queue.shift() as RunEvent);
            if (bytes !== null && bytes.length > 0) controller.enqueue(bytes);
          }
          if (!closed && ending && queue.length === 0) {
            closed = true;
            const end = encoding.end?.();
            if (end) controller.enqueue(end);
            cleanup();
            controller.close();
          }
        };
        if (endsStream(log)) {
          ending = true;
          pump();
          return;
        }
        const unsubscribe = log.subscribe(
          (event) => {
            if (closed || event.seq <= skipThrough) return;
            queue.push(event);
            if (event.type === 'run.finished' || event.type === 'run.paused') ending = true;
            pump();
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
          if (!closed && queue.length === 0) controller.enqueue(encoding.heartbeat);
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
        queue.length = 0;
        cleanup();
      },
    },
    new CountQueuingStrategy({ highWaterMark: HIGH_WATER_FRAMES }),
  );
  return new Response(body, {
    status: 200,
    headers: {
      'content-type': encoding.contentType,
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
      'x-runstream-run-id': log.runId,
      ...options.headers,
    },
  });
}

/** A run stream ends when the run finishes or pauses: nothing more comes until a decision. */
export function endsStream(log: RunLog): boolean {
  return log.finished || log.state.status === 'paused';
}
