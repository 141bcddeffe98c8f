import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CHILD = fileURLToPath(new URL('./serve-child.ts', import.meta.url));

export interface ServerProcess {
  readonly url: string;
  readonly token: string;
  readonly child: ChildProcess;
  /** Everything it wrote to stderr (its log lines). */
  output(): string;
  /** SIGKILL: no shutdown, no last writes, as a crashed machine. */
  crash(): Promise<void>;
  /** SIGTERM, and wait for it to exit. */
  stop(): Promise<void>;
}

/**
 * A server process spawned ahead, its modules loaded, that opens nothing (no database, no port) until
 * `start`: a restart loop spawns the next one while the current one serves, so each restart costs
 * what `startServer` does with the file, not a second of module loading.
 */
export interface StandbyServerProcess {
  /** Start it now; resolves when it listens. */
  start(timeoutMs?: number): Promise<ServerProcess>;
  /** Kill it unstarted (or started), and wait for it to exit. */
  discard(): Promise<void>;
}

/** Start `serve-child.ts` with `env` on top of this process's environment; resolves when it listens. */
export async function startServerProcess(
  env: Record<string, string>,
  timeoutMs = 60_000,
): Promise<ServerProcess> {
  return whenListening(spawnChild(env, false), timeoutMs);
}

/** Spawn `serve-child.ts` with `env` as a warm standby (see `StandbyServerProcess`). */
export function standbyServerProcess(env: Record<string, string>): StandbyServerProcess {
  const spawned = spawnChild(env, true);
  return {
    start(timeoutMs = 60_000) {
      spawned.child.stdin?.end('start\n');
      return whenListening(spawned, timeoutMs);
    },
    async discard() {
      const { child } = spawned;
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await spawned.exited;
    },
  };
}

interface SpawnedChild {
  child: ChildProcess;
  stderr(): string;
  exited: Promise<void>;
  /** The first stdout line, `{url, token}`; rejects if the child exits before printing it. */
  firstLine: Promise<{ url: string; token: string }>;
}

function spawnChild(env: Record<string, string>, standby: boolean): SpawnedChild {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      ...env,
      ...(standby ? { RUNSTREAM_TEST_STANDBY: '1' } : {}),
    },
    stdio: [standby ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const firstLine = new Promise<{ url: string; token: string }>((resolve, reject) => {
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const line = stdout.split('\n')[0];
      if (stdout.includes('\n') && line !== undefined)
        resolve(JSON.parse(line) as { url: string; token: string });
    });
    child.once('exit', (code) =>
      reject(new Error(`the server exited with ${code} before listening:\n${stderr}`)),
    );
  });
  // A standby discarded unstarted rejects it with nobody waiting: not an unhandled rejection.
  firstLine.catch(() => undefined);
  return { child, stderr: () => stderr, exited, firstLine };
}

async function whenListening(spawned: SpawnedChild, timeoutMs: number): Promise<ServerProcess> {
  const { child, exited } = spawned;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const started = await Promise.race([
    spawned.firstLine,
    new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () => reject(new Error(`the server did not start in ${timeoutMs} ms:\n${spawned.stderr()}`)),
        timeoutMs,
      );
    }),
  ]).finally(() => clearTimeout(timer));
  return {
    ...started,
    child,
    output: spawned.stderr,
    async crash() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      // A stream a failed test left open keeps the server waiting: give it 5 s, then kill it.
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
