import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRunEventDecoderStream, type RunEvent } from '../../src/protocol/index.ts';
import { type ServerProcess, startServerProcess } from '../../src/server/test-support/server-process.ts';
import { sleep } from './report.ts';

/** The demo token every instance accepts (`RUNSTREAM_DEMO_TOKEN`). */
export const TOKEN = 'scale-bench-demo-token';
/** The demo question whose answer the NovaShop demo model streams (search, then an answer). */
export const DEMO_TEXT = '退货政策是什么？';

const MEMORY_PROBE = pathToFileURL(fileURLToPath(new URL('./child-memory.mjs', import.meta.url))).href;
const RAW_SSE_CHILD = fileURLToPath(new URL('./raw-sse-child.ts', import.meta.url));
const probeOptions = (v8Flags = '') =>
  `${process.env.NODE_OPTIONS ?? ''} ${v8Flags} --import=${MEMORY_PROBE}`.replace(/\s+/g, ' ').trim();
/** Clock ticks per second in /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const CLOCK_TICKS = 100;

/** What every instance of one bench run shares. */
export interface SharedSetup {
  databaseUrl: string;
  redisUrl: string;
  keyPrefix: string;
  /** Each instance's own SQLite file (its knowledge base) goes here. */
  directory: string;
}

/** Memory of a child after two full GCs, as `process.memoryUsage()` reports it there. */
export interface ChildMemory {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  /** V8's young generation (new space), committed: sized by the allocation rate, up to a cap. */
  youngGeneration: number;
}

/** How one read of a run's stream went. */
export interface StreamRead {
  status: number;
  runId: string;
  deltas: number;
  /** Events with a seq (the run's log), snapshots excluded. */
  logged: number;
  lastSeq: number;
  /** `run.finished` seen. */
  finished: boolean;
  /** The protocol's `done` seen. */
  done: boolean;
}

/** One server process of the bench (`startServerProcess`), with what the bench reads from outside. */
export class Instance {
  readonly name: string;
  readonly delayMs: number;
  readonly server: ServerProcess;

  constructor(name: string, delayMs: number, server: ServerProcess) {
    this.name = name;
    this.delayMs = delayMs;
    this.server = server;
  }

  get url(): string {
    return this.server.url;
  }

  get pid(): number {
    const pid = this.server.child.pid;
    if (pid === undefined) throw new Error(`${this.name} has no process id`);
    return pid;
  }

  api(path: string, init: RequestInit = {}): Promise<Response> {
    return fetch(`${this.url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...init.headers },
    });
  }

  async newConversation(): Promise<string> {
    const response = await this.api('/v1/conversations', { method: 'POST', body: '{}' });
    if (response.status !== 201) throw new Error(`${this.name}: new conversation: ${response.status}`);
    return ((await response.json()) as { id: string }).id;
  }

  /** Starts a run; the response streams it. */
  async postMessage(conversationId: string, text = DEMO_TEXT): Promise<Response> {
    const response = await this.api(`/v1/conversations/${conversationId}/messages`, {
      method: 'POST',
      body: JSON.stringify({ text }),
    });
    if (response.status !== 200) throw new Error(`${this.name}: message: ${response.status}`);
    return response;
  }

  /** GET /v1/runs/{id}/events, from after `lastEventId` (the whole run when absent). */
  follow(runId: string, lastEventId?: number, signal?: AbortSignal): Promise<Response> {
    return this.api(`/v1/runs/${runId}/events`, {
      headers: lastEventId === undefined ? {} : { 'last-event-id': String(lastEventId) },
      ...(signal !== undefined ? { signal } : {}),
    });
  }

  async runStatus(runId: string): Promise<string> {
    return ((await (await this.api(`/v1/runs/${runId}`)).json()) as { status: string }).status;
  }

  async cancel(runId: string): Promise<string> {
    const response = await this.api(`/v1/runs/${runId}/cancel`, {
      method: 'POST',
      body: JSON.stringify({ reason: 'bench_done' }),
    });
    return ((await response.json()) as { status: string }).status;
  }

  /** VmRSS from /proc/<pid>/status, in bytes. */
  rssBytes(): number {
    const status = readFileSync(`/proc/${this.pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    if (match === null) throw new Error(`no VmRSS for ${this.name}`);
    return Number(match[1]) * 1024;
  }

  /** User + system CPU seconds the process used so far. */
  cpuSeconds(): number {
    return processCpuSeconds(this.pid);
  }

  /** Asks the child's preloaded probe (`child-memory.mjs`) for a full GC and its memory after it. */
  async memoryAfterGc(timeoutMs = 5000): Promise<ChildMemory> {
    const marker = '{"benchMemory":';
    const count = () => this.server.output().split(marker).length;
    const before = count();
    process.kill(this.pid, 'SIGUSR2');
    const deadline = Date.now() + timeoutMs;
    while (count() === before) {
      if (Date.now() > deadline) throw new Error(`${this.name} did not report its memory`);
      await sleep(10);
    }
    const output = this.server.output();
    const line = output.slice(output.lastIndexOf(marker)).split('\n')[0] ?? '';
    return (JSON.parse(line) as { benchMemory: ChildMemory }).benchMemory;
  }

  /** The log lines (stderr) at level error or warn, prefixed with the instance's name. */
  problemLines(): string[] {
    return this.server
      .output()
      .split('\n')
      .filter((line) => /"level":"(error|warn)"/.test(line))
      .map((line) => `${this.name}: ${line}`);
  }

  async stop(): Promise<void> {
    await this.server.stop();
  }
}

/**
 * Starts one instance of the shared setup, `RUNSTREAM_DEMO_DELAY_MS=delayMs`, with V8 flags if given
 * (in NODE_OPTIONS).
 */
export async function startInstance(
  setup: SharedSetup,
  name: string,
  delayMs: number,
  v8Flags = '',
): Promise<Instance> {
  const server = await startServerProcess({
    RUNSTREAM_DATABASE_URL: setup.databaseUrl,
    RUNSTREAM_REDIS_URL: setup.redisUrl,
    RUNSTREAM_REDIS_PREFIX: setup.keyPrefix,
    RUNSTREAM_DB: join(setup.directory, `${name}.db`),
    RUNSTREAM_DEMO_TOKEN: TOKEN,
    RUNSTREAM_DEMO_DELAY_MS: String(delayMs),
    RUNSTREAM_INSTANCE_ID: name,
    // One user drives every run of the bench: it measures the pipeline, not the per-user limits.
    RUNSTREAM_RATE_LIMIT: '0',
    RUNSTREAM_MAX_RUNNING_RUNS: '0',
    // The offline demo model and no embedder, whatever this shell has configured.
    OPENAI_API_KEY: '',
    OPENAI_BASE_URL: '',
    RUNSTREAM_MODEL: '',
    RUNSTREAM_EMBEDDER: '',
    RUNSTREAM_EMBEDDING_MODEL: '',
    RUNSTREAM_DENY_TOOLS: '',
    NODE_OPTIONS: probeOptions(v8Flags),
  });
  return new Instance(name, delayMs, server);
}

/**
 * Reads a run's stream (SSE, decoded without schema validation, as a trusting client would) to its
 * end, or until `stopAfter` events, then cancels the body. `onEvent` sees every event.
 */
export async function readRunStream(
  response: Response,
  options: { stopAfter?: number; onEvent?: (event: RunEvent) => void } = {},
): Promise<StreamRead> {
  const read: StreamRead = {
    status: response.status,
    runId: response.headers.get('x-runstream-run-id') ?? '',
    deltas: 0,
    logged: 0,
    lastSeq: 0,
    finished: false,
    done: false,
  };
  if (response.status !== 200 || response.body === null) {
    await response.body?.cancel().catch(() => undefined);
    return read;
  }
  const reader = response.body
    .pipeThrough(createRunEventDecoderStream('sse', { validate: false }))
    .getReader();
  let events = 0;
  try {
    while (events < (options.stopAfter ?? Number.POSITIVE_INFINITY)) {
      const { done, value } = await reader.read();
      if (done) break;
      events += 1;
      options.onEvent?.(value);
      if (value.type === 'done') read.done = true;
      if (value.type === 'block.delta') read.deltas += 1;
      if (value.type === 'run.finished') read.finished = true;
      if ('seq' in value && value.type !== 'run.snapshot') {
        read.logged += 1;
        read.lastSeq = Math.max(read.lastSeq, value.seq);
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return read;
}

/**
 * One open GET /v1/runs/{id}/events kept open and drained (bytes counted, not decoded) until
 * `close`: a watcher following a live run.
 */
export class Follower {
  readonly #controller: AbortController;
  #ended = false;
  bytes = 0;

  private constructor(controller: AbortController) {
    this.#controller = controller;
  }

  /** Resolves once the stream's first bytes arrived (the `retry:` frame and the replay). */
  static async open(instance: Instance, runId: string): Promise<Follower> {
    const controller = new AbortController();
    const follower = new Follower(controller);
    const response = await instance.follow(runId, undefined, controller.signal);
    if (response.status !== 200 || response.body === null)
      throw new Error(`${instance.name}: follow ${runId}: ${response.status}`);
    const reader = response.body.getReader();
    const first = await reader.read();
    follower.bytes += first.value?.byteLength ?? 0;
    if (first.done) follower.#ended = true;
    else
      void (async () => {
        try {
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            follower.bytes += value.byteLength;
          }
        } catch {
          // Aborted by `close`.
        } finally {
          follower.#ended = true;
        }
      })();
    return follower;
  }

  /** The server ended the stream (or `close` did). */
  get ended(): boolean {
    return this.#ended;
  }

  close(): void {
    this.#controller.abort();
  }
}

/** Opens `count` followers of `runId` on `instance`, `batch` at a time. */
export async function openFollowers(
  instance: Instance,
  runId: string,
  count: number,
  batch = 50,
): Promise<Follower[]> {
  const followers: Follower[] = [];
  while (followers.length < count) {
    const n = Math.min(batch, count - followers.length);
    followers.push(...(await Promise.all(Array.from({ length: n }, () => Follower.open(instance, runId)))));
  }
  return followers;
}

/** User + system CPU seconds process `pid` used so far (/proc/<pid>/stat); 0 once it is gone. */
export function processCpuSeconds(pid: number): number {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return 0;
  }
  // Fields after the command name (which may hold spaces), from field 3 on: utime is 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** CPU seconds the whole machine spent busy so far, all cores together (/proc/stat: not idle or iowait). */
export function machineBusySeconds(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  const [, ...values] = line.trim().split(/\s+/);
  const ticks = values.map(Number);
  const total = ticks.slice(0, 8).reduce((sum, n) => sum + n, 0);
  return (total - (ticks[3] ?? 0) - (ticks[4] ?? 0)) / CLOCK_TICKS;
}

/**
 * `raw-sse-child.ts` in a process of its own, with the same memory probe as the instances: the
 * floor the memory section compares the instances with. Wrapped as an `Instance` (only its
 * follow, memory and stop are used).
 */
export async function startRawSseProcess(
  intervalMs: number,
  v8Flags = '',
  timeoutMs = 30_000,
): Promise<Instance> {
  const child = spawn(process.execPath, ['--import', 'tsx', RAW_SSE_CHILD], {
    env: { ...process.env, NODE_OPTIONS: probeOptions(v8Flags), RAW_SSE_INTERVAL_MS: String(intervalMs) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let stdout = '';
      const timer = setTimeout(
        () => reject(new Error(`the raw SSE server did not start:\n${stderr}`)),
        timeoutMs,
      );
      child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
        if (!stdout.includes('\n')) return;
        clearTimeout(timer);
        resolve((JSON.parse(stdout.split('\n')[0] ?? '') as { url: string }).url);
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the raw SSE server exited with ${code}:\n${stderr}`));
      });
    });
    const server: ServerProcess = {
      url,
      token: '',
      child,
      output: () => stderr,
      async crash() {
        child.kill('SIGKILL');
        await exited;
      },
      stop,
    };
    return new Instance('raw-sse', intervalMs, server);
  } catch (error) {
    await stop();
    throw error;
  }
}
