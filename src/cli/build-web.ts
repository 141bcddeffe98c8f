import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository, or the installed package: src/cli/ and dist/cli/ are both two levels down. */
const REPOSITORY_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Where `npm run build:web` and `npm start` put the page, and where the server reads it from; in the
 * installed package, the page it ships prebuilt (node_modules/runstream/dist/web).
 */
export const DEFAULT_WEB_ROOT = join(REPOSITORY_ROOT, 'dist', 'web');

/**
 * Running the built JavaScript (the installed package): there are no sources and no bundler, the page
 * is the one the package ships, and nothing is ever written into node_modules.
 */
const RUNNING_BUILT = !fileURLToPath(import.meta.url).endsWith('.ts');

/** What the bundle is made of: the page, the layers it imports, the build config and the lock file. */
const INPUT_FOLDERS = ['src/web', 'src/react', 'src/protocol', 'src/client', 'src/shared'];
const INPUT_FILES = ['vite.config.ts', 'package-lock.json'];
const STAMP_FILE = '.build-stamp';

export interface WebBuildOptions {
  /** Output folder; defaults to dist/web. */
  outDir?: string;
  /** Build even when the stamp says the output is current. */
  force?: boolean;
  /** Progress lines for a person; silent by default. */
  log?: (line: string) => void;
}

export interface WebBuildResult {
  root: string;
  built: boolean;
  stamp: string;
  ms: number;
}

/**
 * Build the web UI when it is missing or older than its sources. The stamp is a hash of every input
 * file's path and bytes (not of mtimes, which a checkout or copy rewrites), so `git pull` followed by
 * `npm start` never serves a stale page, and an unchanged tree starts without a build.
 */
export async function ensureWebBuild(options: WebBuildOptions = {}): Promise<WebBuildResult> {
  const started = performance.now();
  const root = options.outDir ?? DEFAULT_WEB_ROOT;
  if (RUNNING_BUILT) return shippedWebBuild(root, started);
  const stamp = webSourceStamp();
  const stampPath = join(root, STAMP_FILE);
  const current =
    existsSync(join(root, 'index.html')) &&
    existsSync(stampPath) &&
    readFileSync(stampPath, 'utf8').trim() === stamp;
  if (current && !options.force) return { root, built: false, stamp, ms: performance.now() - started };

  options.log?.(current ? 'building the web UI…' : 'building the web UI (missing or out of date)…');
  // Imported lazily: a server started with a current build never loads the bundler.
  const { build } = await import('vite');
  await build({
    configFile: join(REPOSITORY_ROOT, 'vite.config.ts'),
    logLevel: 'warn',
    build: { outDir: root, emptyOutDir: true },
  });
  writeFileSync(stampPath, `${stamp}\n`);
  const ms = performance.now() - started;
  options.log?.(`web UI built in ${(ms / 1000).toFixed(1)} s`);
  return { root, built: true, stamp, ms };
}

/** The page an installed package ships: used as it is, never built. */
function shippedWebBuild(root: string, started: number): WebBuildResult {
  if (!existsSync(join(root, 'index.html')))
    throw new Error(`the web UI is missing from ${root}: this runstream package was built without it`);
  const stampPath = join(root, STAMP_FILE);
  const stamp = existsSync(stampPath) ? readFileSync(stampPath, 'utf8').trim() : '';
  return { root, built: false, stamp, ms: performance.now() - started };
}

/** A hash of the web UI's inputs; changes whenever a file that ends up in the bundle changes. */
export function webSourceStamp(): string {
  const hash = createHash('sha256');
  const files = [
    ...INPUT_FOLDERS.flatMap((folder) => listFiles(join(REPOSITORY_ROOT, folder))),
    ...INPUT_FILES.map((file) => join(REPOSITORY_ROOT, file)).filter((file) => existsSync(file)),
  ].sort();
  for (const file of files) {
    hash.update(relative(REPOSITORY_ROOT, file));
    hash.update('\0');
    hash.update(readFileSync(file));
    hash.update('\0');
  }
  return hash.digest('hex').slice(0, 32);
}

function listFiles(directory: string): string[] {
  if (!existsSync(directory)) return [];
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === 'test-support' ? [] : listFiles(path);
    // Tests never reach the bundle; leaving them out keeps a test edit from forcing a rebuild.
    return /\.test\.tsx?$/.test(entry.name) ? [] : [path];
  });
}
