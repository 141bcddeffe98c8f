import type { ServerResponse } from 'node:http';
import type { LoggedRunEvent, RunEvent } from '../protocol/index.ts';
import type { RunLog } from '../runtime/index.ts';
import type { LogStreamEncoding } from './stream-run.ts';

/** Frames a reader may fall behind by before it is dropped (it resumes with Last-Event-ID). */
export const MAX_QUEUED_FRAMES = 10_000;

/** The header that tells @hono/node-server the handler wrote the response itself. */
const ALREADY_SENT = 'x-hono-already-sent';

export interface NodeLogStreamOptions {
  heartbeatMs: number;
  headers: Record<string, string>;
  /** Live events up to this seq are not sent (see `streamLog`). */
  skipThrough: number;
}

/**
 * `streamLog` written straight into Node's `ServerResponse`, past the Web Streams machinery: that
 * machinery (a ReadableStream, its reader loop and a promise per chunk) costs more memory per open
 * stream than the socket itself, and a follower should cost little more than its socket.
 * Back-pressure is the socket's: a write that fills its buffer stops the pump until `drain`, events
 * queue as references, and a reader more than `MAX_QUEUED_FRAMES` behind is dropped (it resumes).
 * Events of one turn of the event loop go out corked, in one write.
 */
export function writeLogToNode(
  outgoing: ServerResponse,
  log: RunLog,
  replay: readonly RunEvent[],
  encoding: LogStreamEncoding,
  options: NodeLogStreamOptions,
): Response {
  outgoing.writeHead(200, {
    'content-type': encoding.contentType,
    'cache-control': 'no-cache, no-transform',
    'x-accel-buffering': 'no',
    'x-runstream-run-id': log.runId,
    ...options.headers,
  });
  const queue: RunEvent[] = [...replay];
  let head = 0;
  let closed = false;
  let ending = false;
  let blocked = false;
  let unsubscribe: () => void = () => {};

  const cleanup = () => {
    closed = true;
    queue.length = 0;
    head = 0;
    unsubscribe();
    heartbeats(options.heartbeatMs).delete(beat);
    scheduledPumps.delete(pump);
    outgoing.off('close', cleanup);
    outgoing.off('drain', onDrain);
  };
  const finish = () => {
    const end = encoding.end?.();
    if (end) outgoing.write(end);
    cleanup();
    outgoing.end();
  };
  const pump = () => {
    if (closed || blocked) return;
    if (head < queue.length) {
      // Several frames go out in one write; a single one needs no cork (it would only cost a writev).
      const corked = queue.length - head > 1;
      if (corked) outgoing.cork();
      while (head < queue.length) {
        const bytes = encoding.encode(queue[head] as RunEvent);
        head += 1;
        if (bytes !== null && bytes.length > 0 && !outgoing.write(bytes)) {
          blocked = true;
          break;
        }
      }
      if (corked) outgoing.uncork();
      if (head >= queue.length) {
        queue.length = 0;
        head = 0;
      }
    }
    if (blocked) {
      outgoing.once('drain', onDrain);
      return;
    }
    if (ending && head >= queue.length) finish();
  };
  function onDrain() {
    blocked = false;
    pump();
  }
  const beat = () => {
    if (!closed && !blocked && head >= queue.length) outgoing.write(encoding.heartbeat);
  };

  outgoing.on('close', cleanup);
  if (encoding.prelude) outgoing.write(encoding.prelude);
  if (log.finished || log.paused) {
    ending = true;
    pump();
  } else {
    unsubscribe = log.subscribe(
      (event: LoggedRunEvent) => {
        if (closed || event.seq <= options.skipThrough) return;
        queue.push(event);
        if (event.type === 'run.finished' || event.type === 'run.paused') ending = true;
        if (queue.length - head > MAX_QUEUED_FRAMES) {
          // Too far behind: drop the reader rather than hold an unbounded queue for it.
          cleanup();
          outgoing.destroy();
          return;
        }
        schedulePump(pump);
      },
      () => {
        // This instance's copy of the log lost track of the shared one: end without `done`, so the
        // reader reconnects with Last-Event-ID and gets the fresh copy.
        if (closed) return;
        cleanup();
        outgoing.end();
      },
    );
    heartbeats(options.heartbeatMs).add(beat);
    pump();
  }
  return new Response(null, { headers: { [ALREADY_SENT]: 'true' } });
}

/**
 * The streams with frames to write, pumped together once per turn of the event loop: events of one
 * turn leave in one write per socket, at the cost of one Immediate per turn for every stream, not
 * one per stream per event (with a thousand followers, that garbage is what grows the heap).
 */
const scheduledPumps = new Set<() => void>();
let pumpsScheduled = false;

function schedulePump(pump: () => void): void {
  scheduledPumps.add(pump);
  if (pumpsScheduled) return;
  pumpsScheduled = true;
  setImmediate(() => {
    pumpsScheduled = false;
    const pumps = [...scheduledPumps];
    scheduledPumps.clear();
    for (const run of pumps) run();
  });
}

/** One timer per heartbeat interval for every open stream, not one per stream. */
const tickers = new Map<number, { beats: Set<() => void>; timer: ReturnType<typeof setInterval> }>();

function heartbeats(intervalMs: number): Set<() => void> {
  let ticker = tickers.get(intervalMs);
  if (ticker === undefined) {
    const beats = new Set<() => void>();
    const timer = setInterval(() => {
      for (const beat of beats) beat();
      if (beats.size === 0) {
        clearInterval(timer);
        tickers.delete(intervalMs);
      }
    }, intervalMs);
    timer.unref?.();
    ticker = { beats, timer };
    tickers.set(intervalMs, ticker);
  }
  return ticker.beats;
}
