import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createMessageState,
  encodeRunEventNdjson,
  encodeRunEventSse,
  type LoggedRunEvent,
  type RunEventDraft,
  reduceAll,
  toMessage,
  wireError,
} from '../../protocol/index.ts';

/**
 * A real `node:http` server for client tests. It plays a scripted run into an append-only log at a
 * steady pace, whatever connections come and go (runs outlive connections), and serves that log the
 * way the brief specifies: SSE or NDJSON, replay after `Last-Event-ID`, 204 for a finished run that
 * is caught up, explicit cancel. Faults (a socket cut mid-frame, 429s, a snapshot-only log) are
 * injected per test.
 */
export interface RunLogServerOptions {
  token: string;
  /** The run the next POST starts. Its events get runId/seq from the server. */
  script: () => RunEventDraft[];
  /** Milliseconds between two scripted events. */
  intervalMs?: number;
  /** Per stream-connection number (1-based): after how many events to cut the socket mid-frame. */
  cutAfter?: Record<number, number>;
  /** Per connection number: answer with this status instead of streaming. */
  failWith?: Record<number, { status: number; retryAfter?: string; code?: string }>;
  /** Per connection number: accept the request and never answer (not even headers). */
  stall?: Record<number, true>;
  /** Per connection number: after how many events to send a frame whose data is not JSON. */
  corruptAfter?: Record<number, number>;
  /** Write every event available at once in one chunk, as a busy server or a proxy does. */
  coalesce?: boolean;
  /** Replays cannot go back further than this seq: older resumes get a `run.snapshot` first. */
  retainFromSeq?: number;
  retryMs?: number;
}

export interface ServerRecord {
  /**
   * How each stream connection ended: `done`, `cut` (by the server, mid-frame), `status` (an HTTP
   * error or 204), `disconnect` (the client closed it first), or still `open`.
   */
  connections: {
    number: number;
    lastEventId: string | undefined;
    ended: 'open' | 'done' | 'cut' | 'disconnect' | 'status';
  }[];
  cancels: { runId: string; reason: string }[];
}

interface RunLog {
  runId: string;
  events: LoggedRunEvent[];
  finished: boolean;
  listeners: Set<() => void>;
  timer: ReturnType<typeof setInterval> | undefined;
}

export interface RunLogServer {
  url: string;
  /** The live options: tests may change fault injection between requests. */
  options: RunLogServerOptions;
  record: ServerRecord;
  runs: Map<string, RunLog>;
  close(): Promise<void>;
}

export async function startRunLogServer(options: RunLogServerOptions): Promise<RunLogServer> {
  const runs = new Map<string, RunLog>();
  const record: ServerRecord = { connections: [], cancels: [] };
  let connectionCount = 0;
  let runCount = 0;

  const append = (run: RunLog, event: RunEventDraft) => {
    const logged = {
      ...event,
      runId: run.runId,
      seq: run.events.length + 1,
      at: Date.now(),
    } as LoggedRunEvent;
    run.events.push(logged);
    if (logged.type === 'run.finished' || logged.type === 'run.paused') run.finished = true;
    for (const listener of run.listeners) listener();
  };

  const startRun = (): RunLog => {
    runCount += 1;
    const run: RunLog = {
      runId: `run_${runCount}`,
      events: [],
      finished: false,
      listeners: new Set(),
      timer: undefined,
    };
    runs.set(run.runId, run);
    const script = options.script();
    let next = 0;
    run.timer = setInterval(() => {
      const event = script[next];
      next += 1;
      if (event === undefined || run.finished) {
        clearInterval(run.timer);
        return;
      }
      append(run, event);
    }, options.intervalMs ?? 2);
    return run;
  };

  const stream = async (request: IncomingMessage, response: ServerResponse, run: RunLog, after: number) => {
    connectionCount += 1;
    const number = connectionCount;
    const lastEventId = header(request, 'last-event-id');
    const entry: ServerRecord['connections'][number] = { number, lastEventId, ended: 'open' };
    record.connections.push(entry);
    // Registered before anything is written, so a client that leaves early is still seen leaving.
    response.on('close', () => {
      if (entry.ended === 'open') entry.ended = 'disconnect';
    });
    if (options.stall?.[number]) return;
    const failure = options.failWith?.[number];
    if (failure) {
      entry.ended = 'status';
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (failure.retryAfter !== undefined) headers['retry-after'] = failure.retryAfter;
      response.writeHead(failure.status, headers);
      response.end(JSON.stringify(wireError(failure.code ?? `status_${failure.status}`, 'injected failure')));
      return;
    }
    if (run.finished && after >= run.events.length) {
      entry.ended = 'status';
      response.writeHead(204).end();
      return;
    }
    const ndjson = header(request, 'accept')?.includes('application/x-ndjson') ?? false;
    response.writeHead(200, {
      'content-type': ndjson ? 'application/x-ndjson' : 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
      'x-runstream-run-id': run.runId,
    });
    response.flushHeaders();
    let closed = false;
    response.on('close', () => {
      closed = true;
    });
    let position = after;
    let written = 0;
    const encode = (event: LoggedRunEvent, first: boolean) =>
      ndjson
        ? encodeRunEventNdjson(event)
        : encodeRunEventSse(event, first && options.retryMs !== undefined ? { retry: options.retryMs } : {});
    // A resume from before what the log retains gets the state as of the oldest retained event.
    const retainFrom = options.retainFromSeq ?? 1;
    if (position + 1 < retainFrom && run.events.length >= retainFrom - 1) {
      const covered = run.events.slice(0, retainFrom - 1);
      const message = toMessage(reduceAll(createMessageState(), covered));
      const last = covered[covered.length - 1];
      if (last) {
        const snapshot = {
          type: 'run.snapshot',
          runId: run.runId,
          seq: last.seq,
          at: Date.now(),
          message,
        } as const;
        response.write(encode(snapshot, true));
        written += 1;
        position = last.seq;
      }
    }
    while (!closed) {
      let pending = '';
      while (position < run.events.length && !closed) {
        const event = run.events[position] as LoggedRunEvent;
        const frame = encode(event, written === 0);
        if (options.corruptAfter?.[number] === written) {
          response.write(ndjson ? '{"type":"block.delta",\n' : 'event: block.delta\ndata: {"type":\n\n');
        }
        if (options.cutAfter?.[number] === written) {
          // Half a frame, then a dead socket: the client must discard the fragment and resume.
          response.write(halfFrame(frame));
          await new Promise((resolve) => setTimeout(resolve, 5));
          entry.ended = 'cut';
          response.socket?.destroy();
          return;
        }
        if (options.coalesce) pending += frame;
        else response.write(frame);
        written += 1;
        position += 1;
      }
      if (pending.length > 0) response.write(pending);
      if (run.finished && position >= run.events.length) {
        const done = { type: 'done', runId: run.runId, at: Date.now() } as const;
        response.end(ndjson ? `${JSON.stringify(done)}\n` : `event: done\ndata: ${JSON.stringify(done)}\n\n`);
        entry.ended = 'done';
        return;
      }
      await new Promise<void>((resolve) => {
        const wake = () => {
          run.listeners.delete(wake);
          response.off('close', wake);
          resolve();
        };
        run.listeners.add(wake);
        response.once('close', wake);
      });
    }
  };

  const server: Server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      response.destroy(error instanceof Error ? error : new Error(String(error)));
    });
  });

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    let body = '';
    for await (const chunk of request) body += chunk;
    if (header(request, 'authorization') !== `Bearer ${options.token}`) {
      return json(response, 401, wireError('unauthorized', 'missing or invalid bearer token'));
    }
    const parts = url.pathname.split('/').filter(Boolean);
    if (request.method === 'POST' && parts[1] === 'conversations' && parts[3] === 'messages') {
      return stream(request, response, startRun(), 0);
    }
    const run = parts[1] === 'runs' && parts[2] ? runs.get(decodeURIComponent(parts[2])) : undefined;
    if (!run) return json(response, 404, wireError('not_found', 'no such run'));
    if (request.method === 'GET' && parts[3] === 'events') {
      const after = Number(header(request, 'last-event-id') ?? url.searchParams.get('after') ?? 0);
      return stream(request, response, run, Number.isInteger(after) && after >= 0 ? after : 0);
    }
    if (request.method === 'POST' && parts[3] === 'cancel') {
      const reason = (JSON.parse(body || '{}') as { reason?: string }).reason ?? 'user_stop';
      record.cancels.push({ runId: run.runId, reason });
      if (!run.finished) {
        clearInterval(run.timer);
        const state = reduceAll(createMessageState(), run.events);
        // A stop closes every open block, as the protocol requires: text as cancelled, tools too.
        for (const block of state.blocks) {
          if (block.endedAt !== null || block.kind === 'confirm') continue;
          if (block.kind === 'tool') {
            append(run, {
              type: 'block.updated',
              blockId: block.blockId,
              kind: 'tool',
              toolCallId: block.toolCallId,
              status: 'cancelled',
            });
          }
          append(run, {
            type: 'block.ended',
            blockId: block.blockId,
            endedAt: Date.now(),
            durationMs: 0,
            ...(block.kind === 'tool' ? {} : { status: 'cancelled' as const }),
          });
        }
        append(run, { type: 'run.finished', status: 'cancelled', reason });
      }
      const last = run.events[run.events.length - 1];
      const finished = last?.type === 'run.finished' ? last : undefined;
      return json(response, 200, {
        id: run.runId,
        status: finished?.status ?? 'paused',
        cancelReason: finished?.reason ?? reason,
      });
    }
    return json(response, 404, wireError('not_found', 'no such route'));
  };

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    options,
    record,
    runs,
    async close() {
      for (const run of runs.values()) clearInterval(run.timer);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The first half of a frame's bytes, cut inside a multi-byte character when the frame has one. */
function halfFrame(frame: string): Buffer {
  const bytes = Buffer.from(frame, 'utf8');
  let cut = Math.floor(bytes.length / 2);
  // A UTF-8 continuation byte (10xxxxxx) means the cut lands inside a character.
  const inside = bytes.findIndex((byte, index) => index >= cut && (byte & 0xc0) === 0x80);
  if (inside !== -1) cut = inside;
  return bytes.subarray(0, cut);
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}
