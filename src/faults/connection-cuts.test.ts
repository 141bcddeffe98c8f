import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createMessageState,
  createRunEventDecoderStream,
  type LoggedRunEvent,
  type Message,
  type RunEvent,
  reduceAll,
  toMessage,
  type WireFormat,
} from '../protocol/index.ts';
import { type ServerProcess, startServerProcess } from '../server/test-support/server-process.ts';
import { campaignSize, FULL_CAMPAIGN } from '../shared/test-support/campaign-size.ts';

/**
 * Connection-cut campaign (issue #13 §2): at least 1,000 random cuts of run streams on one server
 * process over real loopback HTTP, each resumed with `Last-Event-ID`, in SSE and NDJSON, on the
 * starting POST and on resumed GETs. Half the cuts are the reader's own (it destroys its socket after
 * a chosen number of body bytes); half are the network's: a TCP proxy between reader and server
 * forwards a chosen number of response bytes, then destroys the connection (FIN or RST). Cut points
 * are aimed at random bytes, at bytes inside multi-byte UTF-8 characters (the answers are Chinese)
 * and at frame boundaries; where each one landed is measured from the bytes the reader really got.
 *
 * For every run the seqs read across all its connections are exactly 1..N, once each, ending with
 * `run.finished`; they equal what a reader that was never cut got, and the reduced message equals
 * that reader's and the persisted one.
 *
 * `npm test` makes 100 cuts, which take every path (both sides, both formats, POST and GET) but are
 * too few to measure where the cuts land; `npm run test:campaigns` makes the 1,000 (campaign-size.ts).
 */
const TOKEN = 'connection-cuts-token';
const CUTS = campaignSize({ quick: 100, full: 1000 });
/** Runs cut through at once: enough to keep both cores busy, few enough that each run is mostly live. */
const WORKERS = 6;
/** The demo model's pause before each part: a run streams for about a second, so many cuts are live. */
const DEMO_DELAY_MS = 8;
/** A cut lands this many body bytes into a connection at most (then moved to fit its mode): ~10 frames. */
const MAX_CUT_OFFSET = 2500;
/** Part of the resumes wait up to this long first (a client's backoff): the run streams on, or ends. */
const MAX_RESUME_PAUSE_MS = 600;
/** After this many cut connections a run is read to its end uncut, so every run ends. */
const CUT_CONNECTIONS_PER_RUN = 150;
const CONNECTION_TIMEOUT_MS = 15_000;
const CAMPAIGN_DEADLINE_MS = 50_000;
/** Questions the demo model answers at length, in Chinese, without pausing for a confirmation. */
const QUESTIONS = [
  '退货政策是什么？',
  '包邮吗？运费怎么算？',
  '尺码不合适可以换吗？',
  '七天无理由退货吗？',
  '我的订单到哪了？',
];
const SEED = Number(process.env.RUNSTREAM_FAULTS_SEED ?? 20_261_204);
const VERBOSE = process.env.RUNSTREAM_FAULTS_VERBOSE === '1';

/** A seeded PRNG (mulberry32), so a failing campaign can be replayed with RUNSTREAM_FAULTS_SEED. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
const random = seededRandom(SEED);

type CutMode = 'anywhere' | 'mid-char' | 'frame-end';

const LF = 0x0a;
const CLOSING_BRACE = 0x7d;
const isContinuation = (byte: number | undefined) => byte !== undefined && byte >= 0x80 && byte <= 0xbf;

/**
 * Where one connection is cut: before the first body byte at or after `offset` that fits the mode
 * (any byte; a UTF-8 continuation byte, so inside a character; the first byte after a frame). It is
 * fed the body as it arrives, in the reader's chunks or, in the proxy, in raw (chunked) TCP bytes:
 * chunk-size lines are ASCII, so a continuation byte is always inside an event's text, and an
 * event's end (`\n\n` in SSE, `}\n` in NDJSON) never occurs in the chunk framing.
 */
class CutPoint {
  readonly #offset: number;
  readonly #mode: CutMode;
  readonly #format: WireFormat;
  #seen = 0;
  /** The last two bytes before the current chunk, for a frame end split across chunks. */
  #before = [-1, -1];

  constructor(offset: number, mode: CutMode, format: WireFormat) {
    this.#offset = offset;
    this.#mode = mode;
    this.#format = format;
  }

  /** How many bytes of `chunk` pass before the cut, or `undefined` when the cut is not in it. */
  in(chunk: Uint8Array): number | undefined {
    for (let at = Math.max(0, this.#offset - this.#seen); at < chunk.length; at += 1)
      if (this.#fits(chunk, at)) return at;
    this.#before = [this.#byteBefore(chunk, chunk.length, 2), this.#byteBefore(chunk, chunk.length, 1)];
    this.#seen += chunk.length;
    return undefined;
  }

  #fits(chunk: Uint8Array, at: number): boolean {
    if (this.#mode === 'anywhere') return true;
    if (this.#mode === 'mid-char') return isContinuation(chunk[at]);
    const last = this.#byteBefore(chunk, at, 1);
    const previous = this.#byteBefore(chunk, at, 2);
    return last === LF && previous === (this.#format === 'sse' ? LF : CLOSING_BRACE);
  }

  #byteBefore(chunk: Uint8Array, at: number, back: number): number {
    const index = at - back;
    return index >= 0 ? (chunk[index] ?? -1) : (this.#before[2 + index] ?? -1);
  }
}

function planCut(format: WireFormat): CutPoint {
  const draw = random();
  // Some cuts right after the headers: the reader knows the run (X-Runstream-Run-Id) and no event.
  if (draw < 0.05) return new CutPoint(0, 'anywhere', format);
  const mode: CutMode = draw < 0.4 ? 'anywhere' : draw < 0.8 ? 'mid-char' : 'frame-end';
  return new CutPoint(Math.floor(random() * MAX_CUT_OFFSET), mode, format);
}

/**
 * A TCP proxy that cuts every response it carries: it forwards the headers (so the reader knows the
 * run id, as after any real cut that came late enough to matter), then a planned number of body
 * bytes, then ends the connection with a FIN or an RST, as a dying server, load balancer or network
 * would. Responses that end before their cut point pass whole.
 */
class CuttingProxy {
  cuts = 0;
  resets = 0;
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();

  constructor(targetPort: number) {
    this.#server = createServer((downstream) => this.#carry(downstream, targetPort));
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    const address = this.#server.address();
    if (address === null || typeof address === 'string') throw new Error('the proxy has no port');
    return address.port;
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise((resolve) => this.#server.close(resolve));
  }

  #carry(downstream: Socket, targetPort: number): void {
    const upstream = connect(targetPort, '127.0.0.1');
    for (const socket of [downstream, upstream]) {
      this.#sockets.add(socket);
      socket.once('close', () => this.#sockets.delete(socket));
      // Resets on either side are the point of this proxy; 'close' tells the other side.
      socket.on('error', () => undefined);
    }
    let head: Buffer = Buffer.alloc(0);
    let cut: CutPoint | undefined;
    let done = false;
    downstream.on('data', (chunk: Buffer) => upstream.write(chunk));
    upstream.on('data', (chunk: Buffer) => {
      if (done) return;
      let headers: Buffer = Buffer.alloc(0);
      let body = chunk;
      if (cut === undefined) {
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf('\r\n\r\n');
        if (end === -1) {
          downstream.write(chunk);
          return;
        }
        const bodyStart = end + 4 - (head.length - chunk.length);
        headers = chunk.subarray(0, bodyStart);
        body = chunk.subarray(bodyStart);
        const format = /application\/x-ndjson/i.test(head.subarray(0, end).toString('latin1'))
          ? 'ndjson'
          : 'sse';
        cut = planCut(format);
      }
      const at = cut.in(body);
      if (at === undefined) {
        downstream.write(chunk);
        return;
      }
      done = true;
      this.cuts += 1;
      upstream.destroy();
      const reset = random() < 0.5;
      if (reset) this.resets += 1;
      // Everything before the cut reaches the reader; nothing after it does.
      downstream.write(Buffer.concat([headers, body.subarray(0, at)]), () =>
        reset ? downstream.resetAndDestroy() : downstream.destroy(),
      );
    });
    upstream.once('end', () => {
      if (!done) downstream.end();
    });
    upstream.once('close', (hadError) => {
      if (!done && hadError) downstream.destroy();
    });
    downstream.once('close', () => upstream.destroy());
  }
}

interface Reading {
  status: number;
  runId: string | null;
  events: RunEvent[];
  /** `cut`: this reader cut it; `broken`: it ended before the response did (the proxy's cut). */
  end: 'complete' | 'cut' | 'broken';
  bodyBytes: number;
  /** The last body bytes received (up to 4), to tell where the connection was cut. */
  tail: Uint8Array;
}

interface Call {
  port: number;
  method: 'GET' | 'POST';
  path: string;
  format: WireFormat;
  headers?: Record<string, string>;
  body?: string;
  /** This reader's own cut, if any. */
  cut?: CutPoint;
}

/**
 * One streaming request on its own connection, read raw: the body is decoded as it arrives (no
 * de-duplication, unlike the client SDK), and when `cut` is given, exactly the bytes before the cut
 * point are decoded and the socket is destroyed, as a reader that loses its connection there.
 */
function read(call: Call): Promise<Reading> {
  return new Promise<Reading>((resolve, reject) => {
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outgoing.destroy();
      reject(error);
    };
    const timer = setTimeout(
      () => fail(new Error(`${call.method} ${call.path} did not end in ${CONNECTION_TIMEOUT_MS} ms`)),
      CONNECTION_TIMEOUT_MS,
    );
    const outgoing = request({
      host: '127.0.0.1',
      port: call.port,
      method: call.method,
      path: call.path,
      // A connection of its own, closed after the response: every cut is a real socket's end.
      agent: false,
      headers: {
        authorization: `Bearer ${TOKEN}`,
        accept: call.format === 'ndjson' ? 'application/x-ndjson' : 'text/event-stream',
        ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...call.headers,
      },
    });
    let responded = false;
    // Once the response is here, a broken connection is an outcome to record ('close' below).
    outgoing.once('error', (error) => {
      if (!responded) fail(error);
    });
    outgoing.once('response', (response) => {
      responded = true;
      const status = response.statusCode ?? 0;
      const runId = response.headers['x-runstream-run-id'];
      const base = { status, runId: typeof runId === 'string' ? runId : null };
      if (status !== 200) {
        response.resume();
        response.once('close', () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve({ ...base, events: [], end: 'complete', bodyBytes: 0, tail: new Uint8Array(0) });
        });
        return;
      }
      let feed: ReadableStreamDefaultController<Uint8Array> | undefined;
      const bytes = new ReadableStream<Uint8Array>({
        start(controller) {
          feed = controller;
        },
      });
      const events: RunEvent[] = [];
      const decoded = (async () => {
        const reader = bytes.pipeThrough(createRunEventDecoderStream(call.format)).getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          events.push(value);
        }
      })();
      // Handled in `finish`; this only keeps a decoder error from counting as unhandled meanwhile.
      decoded.catch(() => undefined);
      let bodyBytes = 0;
      let tail = new Uint8Array(0);
      let end: Reading['end'] | undefined;
      const finish = (how: Reading['end']) => {
        if (end !== undefined) return;
        end = how;
        // A decoder that failed has cancelled `bytes`; its error reaches `decoded` below.
        try {
          feed?.close();
        } catch {}
        decoded.then(
          () => {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            resolve({ ...base, events, end: how, bodyBytes, tail });
          },
          (error: Error) => fail(error),
        );
      };
      response.on('data', (chunk: Buffer) => {
        if (end !== undefined) return;
        const at = call.cut?.in(chunk);
        const piece = at === undefined ? chunk : chunk.subarray(0, at);
        if (piece.length > 0) {
          bodyBytes += piece.length;
          const joined = new Uint8Array(tail.length + piece.length);
          joined.set(tail);
          joined.set(piece, tail.length);
          tail = joined.slice(-4);
          try {
            feed?.enqueue(new Uint8Array(piece));
          } catch {}
        }
        if (at !== undefined) {
          finish('cut');
          outgoing.destroy();
        }
      });
      // A broken connection errors the response; 'close' tells it from a complete one.
      response.on('error', () => undefined);
      response.once('close', () => finish(response.complete ? 'complete' : 'broken'));
    });
    outgoing.end(call.body);
  });
}

/** Where a connection's body stopped: before any body byte, between frames, or inside a frame (and a character). */
function landing(reading: Reading, format: WireFormat): 'before-body' | 'between-frames' | 'mid-frame' {
  const { tail } = reading;
  if (reading.bodyBytes === 0) return 'before-body';
  const frameEnd = tail.at(-1) === LF && (format === 'ndjson' || tail.at(-2) === LF);
  return frameEnd ? 'between-frames' : 'mid-frame';
}

function endsInsideCharacter(tail: Uint8Array): boolean {
  let continuations = 0;
  while (continuations < tail.length && isContinuation(tail[tail.length - 1 - continuations]))
    continuations += 1;
  const lead = tail[tail.length - 1 - continuations];
  if (lead === undefined) return continuations > 0;
  const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return length > continuations + 1;
}

const logged = (events: readonly RunEvent[]) =>
  events.filter((event): event is LoggedRunEvent => 'seq' in event && event.type !== 'run.snapshot');

let directory: string;
let server: ServerProcess;
let serverPort: number;
let proxy: CuttingProxy;
let proxyPort: number;

async function api(path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...init.headers },
  });
}

/** The run's message as the server persisted it, once it has stored the whole run. */
async function persistedMessage(conversationId: string, lastSeq: number): Promise<Message | undefined> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const conversation = (await (await api(`/v1/conversations/${conversationId}`)).json()) as {
      messages: { role: string; message?: Message }[];
    };
    const message = conversation.messages.find((entry) => entry.role === 'assistant')?.message;
    if ((message !== undefined && message.lastSeq >= lastSeq) || Date.now() > deadline) return message;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const counts = {
  runs: 0,
  events: 0,
  connections: 0,
  resumes: 0,
  noContent: 0,
  cuts: 0,
  clientCuts: 0,
  serverCuts: 0,
  sseCuts: 0,
  ndjsonCuts: 0,
  postCuts: 0,
  getCuts: 0,
  beforeBody: 0,
  betweenFrames: 0,
  midFrame: 0,
  midCharacter: 0,
  clientMidCharacter: 0,
  serverMidCharacter: 0,
  afterDone: 0,
  /** Cuts while the run still streamed (before the uncut reader got its end); the rest cut replays of an ended run. */
  liveCuts: 0,
  /** A connection that broke though nobody cut it: the server dropped a reader. */
  unexpectedBreaks: 0,
  snapshots: 0,
};
const violations: string[] = [];

/** Start one run and read it to its end through random cuts; record what does not hold. */
async function cutThroughRun(question: string): Promise<void> {
  const created = await api('/v1/conversations', { method: 'POST', body: '{}' });
  const conversationId = ((await created.json()) as { id: string }).id;
  const received: LoggedRunEvent[] = [];
  const trace: string[] = [];
  let runId: string | null = null;
  let uncut: Promise<Reading> | undefined;
  /** When the uncut reader got the run's end: cuts before it were cuts of a live stream. */
  let endedAt = Number.POSITIVE_INFINITY;
  const cutAt: number[] = [];
  let ended = false;
  for (let attempt = 0; !ended; attempt += 1) {
    if (attempt > CUT_CONNECTIONS_PER_RUN + 5) {
      violations.push(`run ${runId} did not end after ${attempt} connections: ${trace.join(' | ')}`);
      return;
    }
    const format: WireFormat = random() < 0.5 ? 'sse' : 'ndjson';
    const side = attempt >= CUT_CONNECTIONS_PER_RUN ? 'none' : random() < 0.5 ? 'client' : 'server';
    const lastSeq = received.at(-1)?.seq ?? 0;
    if (runId !== null && random() < 0.15)
      await new Promise((resolve) => setTimeout(resolve, random() * MAX_RESUME_PAUSE_MS));
    const reading = await read({
      port: side === 'server' ? proxyPort : serverPort,
      format,
      ...(side === 'client' ? { cut: planCut(format) } : {}),
      ...(runId === null
        ? {
            method: 'POST',
            path: `/v1/conversations/${conversationId}/messages`,
            body: JSON.stringify({ text: question }),
          }
        : { method: 'GET', path: `/v1/runs/${runId}/events`, headers: { 'last-event-id': String(lastSeq) } }),
    });
    counts.connections += 1;
    if (runId !== null) counts.resumes += 1;
    const seqs = reading.events.map((event) => ('seq' in event ? event.seq : event.type));
    trace.push(
      `${runId === null ? 'POST' : `GET@${lastSeq}`} ${format} ${side} ${reading.status} ${reading.end} ${reading.bodyBytes}B [${seqs.join(',')}]`,
    );
    if (runId === null) {
      runId = reading.runId;
      if (reading.status !== 200 || runId === null) {
        violations.push(`the message was answered ${reading.status} without a run id: ${trace.join(' | ')}`);
        return;
      }
      // A reader that is never cut follows the same run from its start, live.
      uncut = read({
        port: serverPort,
        format: random() < 0.5 ? 'sse' : 'ndjson',
        method: 'GET',
        path: `/v1/runs/${runId}/events`,
        headers: { 'last-event-id': '0' },
      });
      uncut.then(
        () => {
          endedAt = Date.now();
        },
        () => undefined,
      );
    } else if (reading.status === 204) {
      counts.noContent += 1;
    } else if (reading.status !== 200) {
      violations.push(`a resume was answered ${reading.status}: ${trace.join(' | ')}`);
      return;
    }
    counts.snapshots += reading.events.filter((event) => event.type === 'run.snapshot').length;
    received.push(...logged(reading.events));
    const gotDone = reading.events.some((event) => event.type === 'done');
    ended = reading.status === 204 || gotDone;
    if (reading.end === 'broken' && side !== 'server') counts.unexpectedBreaks += 1;
    if (reading.end === 'complete' || (reading.end === 'broken' && side !== 'server')) continue;
    counts.cuts += 1;
    cutAt.push(Date.now());
    counts[side === 'client' ? 'clientCuts' : 'serverCuts'] += 1;
    counts[format === 'sse' ? 'sseCuts' : 'ndjsonCuts'] += 1;
    counts[attempt === 0 ? 'postCuts' : 'getCuts'] += 1;
    const where = landing(reading, format);
    counts[where === 'before-body' ? 'beforeBody' : where === 'mid-frame' ? 'midFrame' : 'betweenFrames'] +=
      1;
    if (gotDone) counts.afterDone += 1;
    if (where === 'mid-frame' && endsInsideCharacter(reading.tail)) {
      counts.midCharacter += 1;
      counts[side === 'client' ? 'clientMidCharacter' : 'serverMidCharacter'] += 1;
    }
  }
  counts.runs += 1;
  counts.events += received.length;
  const whole = await (uncut as Promise<Reading>);
  counts.liveCuts += cutAt.filter((at) => at < endedAt).length;
  const seqs = received.map((event) => event.seq);
  const context = `run ${runId} (${question}): ${trace.join(' | ')}`;
  const once = seqs.map((_, index) => index + 1);
  if (!isDeepStrictEqual(seqs, once))
    violations.push(`seqs ${seqs.join(',')} are not 1..N once each; ${context}`);
  const last = received.at(-1);
  if (last?.type !== 'run.finished' || last.status !== 'completed')
    violations.push(`the last event is ${last?.type}, not run.finished completed; ${context}`);
  if (whole.end !== 'complete' || whole.events.at(-1)?.type !== 'done')
    violations.push(`the uncut reader ended ${whole.end} without done; ${context}`);
  if (!isDeepStrictEqual(logged(whole.events), received))
    violations.push(`the events differ from the uncut reader's; ${context}`);
  const message = toMessage(reduceAll(createMessageState(), received));
  if (!isDeepStrictEqual(message, toMessage(reduceAll(createMessageState(), logged(whole.events)))))
    violations.push(`the message differs from the uncut reader's; ${context}`);
  const persisted = await persistedMessage(conversationId, last?.seq ?? 0);
  if (!isDeepStrictEqual(message, persisted))
    violations.push(`the message differs from the stored one; ${context}`);
}

describe('connection cuts', () => {
  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'runstream-cuts-'));
    server = await startServerProcess({
      RUNSTREAM_DB: join(directory, 'runstream.db'),
      // One instance on its SQLite file, whatever the environment says.
      RUNSTREAM_DATABASE_URL: '',
      RUNSTREAM_REDIS_URL: '',
      RUNSTREAM_DEMO_TOKEN: TOKEN,
      RUNSTREAM_DEMO_DELAY_MS: String(DEMO_DELAY_MS),
      // One user resumes a thousand times a minute here: the per-user limits have their own tests.
      RUNSTREAM_RATE_LIMIT: '0',
      RUNSTREAM_MAX_RUNNING_RUNS: '0',
    });
    serverPort = Number(new URL(server.url).port);
    proxy = new CuttingProxy(serverPort);
    proxyPort = await proxy.listen();
  }, 60_000);

  afterAll(async () => {
    await proxy?.close();
    await server?.stop();
    if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
  }, 30_000);

  it(`loses and repeats no event over ${CUTS} random cuts from both sides, resumed with Last-Event-ID`, async () => {
    const startedAt = Date.now();
    let started = 0;
    await Promise.all(
      Array.from({ length: WORKERS }, async () => {
        while (counts.cuts < CUTS && Date.now() - startedAt < CAMPAIGN_DEADLINE_MS) {
          started += 1;
          await cutThroughRun(QUESTIONS[started % QUESTIONS.length] ?? '退货政策是什么？');
        }
      }),
    );
    const elapsedMs = Date.now() - startedAt;
    if (VERBOSE)
      console.log(
        `connection cuts: seed ${SEED}, ${elapsedMs} ms, ${JSON.stringify({ ...counts, proxyCuts: proxy.cuts, proxyResets: proxy.resets })}`,
      );
    expect(violations).toEqual([]);
    expect(counts.unexpectedBreaks).toBe(0);
    // The server's log holds these short runs whole: every resume is answered with events.
    expect(counts.snapshots).toBe(0);
    expect(counts.runs).toBe(started);
    expect(counts.cuts).toBeGreaterThanOrEqual(CUTS);
    // Every cut the proxy made was seen broken by its reader, and nothing else was.
    expect(proxy.cuts).toBe(counts.serverCuts);
    expect(counts.clientCuts + counts.serverCuts).toBe(counts.cuts);
    // Every cut before `done` was resumed.
    expect(counts.resumes).toBeGreaterThanOrEqual(counts.cuts - counts.afterDone);
    if (!FULL_CAMPAIGN) {
      // A few cuts: each side, each format and resumed GETs were cut; how they land is measured below.
      for (const kind of [
        'clientCuts',
        'serverCuts',
        'sseCuts',
        'ndjsonCuts',
        'getCuts',
        'midFrame',
      ] as const)
        expect(counts[kind], kind).toBeGreaterThan(0);
      return;
    }
    expect(counts.clientCuts).toBeGreaterThan(CUTS * 0.3);
    expect(counts.serverCuts).toBeGreaterThan(CUTS * 0.3);
    expect(proxy.resets).toBeGreaterThan(CUTS * 0.1);
    expect(counts.sseCuts).toBeGreaterThan(CUTS * 0.3);
    expect(counts.ndjsonCuts).toBeGreaterThan(CUTS * 0.3);
    expect(counts.postCuts).toBeGreaterThan(20);
    expect(counts.getCuts).toBeGreaterThan(CUTS * 0.5);
    expect(counts.midFrame).toBeGreaterThan(CUTS * 0.5);
    expect(counts.midCharacter).toBeGreaterThan(CUTS * 0.2);
    expect(counts.clientMidCharacter).toBeGreaterThan(CUTS * 0.1);
    expect(counts.serverMidCharacter).toBeGreaterThan(CUTS * 0.1);
    expect(counts.betweenFrames).toBeGreaterThan(CUTS * 0.05);
    expect(counts.beforeBody).toBeGreaterThan(CUTS * 0.01);
    expect(counts.liveCuts).toBeGreaterThan(CUTS * 0.2);
    expect(counts.cuts - counts.liveCuts).toBeGreaterThan(CUTS * 0.1);
  }, 90_000);
});
