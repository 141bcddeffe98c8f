import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliDecompressSync } from 'node:zlib';

/** Where the browser the UI tests drive comes from. */
export type ChromiumSource = 'RUNSTREAM_CHROMIUM' | 'debian' | 'bundled';

export interface ChromiumExecutable {
  source: ChromiumSource;
  path: string;
  /** Extra environment for the browser process (the bundled build brings its own libraries). */
  env: Record<string, string>;
}

export const DEBIAN_CHROMIUM_PATH = '/usr/bin/chromium';

const BUNDLED_PACKAGE = '@sparticuz/chromium';
const CACHE_ROOT = fileURLToPath(
  new URL('../../../node_modules/.cache/runstream-chromium/', import.meta.url),
);

/**
 * The browser for the UI tests, in order of preference: the one `RUNSTREAM_CHROMIUM` names (an
 * error if it is missing, since someone asked for it), Debian's Chromium, and otherwise the build
 * that ships inside the `@sparticuz/chromium` dev dependency, so `npm install && npm test` passes
 * on a machine with no system packages added. Nothing is ever downloaded.
 */
export function resolveChromium(preferred?: ChromiumSource): ChromiumExecutable {
  const requested = process.env.RUNSTREAM_CHROMIUM;
  if (preferred !== 'bundled' && preferred !== 'debian' && requested) {
    if (!existsSync(requested))
      throw new Error(`RUNSTREAM_CHROMIUM names ${requested}, which does not exist`);
    return { source: 'RUNSTREAM_CHROMIUM', path: requested, env: {} };
  }
  if (preferred !== 'bundled' && existsSync(DEBIAN_CHROMIUM_PATH))
    return { source: 'debian', path: DEBIAN_CHROMIUM_PATH, env: {} };
  if (preferred === 'debian') throw new Error(`Debian's Chromium is not at ${DEBIAN_CHROMIUM_PATH}`);
  return bundledChromium();
}

/**
 * Unpacks the packaged build once per version into node_modules/.cache. Several Vitest workers
 * may get here at the same moment: each unpacks into its own temporary folder and renames it into
 * place, and whoever loses the rename uses the winner's copy, so nobody runs a half-written binary.
 */
function bundledChromium(): ChromiumExecutable {
  const require = createRequire(import.meta.url);
  let packageRoot: string;
  try {
    // The package's exports hide package.json; its entry point is build/<format>/index.*.
    packageRoot = join(dirname(require.resolve(BUNDLED_PACKAGE)), '..', '..');
  } catch {
    throw new Error(
      `No Chromium for the UI tests: ${DEBIAN_CHROMIUM_PATH} is missing and ${BUNDLED_PACKAGE} is not installed ` +
        '(run "npm install", set RUNSTREAM_CHROMIUM, or "apt-get install -y chromium")',
    );
  }
  const { version } = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as {
    version: string;
  };
  const binDirectory = join(packageRoot, 'bin');
  const root = join(CACHE_ROOT, version);
  if (!existsSync(join(root, 'chromium'))) unpackInto(binDirectory, root);
  return {
    source: 'bundled',
    path: join(root, 'chromium'),
    env: {
      // The NSS libraries this build links against, for machines that lack them.
      LD_LIBRARY_PATH: [join(root, 'al2023', 'lib'), process.env.LD_LIBRARY_PATH].filter(Boolean).join(':'),
      // Without a system font configuration, fall back to the few fonts the package carries.
      ...(existsSync('/etc/fonts/fonts.conf') ? {} : { FONTCONFIG_PATH: join(root, 'fonts') }),
    },
  };
}

function unpackInto(binDirectory: string, root: string): void {
  const staging = `${root}.partial-${process.pid}-${Date.now()}`;
  mkdirSync(staging, { recursive: true });
  try {
    writeFileSync(
      join(staging, 'chromium'),
      brotliDecompressSync(readFileSync(join(binDirectory, 'chromium.br'))),
      {
        mode: 0o755,
      },
    );
    // The SwiftShader libraries sit next to the binary, where Chromium looks for them.
    untar(join(binDirectory, 'swiftshader.tar.br'), staging);
    untar(join(binDirectory, 'fonts.tar.br'), join(staging, 'fonts'));
    untar(join(binDirectory, 'al2023.tar.br'), join(staging, 'al2023'));
    try {
      renameSync(staging, root);
    } catch (error) {
      if (!existsSync(join(root, 'chromium'))) throw error;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

function untar(archive: string, into: string): void {
  mkdirSync(into, { recursive: true });
  const result = spawnSync('tar', ['-x', '-C', into], { input: brotliDecompressSync(readFileSync(archive)) });
  if (result.status !== 0)
    throw new Error(
      `Could not unpack ${archive}: ${result.error?.message ?? result.stderr.toString().trim()}`,
    );
}
