// `npm run check:package`: the package as a user gets it, checked against issue #30's targets. It
// builds, packs the tarball, lints it with publint and @arethetypeswrong/cli (both must report
// nothing), checks its size, then installs it into an empty project, as `npm install runstream` would,
// and counts what came with it: at most 10 packages and no native addon (no binding.gyp, no .node
// file, no install script). Last, each entry that needs no optional peer is imported in plain Node.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const MAX_TARBALL_BYTES = 1024 * 1024;
const MAX_INSTALLED_PACKAGES = 10;
/** Entries that load with no optional peer installed (react needs React; testing needs Vitest). */
const PEERLESS_ENTRIES = [
  'runstream',
  'runstream/node',
  'runstream/postgres',
  'runstream/redis',
  'runstream/mcp',
  'runstream/retrieval',
  'runstream/client',
  'runstream/protocol',
];
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall'];
/** attw's esm-only profile ignores these; its JSON lists their problems all the same. */
const IGNORED_RESOLUTIONS = new Set(['node10', 'node16-cjs']);

const failures = [];
const work = mkdtempSync(join(tmpdir(), 'runstream-package-'));

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: root, encoding: 'utf8', ...options });
  return {
    status: result.status,
    output: `${result.stdout ?? ''}${result.stderr ?? ''}`,
    stdout: result.stdout,
  };
}

function must(step, result) {
  if (result.status === 0) return result;
  process.stderr.write(`${result.output}\ncheck:package: ${step} failed\n`);
  rmSync(work, { recursive: true, force: true });
  process.exit(1);
}

function check(ok, line) {
  process.stdout.write(`${ok ? 'ok  ' : 'FAIL'} ${line}\n`);
  if (!ok) failures.push(line);
}

const bin = (name) => join(root, 'node_modules', '.bin', name);

try {
  must('npm run build', run('npm', ['run', 'build'], { stdio: 'inherit' }));

  // The build ran just now; --ignore-scripts keeps prepack from running it again.
  const packed = must(
    'npm pack',
    run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work]),
  );
  const [pack] = JSON.parse(packed.stdout);
  const tarball = join(work, pack.filename);
  const tarballBytes = statSync(tarball).size;
  check(
    tarballBytes <= MAX_TARBALL_BYTES,
    `tarball ${pack.filename}: ${(tarballBytes / 1024).toFixed(0)} KiB packed (limit 1024), ` +
      `${(pack.unpackedSize / 1024).toFixed(0)} KiB unpacked, ${pack.entryCount} files`,
  );
  // Test-support modules ship only as far as runstream/testing (the conformance suites) imports them.
  const testing = reachableModules(join(root, 'dist', 'testing', 'index.js'));
  const unwanted = pack.files
    .map((file) => file.path)
    .filter(
      (path) =>
        /(^|\/)(__fixtures__|fixtures|bench|eval|examples|recordings)\/|\.test\.[jt]sx?$|\.map$|^src\//.test(
          path,
        ) ||
        (/(^|\/)test-support\//.test(path) && !testing.has(path.replace(/\.d\.ts$/, '.js'))),
    );
  check(
    unwanted.length === 0,
    `no tests, fixtures, benches, eval sets or sources shipped${unwantedList(unwanted)}`,
  );

  const publint = run(bin('publint'), ['run', tarball, '--strict']);
  const publintClean = publint.status === 0 && /All good!/.test(publint.output);
  check(publintClean, `publint --strict: ${publintClean ? 'all good' : 'problems'}`);
  if (!publintClean) process.stdout.write(publint.output);

  // ESM only: CommonJS require() and node10 resolution are out of scope by design. The stylesheet is
  // an entry with no types to check.
  const attw = run(bin('attw'), [
    tarball,
    '--profile',
    'esm-only',
    '--no-definitely-typed',
    '--exclude-entrypoints',
    './react/styles.css',
    '--format',
    'json',
  ]);
  const attwReport = parseJson(attw.stdout);
  const problems = (attwReport?.analysis?.problems ?? []).filter(
    (problem) => !IGNORED_RESOLUTIONS.has(problem.resolutionKind),
  );
  const entrypoints = Object.keys(attwReport?.analysis?.entrypoints ?? {});
  check(
    attw.status === 0 && attwReport !== undefined && problems.length === 0,
    `attw --profile esm-only: ${problems.length} problems over ${entrypoints.length} entry points`,
  );
  if (problems.length > 0 || attwReport === undefined)
    process.stdout.write(`${JSON.stringify(problems, null, 2) || attw.output}\n`);

  // A fresh project, as a user starts one, installing only the tarball.
  const project = join(work, 'project');
  must('mkdir', run('mkdir', ['-p', project]));
  writeFileSync(
    join(project, 'package.json'),
    `${JSON.stringify({ name: 'fresh-app', version: '1.0.0', private: true, type: 'module' }, null, 2)}\n`,
  );
  must(
    'npm install <tarball>',
    run('npm', ['install', tarball, '--no-audit', '--no-fund'], { cwd: project }),
  );
  const lock = JSON.parse(readFileSync(join(project, 'node_modules', '.package-lock.json'), 'utf8'));
  const installed = Object.keys(lock.packages).filter((path) => path.startsWith('node_modules/'));
  const names = installed.map((path) =>
    path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length),
  );
  check(
    installed.length <= MAX_INSTALLED_PACKAGES,
    `npm install <tarball> in a fresh project: ${installed.length} packages (limit ${MAX_INSTALLED_PACKAGES}): ${names.join(', ')}`,
  );
  const native = installed.flatMap((path) => nativeSigns(join(project, path)));
  check(native.length === 0, `no native addon: ${native.length === 0 ? 'none found' : native.join('; ')}`);

  for (const entry of PEERLESS_ENTRIES) {
    const imported = run(
      process.execPath,
      [
        '--input-type=module',
        '--eval',
        `const m = await import('${entry}'); console.log(Object.keys(m).length);`,
      ],
      { cwd: project },
    );
    check(
      imported.status === 0,
      `import '${entry}' in plain node: ${imported.status === 0 ? `${imported.stdout.trim()} exports` : imported.output.trim().split('\n').slice(0, 4).join(' | ')}`,
    );
  }
  // The command runs from dist/ with no tsx; its usage needs no optional peer.
  const help = run(join(project, 'node_modules', '.bin', 'runstream'), ['--help'], { cwd: project });
  check(
    help.status === 0 && /Usage/.test(help.output),
    `npx runstream --help: ${help.status === 0 ? 'runs' : help.output.trim().split('\n').slice(0, 6).join(' | ')}`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}

if (failures.length > 0) {
  process.stdout.write(`check:package: ${failures.length} check(s) failed\n`);
  process.exit(1);
}
process.stdout.write('check:package: every check passed\n');

function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function unwantedList(paths) {
  return paths.length === 0 ? '' : `: ${paths.slice(0, 10).join(', ')}${paths.length > 10 ? ' …' : ''}`;
}

/** The package paths (dist/…) of the modules `entry` imports, directly or not. */
function reachableModules(entry) {
  const seen = new Set();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop();
    const path = relative(root, file);
    if (seen.has(path)) continue;
    seen.add(path);
    const source = readFileSync(file, 'utf8');
    for (const match of source.matchAll(/(?:from|import)\s*['"](\.{1,2}\/[^'"]+)['"]/g))
      queue.push(join(dirname(file), match[1]));
  }
  return seen;
}

/** What makes an installed package a native addon or a build at install time. */
function nativeSigns(directory) {
  const signs = [];
  const manifest = JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8'));
  const scripts = INSTALL_SCRIPTS.filter((name) => manifest.scripts?.[name] !== undefined);
  if (scripts.length > 0) signs.push(`${manifest.name} runs ${scripts.join(', ')}`);
  if (manifest.gypfile === true) signs.push(`${manifest.name} has gypfile`);
  for (const file of walk(directory))
    if (file.endsWith('.node') || file.endsWith('binding.gyp')) signs.push(`${manifest.name}: ${file}`);
  return signs;
}

function walk(directory) {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    // A nested node_modules is its own package, counted and checked on its own.
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : walk(path);
    return [path];
  });
}
