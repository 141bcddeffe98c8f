/**
 * `npm run bench:server`: one run of 2,000 answer deltas (the scripted model, no delay, so the server
 * is the bottleneck) streamed to 1, 10 and 100 concurrent clients over loopback, from the real server
 * (`createApp` on `@hono/node-server`, `RunManager`, a SQLite file), next to a raw `node:http` server
 * that writes the same events, encoded once up front with `encodeRunEventSse`, respecting backpressure.
 * Both servers live in this process; the load client is a child process (`server-bench-client.ts`),
 * so this process's CPU time and RSS are the servers'. Prints time to first event, events/s, server
 * CPU per frame and peak RSS per open stream, and the ratio to the raw server measured in the same
 * run. Asserts only that every stream was read whole (so it cannot time a broken server), never a time.
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { serve } from '@hono/node-server';
import { ScriptedChatModel, textTurn } from '../src/models/index.ts';
import { encodeRunEventSse, type RunEvent, SSE_CONTENT_TYPE } from '../src/protocol/index.ts';
import { RunManager } from '../src/runtime/index.ts';
import { testAgent } from '../src/runtime/test-support/test-agent.ts';
import { createApp, RETRY_MS } from '../src/server/index.ts';
import { openDatabase, SqliteRunStore } from '../src/store/index.ts';
import type { BatchMessage, BatchResult, ClientRequest, StreamResult } from './server-bench-client.ts';

const DELTAS = 2_000;
/** Characters per `text-delta`: a few CJK characters, like a model's tokens. */
const CHUNK_SIZE = 4;
const CONCURRENCY = [1, 10, 100] as const;
/** Repetitions per concurrency and case, interleaved raw / runstream; fewer where a round is long. */
const ROUNDS: Record<(typeof CONCURRENCY)[number], number> = { 1: 9, 10: 5, 100: 3 };
const RSS_SAMPLE_MS = 20;
/** A bound on every batch, so a stuck server cannot hang the benchmark. */
const BATCH_TIMEOUT_MS = 30_000;

type CaseName = 'raw node:http' | 'runstream';

interface Measurement {
  headersMs: number[];
  firstEventMs: number[];
  eventsPerSecond: number;
  cpuMicrosPerFrame: number;
  /** Event-loop utilisation of the servers' thread over the batch: near 1 means the server is the limit. */
  loopBusy: number;
  rssPerStreamBytes: number;
}

// ---------------------------------------------------------------------------------------------------
// Helpers

function percentile(samples: readonly number[], fraction: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? Number.NaN;
}

const median = (samples: readonly number[]) => percentile(samples, 0.5);

const answerText = (() => {
  const phrase = '您好，订单已发货，预计明天送达。';
  return phrase.repeat(Math.ceil((DELTAS * CHUNK_SIZE) / phrase.length)).slice(0, DELTAS * CHUNK_SIZE);
})();

/** Peak RSS of this process, sampled from a worker thread so a busy main thread cannot hide a peak. */
class RssSampler {
  readonly #worker: Worker;
  #pending: ((peak: number) => void)[] = [];

  constructor() {
    this.#worker = new Worker(
      `const { parentPort } = require('node:worker_threads');
       let peak = process.memoryUsage.rss();
       setInterval(() => { peak = Math.max(peak, process.memoryUsage.rss()); }, ${RSS_SAMPLE_MS});
       parentPort.on('message', (command) => {
         const now = process.memoryUsage.rss();
         peak = Math.max(peak, now);
         parentPort.postMessage({ peak, now });
         if (command === 'reset') peak = now;
       });`,
      { eval: true },
    );
    this.#worker.on('message', ({ peak }: { peak: number }) => this.#pending.shift()?.(peak));
  }

  /** The peak since the last reset, and starts a new window at the current RSS. */
  reset(): Promise<number> {
    return this.#ask('reset');
  }

  peak(): Promise<number> {
    return this.#ask('read');
  }

  #ask(command: string): Promise<number> {
    return new Promise((resolve) => {
      this.#pending.push(resolve);
      this.#worker.postMessage(command);
    });
  }

  async close(): Promise<void> {
    await this.#worker.terminate();
  }
}

/** The load client in a child process; one batch at a time. */
class LoadClient {
  readonly #child = fork(new URL('./server-bench-client.ts', import.meta.url), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  #nextId = 1;

  run(requests: ClientRequest[]): Promise<BatchResult> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#child.off('message', onMessage);
        reject(new Error(`batch of ${requests.length} streams did not finish in ${BATCH_TIMEOUT_MS} ms`));
      }, BATCH_TIMEOUT_MS);
      const onMessage = (message: BatchResult) => {
        if (message.type !== 'result' || message.id !== id) return;
        clearTimeout(timer);
        this.#child.off('message', onMessage);
        resolve(message);
      };
      this.#child.on('message', onMessage);
      const batch: BatchMessage = { type: 'batch', id, requests };
      this.#child.send(batch);
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.#child.exitCode !== null) {
        resolve();
        return;
      }
      this.#child.once('exit', () => resolve());
      this.#child.disconnect();
    });
  }
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** The baseline: per request, the same pre-encoded frames, waiting for 'drain' when a write says so. */
function rawServer(frames: readonly Buffer[]): Server {
  return createServer((request, response) => {
    request.resume();
    response.writeHead(200, {
      'content-type': `${SSE_CONTENT_TYPE}; charset=utf-8`,
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
    });
    response.flushHeaders();
    let index = 0;
    let closed = false;
    response.on('close', () => {
      closed = true;
    });
    const writeSome = () => {
      while (index < frames.length && !closed) {
        const ok = response.write(frames[index] as Buffer);
        index += 1;
        if (!ok) {
          response.once('drain', writeSome);
          return;
        }
      }
      if (!closed) response.end();
    };
    writeSome();
  });
}

/** Every stream read whole: the frames of one run, ending with `done`, about the bytes of the baseline. */
function checkStreams(
  streams: readonly StreamResult[],
  expected: { frames: number; bytes: number },
  label: string,
): void {
  for (const stream of streams) {
    if (
      stream.error !== undefined ||
      stream.status !== 200 ||
      // runstream sends its `retry:` as a frame of its own before the events.
      (stream.frames !== expected.frames && stream.frames !== expected.frames + 1) ||
      !stream.sawDone ||
      // Ids and timestamps may differ by a digit; the payload may not.
      Math.abs(stream.bytes - expected.bytes) > expected.bytes * 0.01
    ) {
      throw new Error(
        `${label}: a stream was not read whole (status ${stream.status}, ${stream.frames}/${expected.frames} ` +
          `frames, ${stream.bytes}/${expected.bytes} bytes, done ${stream.sawDone}` +
          `${stream.error ? `, ${stream.error}` : ''})`,
      );
    }
  }
}

const collectGarbage = async () => {
  for (let pass = 0; pass < 2; pass += 1) {
    global.gc?.();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

// ---------------------------------------------------------------------------------------------------
// The benchmark

async function main(): Promise<void> {
  if (global.gc === undefined) console.warn('(run with --expose-gc for steadier memory figures)');
  const directory = mkdtempSync(join(tmpdir(), 'runstream-bench-server-'));
  const sampler = new RssSampler();
  const client = new LoadClient();
  // The first run (whose events the baseline encodes), 10 warm-up runs, then the measured ones.
  const totalTurns = 1 + 10 + CONCURRENCY.reduce((sum, n) => sum + n * ROUNDS[n], 0);
  // One turn per run; the same part list for every turn (the model copies each part it streams).
  const turn = textTurn(answerText, { chunkSize: CHUNK_SIZE });
  const database = openDatabase(join(directory, 'runstream.db'));
  const store = new SqliteRunStore(database);
  const runs = new RunManager({
    agents: [
      testAgent({
        model: new ScriptedChatModel(new Array(totalTurns).fill(turn)),
        tools: [],
        skills: [],
        instructions: '你是客服。',
      }),
    ],
    store,
  });
  const appServer = serve({ fetch: createApp({ store, runs }).fetch, port: 0, hostname: '127.0.0.1' });
  let raw: Server | undefined;
  try {
    console.log(`node ${process.version} · ${cpus()[0]?.model ?? 'unknown CPU'} · ${cpus().length} cores`);
    const user = await store.createUser('bench');
    const token = await store.issueToken(user.id);
    await new Promise((resolve) => appServer.once('listening', resolve));
    const appUrl = `http://127.0.0.1:${(appServer.address() as AddressInfo).port}`;

    const startRuns = async (n: number): Promise<ClientRequest[]> => {
      const requests: ClientRequest[] = [];
      for (let index = 0; index < n; index += 1) {
        const conversation = await store.createConversation(user.id, '新对话');
        requests.push({
          url: `${appUrl}/v1/conversations/${conversation.id}/messages`,
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ text: '我的订单发货了吗？' }),
        });
      }
      return requests;
    };
    /** Waits until every run of a batch is persisted, so its writes do not spill into the next case. */
    const settle = async (streams: readonly StreamResult[]) => {
      for (const stream of streams) if (stream.runId) await runs.settled(stream.runId);
    };

    // The events of one real run, to encode once for the baseline (and a first warm-up).
    const first = await client.run(await startRuns(1));
    await settle(first.streams);
    const firstRunId = first.streams[0]?.runId;
    if (!firstRunId) throw new Error(`the first run did not start (status ${first.streams[0]?.status})`);
    const logged = (await runs.logOf(user.id, firstRunId)).since(0);
    if ('snapshot' in logged) throw new Error('the run log no longer holds the first run');
    const events: RunEvent[] = [...logged.events, { type: 'done', runId: firstRunId, at: Date.now() }];
    const frames = events.map((event, index) =>
      Buffer.from(encodeRunEventSse(event, index === 0 ? { retry: RETRY_MS } : {})),
    );
    const expectedFrames = frames.length;
    const frameBytes = frames.reduce((sum, frame) => sum + frame.byteLength, 0);
    const expected = { frames: expectedFrames, bytes: frameBytes };
    checkStreams(first.streams, expected, 'runstream warm-up');
    const deltaCount = events.filter((event) => event.type === 'block.delta').length;
    console.log(
      `workload: one run = ${expectedFrames.toLocaleString('en')} SSE frames (${deltaCount.toLocaleString('en')} ` +
        `answer deltas of ${CHUNK_SIZE} CJK characters), ${(frameBytes / 1024).toFixed(0)} KB, ` +
        `${(frameBytes / expectedFrames).toFixed(0)} B/frame; scripted model, no delay; SQLite file (WAL)`,
    );
    raw = rawServer(frames);
    const rawUrl = await listen(raw);
    const rawRequests = (n: number): ClientRequest[] =>
      Array.from({ length: n }, () => ({
        url: `${rawUrl}/stream`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: '我的订单发货了吗？' }),
      }));

    const measure = async (name: CaseName, n: number): Promise<Measurement> => {
      const requests = name === 'runstream' ? await startRuns(n) : rawRequests(n);
      await collectGarbage();
      const baseline = await sampler.reset();
      const cpuBefore = process.cpuUsage();
      const loopBefore = performance.eventLoopUtilization();
      const result = await client.run(requests);
      const cpu = process.cpuUsage(cpuBefore);
      const loop = performance.eventLoopUtilization(loopBefore);
      const peak = await sampler.peak();
      checkStreams(result.streams, expected, `${name} × ${n}`);
      await settle(result.streams);
      const totalFrames = n * expectedFrames;
      const lastEnd = Math.max(...result.streams.map((stream) => stream.endMs));
      return {
        headersMs: result.streams.map((stream) => stream.headersMs),
        firstEventMs: result.streams.map((stream) => stream.firstEventMs),
        eventsPerSecond: totalFrames / (lastEnd / 1000),
        cpuMicrosPerFrame: (cpu.user + cpu.system) / totalFrames,
        loopBusy: loop.utilization,
        rssPerStreamBytes: Math.max(0, peak - baseline) / n,
      };
    };

    // Warm-up (untimed): both servers at 10 streams, so the JIT has compiled the hot paths.
    await measure('raw node:http', 10);
    await measure('runstream', 10);

    const rows: string[][] = [];
    const started = performance.now();
    for (const n of CONCURRENCY) {
      const results: Record<CaseName, Measurement[]> = { 'raw node:http': [], runstream: [] };
      for (let round = 0; round < ROUNDS[n]; round += 1) {
        const order: CaseName[] =
          round % 2 === 0 ? ['raw node:http', 'runstream'] : ['runstream', 'raw node:http'];
        for (const name of order) results[name].push(await measure(name, n));
      }
      const rawRate = median(results['raw node:http'].map((m) => m.eventsPerSecond));
      for (const name of ['raw node:http', 'runstream'] as const) {
        const measured = results[name];
        const firstEvents = measured.flatMap((m) => m.firstEventMs);
        const rate = median(measured.map((m) => m.eventsPerSecond));
        const ratios = measured.map(
          (m, round) => m.eventsPerSecond / (results['raw node:http'][round]?.eventsPerSecond ?? Number.NaN),
        );
        const kilobytes = (bytes: number) => (bytes / 1024).toFixed(0);
        rows.push([
          String(n),
          name,
          percentile(
            measured.flatMap((m) => m.headersMs),
            0.5,
          ).toFixed(1),
          percentile(firstEvents, 0.5).toFixed(1),
          percentile(firstEvents, 0.95).toFixed(1),
          Math.round(rate).toLocaleString('en'),
          median(measured.map((m) => m.cpuMicrosPerFrame)).toFixed(1),
          `${(median(measured.map((m) => m.loopBusy)) * 100).toFixed(0)} %`,
          `${kilobytes(median(measured.map((m) => m.rssPerStreamBytes)))} ` +
            `(${kilobytes(Math.max(...measured.map((m) => m.rssPerStreamBytes)))})`,
          name === 'runstream'
            ? `${(rate / rawRate).toFixed(2)}× (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`
            : '1.00×',
        ]);
      }
    }
    const seconds = (performance.now() - started) / 1000;

    const header = [
      'N',
      'case',
      'headers p50 ms',
      'first event p50 ms',
      'p95 ms',
      'events/s total',
      'CPU µs/frame',
      'loop busy',
      'peak RSS/stream KB (max)',
      'events/s vs raw (rounds)',
    ];
    const widths = header.map((title, column) =>
      Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
    );
    const line = (cells: readonly string[]) =>
      cells
        .map((cell, column) => (column < 2 ? cell.padEnd : cell.padStart).call(cell, widths[column] ?? 0))
        .join('  ');
    console.log();
    console.log(line(header));
    for (const row of rows) console.log(line(row));
    console.log();
    console.log(
      `rounds per case: ${CONCURRENCY.map((n) => `N=${n}: ${ROUNDS[n]}`).join(', ')}, raw and runstream interleaved; ` +
        `medians over rounds, first-event percentiles over every stream of every round; ${seconds.toFixed(1)} s timed.`,
    );
    console.log(
      'First event: from starting all N requests at once to the first complete frame of each stream. ' +
        'Headers: to the response headers. Events/s: all frames of all N streams over the time until the last ' +
        'stream ended. CPU: this process, all threads (both servers, V8 GC helpers, the samplers; the client ' +
        "is a child process), per frame written. Loop busy: event-loop utilisation of the servers' thread " +
        'over the batch (near 100 % = the server is the limit; well below = the client or the scheduler ' +
        'is). Peak RSS: sampled every ' +
        `${RSS_SAMPLE_MS} ms from a worker thread, peak minus the RSS after a GC before the round, over N; ` +
        'median of rounds (max). RSS rarely shrinks, so a round can reuse pages an earlier one freed and read ' +
        'low, even 0: trust the larger figures more than the small ones.',
    );
    console.log(
      'Ratios are from the same run on a noisy shared machine (2 cores: servers and client compete); compare ' +
        'them, not the absolute figures, and only roughly.',
    );
  } finally {
    await runs.close();
    await closeServer(appServer as Server);
    if (raw) await closeServer(raw);
    await client.close();
    await sampler.close();
    database.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

await main();
