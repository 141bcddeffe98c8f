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

/** Start `serve-child.ts` with `env` on top of this process's environment; resolves when it listens. */
export async function startServerProcess(
  env: Record<string, string>,
  timeoutMs = 60_000,
): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const started = await new Promise<{ url: string; token: string }>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the server did not start in ${timeoutMs} ms:\n${stderr}`)),
      timeoutMs,
    );
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const line = stdout.split('\n')[0];
      if (stdout.includes('\n') && line !== undefined) {
        clearTimeout(timer);
        resolve(JSON.parse(line) as { url: string; token: string });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited with ${code} before listening:\n${stderr}`));
    });
  });
  return {
    ...started,
    child,
    output: () => stderr,
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
