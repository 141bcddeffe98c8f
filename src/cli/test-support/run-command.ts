import { execFile } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { main } from '../main.ts';

/** What a `runstream …` call printed, and how it exited. */
export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunCommandOptions {
  /** Environment variables for this call (`undefined` removes one), restored afterwards. */
  env?: Readonly<Record<string, string | undefined>>;
  /** What the person types (`runstream chat` reads its answers from standard input); nothing by default. */
  stdin?: string;
}

/**
 * `runstream <argv>` in this process: `main` with its output captured, as bin/runstream.mjs runs it
 * but without a process per call (each one loads every module through tsx again, a second or two of
 * CPU on a busy two-core machine). What a command still writes to the process's own streams (a
 * warning of the knowledge base, a refusal of the store) is captured too, so `stdout` and `stderr`
 * are what a person would see. An exception `main` does not turn into an exit code is exit 1 with
 * its stack on stderr, as Node prints it. Calls run one at a time, in the order made: the environment
 * and the streams they borrow are the process's.
 */
export function runCommand(argv: readonly string[], options: RunCommandOptions = {}): Promise<CommandResult> {
  const result = queue.then(() => runNow(argv, options));
  queue = result.then(
    () => undefined,
    () => undefined,
  );
  return result;
}

let queue: Promise<void> = Promise.resolve();

async function runNow(argv: readonly string[], options: RunCommandOptions): Promise<CommandResult> {
  const stdout = collector();
  const stderr = collector();
  const restoreEnv = applyEnv(options.env ?? {});
  const ownStdin = Object.getOwnPropertyDescriptor(process, 'stdin');
  Object.defineProperty(process, 'stdin', {
    configurable: true,
    enumerable: true,
    value: Readable.from(options.stdin === undefined ? [] : [options.stdin]),
  });
  const ownStdout = process.stdout.write;
  const ownStderr = process.stderr.write;
  process.stdout.write = ((chunk: string | Uint8Array) =>
    stdout.append(chunk)) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) =>
    stderr.append(chunk)) as typeof process.stderr.write;
  let code: number;
  try {
    code = await main([...argv], { stdout: stdout.stream as NodeJS.WriteStream, stderr: stderr.stream });
  } catch (error) {
    stderr.append(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    code = 1;
  } finally {
    process.stdout.write = ownStdout;
    process.stderr.write = ownStderr;
    if (ownStdin !== undefined) Object.defineProperty(process, 'stdin', ownStdin);
    restoreEnv();
  }
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

const BIN = fileURLToPath(new URL('../../../bin/runstream.mjs', import.meta.url));

/**
 * `runstream <argv>` as a real child process through bin/runstream.mjs: the smoke test that the
 * command a person types starts, prints and exits as the in-process calls say it does.
 */
export function runCommandProcess(
  argv: readonly string[],
  options: RunCommandOptions = {},
): Promise<CommandResult> {
  const env: Record<string, string | undefined> = { ...process.env, ...options.env };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete env[name];
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [BIN, ...argv],
      { env, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        resolve({ code, stdout, stderr });
      },
    );
    child.stdin?.end(options.stdin ?? '');
  });
}

function collector(): { stream: Writable; append(chunk: string | Uint8Array): boolean; text(): string } {
  let text = '';
  const decoder = new TextDecoder();
  const append = (chunk: string | Uint8Array) => {
    text += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    return true;
  };
  return {
    stream: new Writable({
      write(chunk: string | Uint8Array, _encoding, done) {
        append(chunk);
        done();
      },
      decodeStrings: false,
    }),
    append,
    text: () => text,
  };
}

/** Set the variables; returns what puts the previous values back. */
function applyEnv(env: Readonly<Record<string, string | undefined>>): () => void {
  const previous = Object.keys(env).map((name) => [name, process.env[name]] as const);
  for (const [name, value] of Object.entries(env)) setEnv(name, value);
  return () => {
    for (const [name, value] of previous) setEnv(name, value);
  };
}

function setEnv(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}
