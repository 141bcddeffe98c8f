import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The ecosystem's own clients (the AI SDK, `openai` 7, the OpenAI Agents SDK) need Node >= 22 while
 * runstream runs on Node 20: they live in `interop/` with a Node 22 binary from the npm registry (the
 * package `node`), and the dialect tests run small scripts there against a real server.
 */
export const INTEROP_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../../interop');
export const INTEROP_NODE = join(INTEROP_DIR, 'node_modules/node/bin/node');

function pinned(): Record<string, string> {
  const manifest = JSON.parse(readFileSync(join(INTEROP_DIR, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  return manifest.dependencies;
}

/** True when every pinned package is installed at its version and the Node 22 binary runs. */
export function interopInstalled(): boolean {
  const installed = Object.entries(pinned()).every(([name, version]) => {
    const file = join(INTEROP_DIR, 'node_modules', name, 'package.json');
    if (!existsSync(file)) return false;
    return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version === version;
  });
  if (!installed || !existsSync(INTEROP_NODE)) return false;
  const probe = spawnSync(INTEROP_NODE, ['--version'], { encoding: 'utf8' });
  return probe.status === 0 && probe.stdout.trim() === `v${pinned().node}`;
}

/** `npm ci --prefix interop` when the clients are missing (a fresh clone); throws when that fails. */
export function ensureInteropClients(): void {
  if (interopInstalled()) return;
  const args = ['ci', '--prefix', INTEROP_DIR, '--no-audit', '--no-fund', '--loglevel=error'];
  const install = spawnSync('npm', args, { stdio: 'inherit', timeout: 10 * 60_000 });
  if (install.status !== 0 || !interopInstalled())
    throw new Error(
      `could not install the interop clients (npm ${args.join(' ')}: ${install.error?.message ?? `exit ${install.status}`}); they need the npm registry`,
    );
}

export interface InteropResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `interop/<script>` on the Node 22 binary with `args`, and resolves with its output when it
 * exits (or is killed after `timeoutMs`). Scripts print one JSON document on stdout.
 */
export function runInteropScript(
  script: string,
  args: string[],
  options: { env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<InteropResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(INTEROP_NODE, [join(INTEROP_DIR, script), ...args], {
      cwd: INTEROP_DIR,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
