/**
 * `npm run bench:load` (issue #13 §5): one instance as `npm start` runs it (SQLite, the offline demo
 * model) under load from another process, over real loopback HTTP:
 *
 * 1. 1,000 runs started at once, each read to its end: how many complete, errors, wall time.
 * 2. 10,000 streams held open at once, following 20 slow runs, then released by stopping the runs.
 *
 * For each phase the server's RSS and event-loop delay (p50, p99, max, from a preloaded probe,
 * `load/loop-probe.mjs`) are printed next to the same server idle, the baseline measured in the same
 * run, since these machines are shared and noisy. Per-user limits are off: one user drives it all.
 */
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type ServerProcess, startServerProcess } from '../src/server/test-support/server-process.ts';

const TOKEN = 'load-bench-demo-token';
const QUESTION = '退货政策是什么？';
const RUNS = Number(process.env.LOAD_RUNS ?? 1000);
const STREAMS = Number(process.env.LOAD_STREAMS ?? 10_000);
const SLOW_RUNS = 20;
const HOLD_MS = 10_000;
const PROBE = pathToFileURL(fileURLToPath(new URL('./load/loop-probe.mjs', import.meta.url))).href;

// Node's fetch opens as many connections to one origin as are asked for (undici's default pool has
// no limit), so thousands of streams need no agent of their own.

interface ServerStats {
  rss: number;
  loopDelayP50Ms: number;
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

async function startServer(delayMs: number): Promise<ServerProcess> {
  return startServerProcess(
    {
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${PROBE}`.trim(),
      RUNSTREAM_DB: `${process.env.TMPDIR ?? '/tmp'}/runstream-load-${process.pid}-${delayMs}.db`,
      RUNSTREAM_DEMO_TOKEN: TOKEN,
      RUNSTREAM_DEMO_DELAY_MS: String(delayMs),
      RUNSTREAM_RATE_LIMIT: '0',
      RUNSTREAM_MAX_RUNNING_RUNS: '0',
      RUNSTREAM_DATABASE_URL: '',
      RUNSTREAM_REDIS_URL: '',
      RUNSTREAM_MODEL: '',
      RUNSTREAM_EMBEDDER: '',
      RUNSTREAM_EMBEDDING_MODEL: '',
    },
    120_000,
  );
}

/** The probe's stats since the last call (it resets at each). */
async function stats(server: ServerProcess): Promise<ServerStats> {
  const marker = '{"benchLoad":';
  const count = () => server.output().split(marker).length;
  const before = count();
  process.kill(server.child.pid ?? 0, 'SIGUSR2');
  const deadline = Date.now() + 10_000;
  while (count() === before) {
    if (Date.now() > deadline) throw new Error('the server did not report its stats');
    await sleep(10);
  }
  const output = server.output();
  return (
    JSON.parse(output.slice(output.lastIndexOf(marker)).split('\n')[0] ?? '') as { benchLoad: ServerStats }
  ).benchLoad;
}

/** Samples stats every second while `work` runs: the peak RSS and the worst p99 and max. */
async function underLoad<T>(
  server: ServerProcess,
  work: () => Promise<T>,
): Promise<{ result: T; peak: ServerStats }> {
  await stats(server);
  const peak: ServerStats = { rss: 0, loopDelayP50Ms: 0, loopDelayP99Ms: 0, loopDelayMaxMs: 0 };
  const take = (sample: ServerStats) => {
    peak.rss = Math.max(peak.rss, sample.rss);
    peak.loopDelayP50Ms = Math.max(peak.loopDelayP50Ms, sample.loopDelayP50Ms);
    peak.loopDelayP99Ms = Math.max(peak.loopDelayP99Ms, sample.loopDelayP99Ms);
    peak.loopDelayMaxMs = Math.max(peak.loopDelayMaxMs, sample.loopDelayMaxMs);
  };
  let running = true;
  const sampler = (async () => {
    while (running) {
      await sleep(1000);
      if (running) take(await stats(server));
    }
  })();
  try {
    const result = await work();
    take(await stats(server));
    return { result, peak };
  } finally {
    running = false;
    await sampler;
  }
}

function api(server: ServerProcess, path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...init.headers },
  });
}

async function inBatches<T>(count: number, size: number, make: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  for (let start = 0; start < count; start += size) {
    results.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(size, count - start) }, (_, i) => make(start + i)),
      )),
    );
  }
  return results;
}

async function newConversation(server: ServerProcess): Promise<string> {
  const response = await api(server, '/v1/conversations', { method: 'POST', body: '{}' });
  return ((await response.json()) as { id: string }).id;
}

/** Reads an SSE body to its end; the last `run.finished` frame's status, or what went wrong. */
async function finishedStatus(response: Response): Promise<string> {
  if (response.status !== 200 || response.body === null) return `http ${response.status}`;
  const text = await response.text();
  const finished = text.lastIndexOf('event: run.finished');
  if (finished === -1) return 'no run.finished';
  return /"status":"(\w+)"/.exec(text.slice(finished))?.[1] ?? 'no status';
}

function line(label: string, value: ServerStats, idle: ServerStats): string {
  return (
    `${label.padEnd(34)} RSS ${mb(value.rss).padStart(7)} (×${(value.rss / idle.rss).toFixed(2)} idle)   ` +
    `loop delay p50 ${value.loopDelayP50Ms} ms, p99 ${value.loopDelayP99Ms} ms, max ${value.loopDelayMaxMs} ms`
  );
}

/** The server idle once it has settled after start-up: the baseline each phase is printed against. */
async function idleBaseline(server: ServerProcess): Promise<ServerStats> {
  await sleep(2000);
  await stats(server);
  await sleep(3000);
  const idle = await stats(server);
  console.log(line('idle (baseline)', idle, idle));
  return idle;
}

async function concurrentRuns(): Promise<void> {
  const server = await startServer(30);
  try {
    const idle = await idleBaseline(server);
    const conversations = await inBatches(RUNS, 100, () => newConversation(server));
    const started = performance.now();
    const { result: outcomes, peak } = await underLoad(server, () =>
      Promise.all(
        conversations.map(async (conversationId) => {
          try {
            const response = await api(server, `/v1/conversations/${conversationId}/messages`, {
              method: 'POST',
              body: JSON.stringify({ text: QUESTION }),
            });
            return await finishedStatus(response);
          } catch (error) {
            return `error: ${(error as Error).message}`;
          }
        }),
      ),
    );
    const seconds = (performance.now() - started) / 1000;
    const tally = new Map<string, number>();
    for (const outcome of outcomes) tally.set(outcome, (tally.get(outcome) ?? 0) + 1);
    console.log(line(`${RUNS} concurrent runs (peak)`, peak, idle));
    console.log(
      `  ${RUNS} runs in ${seconds.toFixed(1)} s: ${[...tally].map(([outcome, n]) => `${n} ${outcome}`).join(', ')}; ` +
        `errors: ${RUNS - (tally.get('completed') ?? 0)}; server problem lines: ${problemLines(server)}`,
    );
  } finally {
    await server.stop();
  }
}

async function openStreams(): Promise<void> {
  // Slow runs: each part waits 500 ms, so the runs stream for longer than the streams are held.
  const server = await startServer(500);
  try {
    const idle = await idleBaseline(server);
    const runIds: string[] = [];
    const starters: Promise<string>[] = [];
    for (let index = 0; index < SLOW_RUNS; index += 1) {
      const response = await api(server, `/v1/conversations/${await newConversation(server)}/messages`, {
        method: 'POST',
        body: JSON.stringify({ text: QUESTION }),
      });
      runIds.push(response.headers.get('x-runstream-run-id') ?? '');
      starters.push(finishedStatus(response));
    }
    let open = 0;
    let refused = 0;
    const endings: Promise<string>[] = [];
    const { peak } = await underLoad(server, async () => {
      await inBatches(STREAMS, 500, async (index) => {
        try {
          const response = await api(server, `/v1/runs/${runIds[index % SLOW_RUNS]}/events`);
          if (response.status !== 200) {
            refused += 1;
            await response.body?.cancel();
            return;
          }
          open += 1;
          endings.push(finishedStatus(response).catch((error: Error) => `error: ${error.message}`));
        } catch {
          refused += 1;
        }
      });
      await sleep(HOLD_MS);
    });
    console.log(line(`${STREAMS} open streams (peak)`, peak, idle));
    const released = performance.now();
    await Promise.all(
      runIds.map((runId) => api(server, `/v1/runs/${runId}/cancel`, { method: 'POST', body: '{}' })),
    );
    const ends = await Promise.all([...endings, ...starters]);
    const cancelled = ends.filter((end) => end === 'cancelled').length;
    console.log(
      `  ${open} streams open (held ${HOLD_MS / 1000} s), ${refused} refused or failed; after a stop of the ${SLOW_RUNS} runs ` +
        `${cancelled}/${ends.length} streams ended cancelled in ${((performance.now() - released) / 1000).toFixed(1)} s; ` +
        `server problem lines: ${problemLines(server)}`,
    );
  } finally {
    await server.stop();
  }
}

function problemLines(server: ServerProcess): number {
  return server
    .output()
    .split('\n')
    .filter((text) => /"level":"(error|warn)"/.test(text)).length;
}

console.log(
  `bench:load, node ${process.version}, one instance (SQLite, offline demo model), client in this process`,
);
await concurrentRuns();
await openStreams();
