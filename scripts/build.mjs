// `npm run build`: the package as users install it. tsc compiles src/ (without tests, test-support
// other than what runstream/testing reaches, or the page) into dist/ as ESM JavaScript and .d.ts; the
// stylesheets and data files the modules read beside them are copied; then Vite builds the chat page
// into dist/web, as `runstream build-web` does, unless the page there is current with its sources.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const source = join(root, 'src');
const dist = join(root, 'dist');

/** Files beside the modules that read or export them: the blocks' stylesheet, jieba's user dictionary. */
const ASSET = /\.(css|txt)$/;
/** Source folders whose files are not copied: the page (built by Vite), tests' helpers and data. */
const SKIPPED_SOURCE_FOLDERS = new Set(['web', 'test-support', 'faults', 'conformance']);

function run(command, args) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    process.stderr.write(`build: ${[command, ...args].join(' ')} failed\n`);
    process.exit(result.status ?? 1);
  }
}

function files(directory, skipped) {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return skipped.has(entry.name) ? [] : files(path, skipped);
    return [path];
  });
}

const started = performance.now();
// Everything but the page: a module removed from src/ must not live on in the package. The page has
// its build stamp (a hash of its sources), so an unchanged page is not bundled again.
mkdirSync(dist, { recursive: true });
for (const entry of readdirSync(dist))
  if (entry !== 'web') rmSync(join(dist, entry), { recursive: true, force: true });

run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json']);

let declarations = 0;
for (const file of files(dist, new Set(['web']))) {
  if (!file.endsWith('.d.ts')) continue;
  // tsc rewrites `./x.ts` to `./x.js` in the JavaScript but not in the declarations; TypeScript reads
  // either, other tools (editors, API extractors) only the second.
  const text = readFileSync(file, 'utf8');
  const rewritten = text.replace(/(['"])(\.{1,2}\/[^'"]*?)\.tsx?\1/g, '$1$2.js$1');
  if (rewritten !== text) writeFileSync(file, rewritten);
  declarations += 1;
}

let assets = 0;
for (const file of files(source, SKIPPED_SOURCE_FOLDERS)) {
  if (!ASSET.test(file)) continue;
  const target = join(dist, relative(source, file));
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(file, target);
  assets += 1;
}

run(process.execPath, [
  '--import',
  'tsx',
  '--input-type=module',
  '--eval',
  "import { ensureWebBuild } from './src/cli/build-web.ts'; await ensureWebBuild({ log: console.log });",
]);

const modules = files(dist, new Set(['web'])).filter((file) => file.endsWith('.js'));
process.stdout.write(
  `built dist/: ${modules.length} modules, ${declarations} declaration files, ${assets} assets, and dist/web ` +
    `in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
);
