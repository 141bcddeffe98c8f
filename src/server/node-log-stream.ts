import type { ServerResponse } from 'node:http';
import { LogCursor, type LogStreamPlan } from './log-cursor.ts';

/** Events a reader may fall behind by before it is dropped (it resumes with Last-Event-ID). */
export const MAX_LAG_EVENTS = 10_000;

/** The header that tells @hono/node-server the handler wrote the response itself. */
const ALREADY_SENT = 'x-hono-already-sent';

export interface NodeLogStreamOptions {
  heartbeatMs: number;
  headers: Record<string, string>;
}

/**
 * A log stream written straight into Node's `ServerResponse`, past the Web Streams machinery: that
 * machinery (a ReadableStream, its reader loop and a promise per chunk) costs more memory per open
 * stream than the socket itself, and a follower should cost little more than its socket.
 *
 * A stream is a position in the log (`LogCursor`), not a queue: the frames it has yet to write stay
 * in the log, encoded once for every reader. Back-pressure is the socket's: a write that fills its
 * buffer stops the stream until `drain`, and a reader more than `MAX_LAG_EVENTS` behind, or behind
 * what the log still holds, is dropped (it resumes with Last-Event-ID). Whatever arrived in one turn
 * of the event loop goes out in one write.
 */
export function writeLogToNode(
  outgoing: ServerResponse,
  plan: LogStreamPlan,
  options: NodeLogStreamOptions,
): Response {
  const { log } = plan;
  outgoing.writeHead(200, {
    'content-type': plan.contentType,
    'cache-control': 'no-cache, no-transform',
    'x-accel-buffering': 'no',
    'x-runstream-run-id': log.runId,
    // Written straight to Node, past the app's middleware that adds it to every other response.
    'x-content-type-options': 'nosniff',
    ...options.headers,
  });
  const cursor = new LogCursor(plan);
  let closed = false;
  let blocked = false;
  let unsubscribe: () => void = () => {};

  const cleanup = () => {
    closed = true;
    unsubscribe();
    heartbeats(options.heartbeatMs).delete(beat);
    scheduledPumps.delete(pump);
    outgoing.off('close', cleanup);
    outgoing.off('drain', onDrain);
  };
  const drop = () => {
    // Too far behind: drop the reader rather than hold anything for it; it resumes from its last id.
    cleanup();
    outgoing.destroy();
  };
  const pump = () => {
    if (closed || blocked) return;
    for (let bytes = cursor.next(); bytes !== null; bytes = cursor.next()) {
      if (!outgoing.write(bytes)) {
        blocked = true;
        outgoing.once('drain', onDrain);
        return;
      }
    }
    if (cursor.lost) drop();
    else if (cursor.ended) {
      cleanup();
      if (plan.end !== null) outgoing.end(plan.end);
      else outgoing.end();
    }
  };
  function onDrain() {
    blocked = false;
    pump();
  }
  const beat = () => {
    if (!closed && !blocked && cursor.caughtUp) outgoing.write(plan.heartbeat);
  };

  outgoing.on('close', cleanup);
  // Node corks a response's socket for the rest of the tick on its first write: the headers, the
  // head and whatever the first pump writes leave together, at once, without waiting for a turn.
  for (const bytes of plan.head) outgoing.write(bytes);
  if (!cursor.ended) {
    unsubscribe = log.subscribe(
      () => {
        if (closed) return;
        if (cursor.lag > MAX_LAG_EVENTS) drop();
        else schedulePump(pump);
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
  }
  pump();
  // Node corks the socket at a response's first write until the tick ends; a run started by this
  // request keeps working in microtasks until its first yield, which would hold the first event
  // back that long. The headers, the head and what the log holds go out now.
  const socket = outgoing.socket;
  if (socket !== null && socket.writableCorked > 0) socket.uncork();
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
  setImmediate(runPumps);
}

function runPumps(): void {
  pumpsScheduled = false;
  const pumps = [...scheduledPumps];
  scheduledPumps.clear();
  for (const pump of pumps) pump();
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
