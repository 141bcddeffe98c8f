/**
 * `npm run bench:compare`: runstream's full streaming pipeline next to raw `node:http` baselines, each
 * SERVER IN A CHILD PROCESS OF ITS OWN (so its CPU time and RSS are its own), the load client in
 * another child (`../server-bench-client.ts`), pinned to different cores with `taskset` when it exists.
 *
 * The workload is one real runstream run (2,000 answer deltas of 4 CJK characters, scripted model, no
 * delay), captured from the runstream child once and handed to every other contender, so all stream
 * the same events (the AI SDK the same answer deltas, as its own UI message stream). Per (contender,
 * concurrency) it repeats batches of N concurrent streams, interleaved round-robin across contenders,
 * and prints medians, min–max and ratios to the baselines and to the AI SDK. It asserts only that every
 * stream was read whole (so a broken server cannot look fast), never a time.
 *
 * The fourth contender, the Vercel AI SDK (`ai`: `streamText` on its mock model, piped as a UI message
 * stream onto `node:http`, `ai-sdk/ai-sdk-server.ts`), needs Node ≥ 22: it runs on a Node 22 binary
 * installed from the npm registry (the package `node`) into `bench/compare/ai-sdk/`, whose own
 * package.json and lock pin it and `ai`; none of it is a dependency of the product. This script runs
 * `npm ci` there when they are missing, and skips that contender (saying so) when the install fails.
 *
 * `runstream` is the standalone server (`createRunstream` + `serve()` from `runstream/node`, what
 * `runstream serve` runs). `runstream Responses` is the same server and run through the OpenAI-style
 * face (`POST /v1/responses`, `stream: true`); its `÷rs` ratio is that face against the native one.
 * `runstream embedded` is the same runstream mounted with `toNodeHandler` in a plain `node:http`
 * server under `/support` with the host's `authenticate`, and `runstream web-standard` that one's
 * `fetch` behind a Web `Request`/`Response` conversion, without the Node fast path (issue 30: the
 * embedded handler streams with the standalone server's CPU per delta): each is printed against the
 * others as a ratio of medians and as per-batch ratios. After the batches, resumes with
 * `Last-Event-ID` on a finished runstream run are timed to their first replayed event.
 *
 * A contender is a child script speaking `child-protocol.ts`; add one to `contenders()`.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { encodeRunEventSse } from '../../src/protocol/index.ts';
import { RETRY_MS } from '../../src/server/index.ts';
import type {
  BatchMessage,
  BatchResult,
  ClientRequest,
  StreamFormat,
  StreamResult,
} from '../server-bench-client.ts';
import type { ChildCall, ChildReply, ChildStats, Workload } from './child-protocol.ts';
import type { RunstreamChildConfig } from './runstream-server.ts';

const DELTAS = 2_000;
const CHUNK_SIZE = 4;
const CONCURRENCY = [1, 10, 100] as const;
type Concurrency = (typeof CONCURRENCY)[number];
/**
 * Measured batches per (contender, concurrency). A one-stream batch is about 10 ms, so one collection
 * of the heap landing in it moves it by half: more of them keep the median steady.
 */
const REPETITIONS: Record<Concurrency, number> = { 1: 11, 10: 7, 100: 3 };
const WARM_UP_STREAMS = 10;
const WARM_UP_BATCHES = 2;
const BATCH_TIMEOUT_MS = 60_000;
const START_TIMEOUT_MS = 30_000;
const RSS_SAMPLE_MS = 10;
/** Idle time before each measured batch. */
const BATCH_GAP_MS = 100;
const SERVER_CORE = '0';
const CLIENT_CORE = '1';
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

// ---------------------------------------------------------------------------------------------------
// Contenders

/** What the parent needs to know to start a contender's child (see `child-protocol.ts`). */
export interface Contender {
  name: string;
  /** The child's command line, without any `taskset` (the parent adds it). */
  command(context: { dataDir: string; turns: number }): { file: string; args: string[] };
  /** How its streams are read and checked whole; runstream's SSE events unless it says otherwise. */
  streams?: StreamKind;
}

/** A contender child in TypeScript, run by a Node (this one unless `execPath` says which) with tsx. */
function nodeChild(
  name: string,
  script: string,
  options: {
    execPath?: string;
    args?: (context: { dataDir: string; turns: number }) => string[];
    streams?: StreamKind;
  } = {},
): Contender {
  return {
    name,
    ...(options.streams ? { streams: options.streams } : {}),
    command: (context) => ({
      file: options.execPath ?? process.execPath,
      args: [
        '--import',
        'tsx',
        fileURLToPath(new URL(script, import.meta.url)),
        ...(options.args?.(context) ?? []),
      ],
    }),
  };
}

const PRE_ENCODED = 'raw pre-encoded';
const STRINGIFY = 'raw stringify';
const RUNSTREAM = 'runstream';
const RUNSTREAM_RESPONSES = 'runstream Responses';
const RUNSTREAM_EMBEDDED = 'runstream embedded';
const RUNSTREAM_WEB_STANDARD = 'runstream web-standard';
const AI_SDK = 'AI SDK';

/** The AI SDK contender's folder: its own package.json, lock, Node 22 binary and `ai`. */
const AI_SDK_DIR = fileURLToPath(new URL('./ai-sdk/', import.meta.url));
const AI_SDK_NODE = join(AI_SDK_DIR, 'node_modules', '.bin', 'node');

/** A runstream contender: the same runstream served one way (`runstream-server.ts`), in its own folder. */
function runstreamChild(
  name: string,
  folder: string,
  options: Pick<RunstreamChildConfig, 'face' | 'mount'> & { streams?: StreamKind } = {},
): Contender {
  const { streams, ...served } = options;
  return nodeChild(name, './runstream-server.ts', {
    ...(streams ? { streams } : {}),
    args: ({ dataDir, turns }) => [
      JSON.stringify({
        dataDir: join(dataDir, folder),
        turns,
        deltas: DELTAS,
        chunkSize: CHUNK_SIZE,
        ...served,
      } satisfies RunstreamChildConfig),
    ],
  });
}

function contenders(aiSdk: boolean): Contender[] {
  return [
    nodeChild(PRE_ENCODED, './raw-pre-encoded-server.ts'),
    nodeChild(STRINGIFY, './raw-stringify-server.ts'),
    runstreamChild(RUNSTREAM, 'standalone', { mount: 'standalone' }),
    runstreamChild(RUNSTREAM_RESPONSES, 'responses', {
      mount: 'standalone',
      face: 'responses',
      streams: RESPONSES_SSE,
    }),
    runstreamChild(RUNSTREAM_EMBEDDED, 'embedded', { mount: 'embedded' }),
    runstreamChild(RUNSTREAM_WEB_STANDARD, 'web-standard', { mount: 'web-standard' }),
    ...(aiSdk
      ? [
          nodeChild(AI_SDK, './ai-sdk/ai-sdk-server.ts', {
            execPath: AI_SDK_NODE,
            streams: UI_MESSAGE_STREAM,
          }),
        ]
      : []),
  ];
}

/** What `node --version` prints for the AI SDK folder's binary, or undefined when it does not run. */
function aiSdkNodeVersion(): string | undefined {
  const run = spawnSync(AI_SDK_NODE, ['--version'], { encoding: 'utf8' });
  return run.status === 0 ? run.stdout.trim() : undefined;
}

/** The exact versions the AI SDK folder's package.json pins. */
function aiSdkPinned(): Record<string, string> {
  return (
    JSON.parse(readFileSync(join(AI_SDK_DIR, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    }
  ).dependencies;
}

/** Whether the AI SDK folder holds exactly what its package.json pins, the Node binary included. */
function aiSdkInstalled(): boolean {
  const pinned = aiSdkPinned();
  const installed = Object.entries(pinned).every(([name, version]) => {
    const manifest = join(AI_SDK_DIR, 'node_modules', name, 'package.json');
    return (
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version === version
    );
  });
  // The `node` package fetches its binary in an install script: check that it is there and runs.
  return installed && aiSdkNodeVersion() === `v${pinned.node}`;
}

/**
 * Installs the AI SDK folder's dependencies when they are missing (they are not the product's, so
 * `npm install` at the root does not), from its lock. False, after saying why, when that fails (no
 * registry): the other contenders run without it.
 */
function prepareAiSdk(): boolean {
  if (aiSdkInstalled()) return true;
  const args = ['ci', '--prefix', AI_SDK_DIR, '--no-audit', '--no-fund', '--loglevel=error'];
  console.log(
    `AI SDK contender: its dependencies (ai, a Node 22 binary) are missing; running npm ${args.join(' ')}`,
  );
  const install = spawnSync('npm', args, { cwd: REPO_ROOT, stdio: 'inherit', timeout: 10 * 60_000 });
  if (install.status === 0 && aiSdkInstalled()) return true;
  const why = install.error?.message ?? `exit ${install.status ?? install.signal}`;
  console.log(`AI SDK contender: SKIPPED, the install failed (${why}); no npm registry? The others run.`);
  return false;
}

// ---------------------------------------------------------------------------------------------------
// Child processes

const hasTaskset =
  cpus().length >= 2 && spawnSync('taskset', ['-c', '0', 'true'], { stdio: 'ignore' }).status === 0;

/** Starts `file args` on `core` (through taskset when it exists), with an IPC channel. */
function spawnPinned(core: string, file: string, args: string[], stdout: 'pipe' | 'inherit'): ChildProcess {
  const [command, commandArgs] = hasTaskset ? ['taskset', ['-c', core, file, ...args]] : [file, args];
  return spawn(command, commandArgs, { cwd: REPO_ROOT, stdio: ['ignore', stdout, 'inherit', 'ipc'] });
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} did not finish in ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

/** Ends a child we started: IPC disconnect (it exits by itself), then SIGKILL if it lingers. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  if (child.connected) child.disconnect();
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited(child);
  clearTimeout(timer);
}

class ServerChild {
  readonly #child: ChildProcess;
  readonly #pending = new Map<
    number,
    { resolve: (value: unknown) => void; reject: (error: Error) => void }
  >();
  #nextId = 1;
  readonly url: Promise<string>;

  constructor(
    readonly name: string,
    command: { file: string; args: string[] },
    readonly streams: StreamKind,
  ) {
    this.#child = spawnPinned(SERVER_CORE, command.file, command.args, 'pipe');
    const failAll = (error: Error) => {
      for (const pending of this.#pending.values()) pending.reject(error);
      this.#pending.clear();
    };
    this.#child.on('message', (reply: ChildReply) => {
      const pending = this.#pending.get(reply.id);
      if (!pending) return;
      this.#pending.delete(reply.id);
      if (reply.ok) pending.resolve(reply.result);
      else pending.reject(new Error(`${name}: ${reply.error}`));
    });
    this.#child.once('exit', (code, signal) => failAll(new Error(`${name} exited (${code ?? signal})`)));
    const lines = createInterface({ input: this.#child.stdout as NodeJS.ReadableStream });
    this.url = withTimeout(
      new Promise<string>((resolve, reject) => {
        let first = true;
        lines.on('line', (line) => {
          if (first) {
            first = false;
            if (/^https?:\/\//.test(line)) resolve(line.trim());
            else reject(new Error(`${name}: first stdout line is not a URL: ${line}`));
          } else console.log(`[${name}] ${line}`);
        });
        this.#child.once('exit', (code) => reject(new Error(`${name} exited (${code}) before its URL`)));
      }),
      START_TIMEOUT_MS,
      `${name}'s start`,
    );
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  call<T>(call: DistributiveOmit<ChildCall, 'id'>): Promise<T> {
    const id = this.#nextId++;
    return withTimeout(
      new Promise<T>((resolve, reject) => {
        this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
        this.#child.send({ ...call, id } as ChildCall);
      }),
      BATCH_TIMEOUT_MS,
      `${this.name}: ${call.method}`,
    );
  }

  stop(): Promise<void> {
    return stopChild(this.#child);
  }
}

type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;

/** The load client (`server-bench-client.ts`) on its own core; one batch at a time. */
class LoadClient {
  readonly #child = spawnPinned(
    CLIENT_CORE,
    process.execPath,
    ['--import', 'tsx', fileURLToPath(new URL('../server-bench-client.ts', import.meta.url))],
    'inherit',
  );
  #nextId = 1;

  run(requests: ClientRequest[], format?: StreamFormat): Promise<BatchResult> {
    const id = this.#nextId++;
    let onMessage: ((message: BatchResult) => void) | undefined;
    return withTimeout(
      new Promise<BatchResult>((resolve) => {
        onMessage = (message: BatchResult) => {
          if (message.type === 'result' && message.id === id) resolve(message);
        };
        this.#child.on('message', onMessage);
        this.#child.send({
          type: 'batch',
          id,
          requests,
          ...(format ? { format } : {}),
        } satisfies BatchMessage);
      }),
      BATCH_TIMEOUT_MS,
      `a batch of ${requests.length} streams`,
    ).finally(() => {
      if (onMessage) this.#child.off('message', onMessage);
    });
  }

  stop(): Promise<void> {
    return stopChild(this.#child);
  }
}

/** Peak RSS of another process, read from /proc every few ms (Linux); costs the server nothing. */
class RssPeak {
  #peak = 0;
  readonly #timer: NodeJS.Timeout | undefined;

  constructor(pid: number | undefined) {
    if (pid === undefined || !RssPeak.available(pid)) return;
    const sample = () => {
      try {
        const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
        if (match?.[1]) this.#peak = Math.max(this.#peak, Number(match[1]) * 1024);
      } catch {
        // the process is gone; the batch will fail on its own
      }
    };
    sample();
    this.#timer = setInterval(sample, RSS_SAMPLE_MS);
  }

  static available(pid: number): boolean {
    try {
      return readFileSync(`/proc/${pid}/status`, 'utf8').includes('VmRSS:');
    } catch {
      return false;
    }
  }

  /** The peak seen, or 0 without /proc. */
  stop(): number {
    clearInterval(this.#timer);
    return this.#peak;
  }
}

// ---------------------------------------------------------------------------------------------------
// Measuring

interface Expected {
  /** SSE frames of one stream (runstream may send its `retry:` as one more, a frame of its own). */
  frames: number;
  bytes: number;
  events: number;
  deltas: number;
  /** UTF-8 bytes of the answer deltas' text: what any whole stream carries at least. */
  deltaTextBytes: number;
}

/** How a contender's streams are read (`format`, for the client) and checked whole. */
interface StreamKind {
  format?: StreamFormat;
  /** Events (SSE frames) in one whole stream, for events/s. */
  events(expected: Expected): number;
  /** Why a stream that came back with status 200 and no error is not whole; undefined when it is. */
  problem(stream: StreamResult, expected: Expected): string | undefined;
}

/** runstream's SSE events: the workload's frames (and bytes) exactly, the last one `done`. */
const RUN_EVENT_SSE: StreamKind = {
  events: (expected) => expected.events,
  problem: (stream, expected) =>
    (stream.frames !== expected.frames && stream.frames !== expected.frames + 1) ||
    !stream.sawDone ||
    // Ids and timestamps may differ by a digit; the payload may not.
    Math.abs(stream.bytes - expected.bytes) > expected.bytes * 0.01
      ? `${stream.frames}/${expected.frames} frames, ${stream.bytes}/${expected.bytes} bytes, done ${stream.sawDone}`
      : undefined,
};

/**
 * A stream whose frames the client counts by a marker (`format.countText`, one per answer delta) and
 * whose end it recognises (`format.doneFrame` or `format.doneText`): whole when it carries every delta,
 * `besideDeltas` frames around them (one more allowed when `retryFrame`), the end, and at least the
 * deltas' text. A cut stream fails on the count.
 */
function countedStreamKind(kind: {
  format: StreamFormat;
  besideDeltas: number;
  retryFrame: boolean;
  /** Names for the problem line: the counted frames and the end. */
  counted: string;
  done: string;
}): StreamKind {
  return {
    format: kind.format,
    events: (expected) => expected.deltas + kind.besideDeltas,
    problem: (stream, expected) => {
      const frames = expected.deltas + kind.besideDeltas;
      const framesWhole = stream.frames === frames || (kind.retryFrame && stream.frames === frames + 1);
      return stream.counted !== expected.deltas ||
        !framesWhole ||
        !stream.sawDone ||
        stream.bytes < expected.deltaTextBytes
        ? `${stream.counted}/${expected.deltas} ${kind.counted}, ${stream.frames}/${frames} frames, ` +
            `${stream.bytes} bytes (text alone: ${expected.deltaTextBytes}), ${kind.done} ${stream.sawDone}`
        : undefined;
    },
  };
}

/**
 * The AI SDK's UI message stream of one text answer: `start`, `start-step`, `text-start`, one
 * `text-delta` per answer delta, `text-end`, `finish-step`, `finish`, then `data: [DONE]`. The client
 * counts the `text-delta` chunks (JSON-escaped text cannot contain `{"type":"`).
 */
const UI_MESSAGE_STREAM_FRAMES_BESIDE_DELTAS = 7;
const UI_MESSAGE_STREAM = countedStreamKind({
  format: { doneFrame: 'data: [DONE]', countText: '{"type":"text-delta"' },
  besideDeltas: UI_MESSAGE_STREAM_FRAMES_BESIDE_DELTAS,
  retryFrame: false,
  counted: 'text-delta chunks',
  done: '[DONE] last',
});

/**
 * runstream's Responses face for the same run: `response.created`, `response.in_progress`,
 * `response.output_item.added`, `response.content_part.added`, one `response.output_text.delta` per
 * answer delta, then `.output_text.done`, `.content_part.done`, `.output_item.done` and
 * `response.completed` (after the `retry:` frame). Its last frame carries the whole response, so the
 * client counts the delta events and the completion instead of reading the last frame.
 */
const RESPONSES_FRAMES_BESIDE_DELTAS = 8;
const RESPONSES_SSE = countedStreamKind({
  format: { countText: 'event: response.output_text.delta\n', doneText: 'event: response.completed\n' },
  besideDeltas: RESPONSES_FRAMES_BESIDE_DELTAS,
  retryFrame: true,
  counted: 'output_text.delta events',
  done: 'response.completed once',
});

interface Measurement {
  cpuMicrosPerDelta: number;
  eventsPerSecond: number;
  firstEventMs: number;
  peakRssBytes: number;
  /** Peak minus the RSS just before the batch: what the batch itself took beyond what was there. */
  rssGrowthBytes: number;
  rssAfterBytes: number;
}

function checkStreams(
  streams: readonly StreamResult[],
  n: number,
  expected: Expected,
  kind: StreamKind,
  label: string,
): void {
  if (streams.length !== n) throw new Error(`${label}: ${streams.length} of ${n} streams came back`);
  for (const stream of streams) {
    const problem =
      stream.error !== undefined || stream.status !== 200
        ? `status ${stream.status}${stream.error ? `, ${stream.error}` : ''}`
        : kind.problem(stream, expected);
    if (problem !== undefined) throw new Error(`${label}: a stream was not read whole (${problem})`);
  }
}

const cpuOf = (stats: ChildStats) => stats.cpuUserMicros + stats.cpuSystemMicros;

function percentile(samples: readonly number[], fraction: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? Number.NaN;
}

const median = (samples: readonly number[]) => percentile(samples, 0.5);

async function measure(
  server: ServerChild,
  client: LoadClient,
  n: number,
  expected: Expected,
): Promise<Measurement> {
  const requests = await server.call<ClientRequest[]>({ method: 'prepare', n });
  // No forced GC before a batch: a full collection costs the next batch more than the garbage it
  // removes (the raw pre-encoded server spent 7–13 µs per delta at one stream after one, 1.1 µs
  // without), and a streaming server never runs one. Each batch pays the collections its own and
  // its predecessors' allocation brings, as it would streaming without pause. A short idle moment
  // lets the previous batch's last writes and timers end first.
  await sleep(BATCH_GAP_MS);
  const before = await server.call<ChildStats>({ method: 'stats' });
  const peak = new RssPeak(server.pid);
  let result: BatchResult;
  try {
    result = await client.run(requests, server.streams.format);
    // The runs' remaining work (persisting them) is part of the pipeline's cost: wait for it, then read.
    const runIds = result.streams.flatMap((stream) => (stream.runId ? [stream.runId] : []));
    await server.call({ method: 'settle', runIds });
  } finally {
    peak.stop();
  }
  const after = await server.call<ChildStats>({ method: 'stats' });
  const peakRss = Math.max(peak.stop(), after.rss);
  checkStreams(result.streams, n, expected, server.streams, `${server.name} × ${n}`);
  const lastEnd = Math.max(...result.streams.map((stream) => stream.endMs));
  return {
    cpuMicrosPerDelta: (cpuOf(after) - cpuOf(before)) / (n * expected.deltas),
    eventsPerSecond: (n * server.streams.events(expected)) / (lastEnd / 1000),
    firstEventMs: median(result.streams.map((stream) => stream.firstEventMs)),
    peakRssBytes: peakRss,
    rssGrowthBytes: Math.max(0, peakRss - before.rss),
    rssAfterBytes: after.rss,
  };
}

// ---------------------------------------------------------------------------------------------------
// Printing

interface Figure {
  title: string;
  of: (m: Measurement) => number;
  format: (value: number) => string;
  /** Whether the ratio table shows it (contender median ÷ baseline median). */
  ratio: boolean;
}

const FIGURES: readonly Figure[] = [
  {
    title: 'server CPU µs/delta',
    of: (m) => m.cpuMicrosPerDelta,
    format: (v) => v.toFixed(2),
    ratio: true,
  },
  {
    title: 'events/s',
    of: (m) => m.eventsPerSecond,
    format: (v) => Math.round(v).toLocaleString('en'),
    ratio: true,
  },
  { title: 'first event ms', of: (m) => m.firstEventMs, format: (v) => v.toFixed(1), ratio: true },
  {
    title: 'peak RSS MB',
    of: (m) => m.peakRssBytes,
    format: (v) => (v / 1024 / 1024).toFixed(1),
    ratio: true,
  },
  {
    title: 'RSS growth MB',
    of: (m) => m.rssGrowthBytes,
    format: (v) => (v / 1024 / 1024).toFixed(1),
    ratio: false,
  },
  {
    title: 'RSS after MB',
    of: (m) => m.rssAfterBytes,
    format: (v) => (v / 1024 / 1024).toFixed(1),
    ratio: false,
  },
];

function table(rows: readonly string[][]): string {
  const widths = (rows[0] ?? []).map((_, column) =>
    Math.max(...rows.map((row) => (row[column] ?? '').length)),
  );
  return rows
    .map((row) =>
      row
        .map((cell, column) =>
          column === 0 ? cell.padEnd(widths[0] ?? 0) : cell.padStart(widths[column] ?? 0),
        )
        .join('  '),
    )
    .join('\n');
}

/** What the ratio columns divide by, and their headers' short names. */
const RATIO_BASELINES = [
  { name: PRE_ENCODED, short: '÷pre' },
  { name: STRINGIFY, short: '÷str' },
  { name: AI_SDK, short: '÷ai' },
  // The standalone server's native face: the Responses face (issue 11: within 1.5×) and the other
  // mounts (issue 30: the same) against it.
  { name: RUNSTREAM, short: '÷rs' },
] as const;

function printConcurrency(n: number, results: ReadonlyMap<string, Measurement[]>): void {
  const names = [...results.keys()];
  const reps = results.get(names[0] ?? '')?.length ?? 0;
  console.log(`\n── ${n} concurrent stream${n === 1 ? '' : 's'} · ${reps} batches per contender ──`);
  const rows: string[][] = [['contender', ...FIGURES.map((f) => `${f.title} med (min–max)`)]];
  for (const name of names) {
    const measured = results.get(name) ?? [];
    rows.push([
      name,
      ...FIGURES.map((figure) => {
        const values = measured.map(figure.of);
        const range = `${figure.format(Math.min(...values))}–${figure.format(Math.max(...values))}`;
        return `${figure.format(median(values))} (${range})`;
      }),
    ]);
  }
  console.log(table(rows));
  const ratioFigures = FIGURES.filter((figure) => figure.ratio);
  const baselines = RATIO_BASELINES.filter((baseline) => results.has(baseline.name));
  const ratioRows: string[][] = [
    [
      'ratio of medians',
      ...ratioFigures.flatMap((f) =>
        baselines.map((baseline, index) => (index === 0 ? `${f.title} ${baseline.short}` : baseline.short)),
      ),
    ],
  ];
  const medianOf = (name: string, figure: Figure) => median((results.get(name) ?? []).map(figure.of));
  for (const name of names) {
    ratioRows.push([
      name,
      ...ratioFigures.flatMap((figure) =>
        baselines.map(
          (baseline) => `${(medianOf(name, figure) / medianOf(baseline.name, figure)).toFixed(2)}×`,
        ),
      ),
    ]);
  }
  console.log(table(ratioRows));
  printMounts(n, results);
}

/**
 * The mounts compared (issue 30: the embedded handler streams with the same CPU per delta as the
 * standalone server): each contender of a pair against the other, by the ratio of their medians and
 * by the median (and range) of the per-batch ratios, each batch against the other's batch of the same
 * round, which ran next to it.
 */
const MOUNT_PAIRS = [
  { name: RUNSTREAM_EMBEDDED, against: RUNSTREAM },
  { name: RUNSTREAM_WEB_STANDARD, against: RUNSTREAM },
  { name: RUNSTREAM_WEB_STANDARD, against: RUNSTREAM_EMBEDDED },
] as const;

const MOUNT_FIGURES = ['server CPU µs/delta', 'first event ms', 'events/s'] as const;

/** Per concurrency and pair, the ratio of medians of each mount figure, for the closing summary. */
const mountSummary = new Map<number, Map<string, Map<string, number>>>();

function printMounts(n: number, results: ReadonlyMap<string, Measurement[]>): void {
  const pairs = MOUNT_PAIRS.filter((pair) => results.has(pair.name) && results.has(pair.against));
  if (pairs.length === 0) return;
  const figures = MOUNT_FIGURES.map((title) => FIGURES.find((figure) => figure.title === title) as Figure);
  const ratio = (value: number) => `${value.toFixed(2)}×`;
  const rows: string[][] = [
    [
      'mount ÷ mount',
      ...figures.map((figure) => `${figure.title}: ÷ of medians · per-batch ÷ med (min–max)`),
    ],
  ];
  const summary = new Map<string, Map<string, number>>();
  mountSummary.set(n, summary);
  for (const pair of pairs) {
    const mine = results.get(pair.name) ?? [];
    const theirs = results.get(pair.against) ?? [];
    const label = `${pair.name} ÷ ${pair.against}`;
    const byFigure = new Map<string, number>();
    summary.set(label, byFigure);
    rows.push([
      label,
      ...figures.map((figure) => {
        const ofMedians = median(mine.map(figure.of)) / median(theirs.map(figure.of));
        byFigure.set(figure.title, ofMedians);
        const perBatch = mine.flatMap((measurement, index) => {
          const other = theirs[index];
          return other === undefined ? [] : [figure.of(measurement) / figure.of(other)];
        });
        return (
          `${ratio(ofMedians)} · ${ratio(median(perBatch))} ` +
          `(${ratio(Math.min(...perBatch))}–${ratio(Math.max(...perBatch))})`
        );
      }),
    ]);
  }
  console.log(table(rows));
}

/** All concurrencies side by side: the mount pairs' ratios of medians. */
function printMountSummary(): void {
  const concurrencies = [...mountSummary.keys()];
  const labels = [...(mountSummary.get(concurrencies[0] ?? 0)?.keys() ?? [])];
  if (labels.length === 0) return;
  const titles = ['server CPU µs/delta', 'first event ms'] as const;
  console.log('\n── the mounts against each other · ratio of medians at 1 / 10 / 100 concurrent streams ──');
  const rows: string[][] = [
    [
      'mount ÷ mount',
      ...titles.flatMap((title) =>
        concurrencies.map((n, index) => (index === 0 ? `${title} ×${n}` : `×${n}`)),
      ),
    ],
  ];
  for (const label of labels)
    rows.push([
      label,
      ...titles.flatMap((title) =>
        concurrencies.map(
          (n) => `${(mountSummary.get(n)?.get(label)?.get(title) ?? Number.NaN).toFixed(2)}×`,
        ),
      ),
    ]);
  console.log(table(rows));
}

/** Resume requests timed one after another, and the seq they resume after. */
const RESUME_SAMPLES = 50;
const RESUME_AFTER_SEQ = 1_000;

/**
 * Time to the first replayed event of a resume: `GET /v1/runs/{id}/events` with `Last-Event-ID`
 * on a run that finished (its log still in the server's memory), from the request to the first frame
 * (the `retry:` frame and the first replayed events leave in one write). Each replay is read whole.
 */
async function measureResume(
  client: LoadClient,
  target: { url: string; authorization: string; runId: string; expected: Expected },
): Promise<{ p50: number; p90: number; min: number }> {
  const samples: number[] = [];
  const replayed = target.expected.events - RESUME_AFTER_SEQ;
  for (let index = 0; index < RESUME_SAMPLES; index += 1) {
    const result = await client.run([
      {
        url: `${target.url}/v1/runs/${target.runId}/events`,
        method: 'GET',
        headers: { authorization: target.authorization, 'last-event-id': String(RESUME_AFTER_SEQ) },
      },
    ]);
    const stream = result.streams[0];
    // The replayed events (the last is `done`), after the `retry:` frame.
    if (stream === undefined || stream.status !== 200 || !stream.sawDone || stream.frames !== replayed + 1)
      throw new Error(
        `a resume was not read whole (status ${stream?.status}, ${stream?.frames}/${replayed + 1} frames)`,
      );
    samples.push(stream.firstEventMs);
  }
  return { p50: percentile(samples, 0.5), p90: percentile(samples, 0.9), min: Math.min(...samples) };
}

// ---------------------------------------------------------------------------------------------------
// The benchmark

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'runstream-bench-compare-'));
  const servers: ServerChild[] = [];
  let client: LoadClient | undefined;
  const cleanUp = async () => {
    await Promise.allSettled([...servers.map((server) => server.stop()), client?.stop()]);
    rmSync(dataDir, { recursive: true, force: true });
  };
  const onSignal = (signal: NodeJS.Signals) => {
    void cleanUp().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const aiSdk = prepareAiSdk();
    const cpu = cpus();
    console.log(
      `machine: ${cpu[0]?.model ?? 'unknown CPU'} × ${cpu.length} · node ${process.version}` +
        (aiSdk
          ? ` (AI SDK: node ${aiSdkNodeVersion()} from the npm package in bench/compare/ai-sdk)`
          : ' (all contenders)') +
        ' · ' +
        (hasTaskset
          ? `taskset: servers on core ${SERVER_CORE}, client on core ${CLIENT_CORE}`
          : 'taskset: not used (missing or < 2 cores), the OS schedules servers and client'),
    );
    const runstreamTurns =
      2 + WARM_UP_BATCHES * WARM_UP_STREAMS + CONCURRENCY.reduce((sum, n) => sum + n * REPETITIONS[n], 0);
    client = new LoadClient();
    for (const contender of contenders(aiSdk)) {
      servers.push(
        new ServerChild(
          contender.name,
          contender.command({ dataDir, turns: runstreamTurns }),
          contender.streams ?? RUN_EVENT_SSE,
        ),
      );
    }
    await Promise.all(servers.map((server) => server.url));
    const runstream = servers.find((server) => server.name === RUNSTREAM);
    if (!runstream) throw new Error('the runstream contender is missing');

    // The workload: one real runstream run, captured as events and given to every contender.
    const probeRequests = await runstream.call<ClientRequest[]>({ method: 'prepare', n: 1 });
    const probe = await client.run(probeRequests);
    const probeRunId = probe.streams[0]?.runId;
    if (!probeRunId) throw new Error(`the first run did not start (status ${probe.streams[0]?.status})`);
    const workload: Workload = {
      retryMs: RETRY_MS,
      events: await runstream.call({ method: 'events', runId: probeRunId }),
    };
    const workloadFile = join(dataDir, 'workload.json');
    writeFileSync(workloadFile, JSON.stringify(workload));
    await Promise.all(servers.map((server) => server.call({ method: 'workload', file: workloadFile })));
    const bytes = workload.events.reduce(
      (sum, event, index) =>
        sum + Buffer.byteLength(encodeRunEventSse(event, index === 0 ? { retry: RETRY_MS } : {})),
      0,
    );
    const deltaEvents = workload.events.filter((event) => event.type === 'block.delta');
    const expected: Expected = {
      frames: workload.events.length,
      bytes,
      events: workload.events.length,
      deltas: deltaEvents.length,
      deltaTextBytes: deltaEvents.reduce((sum, event) => sum + Buffer.byteLength(event.text), 0),
    };
    checkStreams(probe.streams, 1, expected, RUN_EVENT_SSE, 'runstream probe');
    console.log(
      `workload: one run = ${expected.events.toLocaleString('en')} events (${expected.deltas.toLocaleString('en')} ` +
        `answer deltas of ${CHUNK_SIZE} CJK characters), ${(bytes / 1024).toFixed(0)} KB of SSE; scripted model, ` +
        'no delay; runstream on a SQLite file (WAL)',
    );

    // Warm-up (untimed), round-robin like the measured batches.
    for (let batch = 0; batch < WARM_UP_BATCHES; batch += 1) {
      for (const server of servers) await measure(server, client, WARM_UP_STREAMS, expected);
    }

    const started = performance.now();
    for (const n of CONCURRENCY) {
      const results = new Map<string, Measurement[]>(servers.map((server) => [server.name, []]));
      for (let rep = 0; rep < REPETITIONS[n]; rep += 1) {
        // Round-robin, starting with a different contender each repetition so no one always goes first.
        for (let turn = 0; turn < servers.length; turn += 1) {
          const server = servers[(rep + turn) % servers.length] as ServerChild;
          results.get(server.name)?.push(await measure(server, client, n, expected));
        }
      }
      printConcurrency(n, results);
    }
    const seconds = (performance.now() - started) / 1000;
    printMountSummary();
    // A fresh run to resume: the probe's copy left memory long ago (finished copies are kept within
    // an event budget), and a resume of it is answered with a snapshot from the store.
    const toResume = await client.run(await runstream.call<ClientRequest[]>({ method: 'prepare', n: 1 }));
    const resumed = await measureResume(client, {
      url: await runstream.url,
      authorization: probeRequests[0]?.headers.authorization ?? '',
      runId: toResume.streams[0]?.runId ?? '',
      expected,
    });

    console.log(
      `\n── resume · runstream · ${RESUME_SAMPLES} requests one after another ──\n` +
        `GET /v1/runs/{id}/events with Last-Event-ID ${RESUME_AFTER_SEQ} on a finished run: first replayed event ` +
        `p50 ${resumed.p50.toFixed(2)} ms, p90 ${resumed.p90.toFixed(2)} ms (min ${resumed.min.toFixed(2)}); every ` +
        'replay checked whole (the events after the id, then done)',
    );
    console.log(
      `\n${seconds.toFixed(1)} s measured (after ${WARM_UP_BATCHES} warm-up batches of ${WARM_UP_STREAMS} per contender). ` +
        'Every stream of every batch was checked read whole: all frames, ending with `done`, the bytes of the run.',
    );
    console.log(
      'server CPU µs/delta: the server process’s own CPU (user + system, all its threads: V8 GC, libuv, ' +
        'SQLite) from just before the batch until its runs were settled (runstream: persisted), over the ' +
        'answer deltas delivered to all clients; the other events ride along. events/s: all events of all ' +
        'N streams over the time until the last stream ended, measured by the client. first event: median ' +
        'over the N streams of the time from starting all requests to the first complete frame. peak RSS: ' +
        `the server process’s VmRSS sampled from /proc every ${RSS_SAMPLE_MS} ms during the batch (absolute, ` +
        "including Node, the tsx loader and what each server loads, so the baselines' ~100 MB is mostly not " +
        'theirs); RSS growth: peak minus the RSS just before the batch, 0 when the batch reused ' +
        "pages an earlier one freed; RSS after: the child's own process.memoryUsage().rss after the batch (its " +
        "runs settled), so after > the previous batch's means memory kept across batches. Ratios: median ÷ " +
        'median of the baseline (÷pre = raw pre-encoded, ÷str = raw stringify, ÷ai = the AI SDK); for CPU, ' +
        'first event and RSS lower is better, for events/s higher is. The raw servers ' +
        'write each response until the socket pushes back before turning to the next, so with N > 1 their ' +
        "first event waits behind other streams' bursts: their high first-event figure there is greedy " +
        'writing (good for throughput), not a slow server; runstream interleaves streams.',
    );
    console.log(
      'runstream Responses: the same server, model and run through POST /v1/responses with stream: true; ' +
        'its frames are OpenAI-style events (64% more bytes for this run). Its streams were checked whole by ' +
        `counting: one response.output_text.delta per answer delta, ${RESPONSES_FRAMES_BESIDE_DELTAS} more ` +
        'frames around them, response.completed exactly once, at least the text’s bytes. ÷rs: against ' +
        'runstream’s native stream.',
    );
    console.log(
      'The mounts, one runstream (the same options, agent, scripted model and SQLite store) served three ' +
        'ways, every one through node:http: runstream = standalone, createRunstream + serve() from ' +
        'runstream/node (what `runstream serve` runs: the store’s bearer tokens, the Node fast path); ' +
        'runstream embedded = toNodeHandler(runstream) in http.createServer, basePath /support and an ' +
        'authenticate reading the host’s session header (fast path on); runstream web-standard = the ' +
        'embedded runstream’s fetch behind @hono/node-server’s getRequestListener((request) => ' +
        'runstream.fetch(request)): no { incoming, outgoing } reaches it, so streams are Web ' +
        'ReadableStreams piped into the socket, as under Hono, Next.js or another runtime. Mount tables: ' +
        '“÷ of medians” divides the two contenders’ medians; “per-batch ÷” divides each batch by the ' +
        'other’s batch of the same round (they ran next to each other), its median and range.',
    );
    if (aiSdk) {
      console.log(
        `AI SDK: \`ai\` ${aiSdkPinned().ai} on node ${aiSdkNodeVersion()}: streamText on its MockLanguageModelV4 ` +
          '(the answer deltas as text-delta parts, all ready at once), written by pipeUIMessageStreamToResponse. ' +
          'Its streams were checked whole differently: one `text-delta` chunk per answer delta, ' +
          `${UI_MESSAGE_STREAM_FRAMES_BESIDE_DELTAS} more frames around them, the last \`data: [DONE]\`, at ` +
          'least the text’s bytes; its events/s counts those frames. It runs on Node 22, the others on this ' +
          'Node, so its figures include that runtime’s differences too (RSS most). Its late first event is ' +
          'how its pipeline meets a model whose parts are all ready: the web streams it is built on hand ' +
          'chunks on in microtasks, and node:http corks the socket at the first write until the next tick, so ' +
          'nothing leaves before write() reports a full buffer (64 KiB on Node 22, about half of this stream); ' +
          'with a real model’s pacing the first chunk would leave at once. Its CPU per delta does not depend ' +
          'on that.',
      );
    }
    console.log(
      'Noisy shared machine: compare the ratios, not the absolute figures, and only roughly. With 2 cores ' +
        'the client gets one core: where it is the limit, events/s hides server differences (CPU/delta does not).',
    );
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await cleanUp();
  }
}

await main();
