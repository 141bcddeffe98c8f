// `npm run test:package`: the package from its packed tarball, as a user gets it (issue #30, point 5).
// It builds and packs once, installs the tarball from the npm registry's point of view (with the peers
// each kind of user adds, at the versions of our package-lock) into three temporary projects of plain
// JavaScript on this Node, with no tsx and no bundler but the page's own Vite, and then:
//
//   (b) serves package-tests/app/agent.mjs (`defineAgent` + `tool`) with `node server.mjs`:
//       `createRunstream` + `sqliteStore` + `serve`, and `npx runstream --help` runs;
//   (a) streams, approves (once) and stops runs with `runstream/client` in `node client.mjs`;
//   (c) type-checks package-tests/types/consumer.ts, which imports every entry, with `tsc --noEmit`
//       against the shipped .d.ts (strict, nodenext, the libraries' declarations checked too);
//   (d) builds package-tests/page (a React page on `runstream/react` and its stylesheet) with Vite,
//       served from the same origin as the API by server.mjs (`toNodeHandler` under /support), and
//       drives it in headless Chromium: send, card, approve, the answer, a reload at each stage.
//
// It takes minutes (the SQLite peer compiles from source here), so it is not part of `npm test`.
// Flags: --skip-build packs the dist/ already built; --keep leaves the temporary projects in place.
// Exits 1 with the failing step and its output.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const fixtures = join(root, 'package-tests');
const flags = new Set(process.argv.slice(2));
const MINUTE = 60_000;

/** What each project installs besides the tarball: the peers and tools its kind of user adds. */
const PROJECTS = {
  // A backend in plain JavaScript: the SQLite store's driver, zod for a tool's schema, and Vitest,
  // which `runstream/testing` (the scripted model the agent runs on) needs.
  app: ['better-sqlite3', 'zod', 'vitest'],
  // A TypeScript codebase: the compiler, Node's and React's types, and every peer a declaration
  // file of the package imports types from.
  types: [
    'typescript',
    '@types/node',
    '@types/react',
    'react',
    'zod',
    '@types/better-sqlite3',
    '@types/pg',
    'ioredis',
    '@modelcontextprotocol/sdk',
    '@node-rs/jieba',
  ],
  // A front end: React and Vite with its React plugin.
  page: ['react', 'react-dom', 'vite', '@vitejs/plugin-react'],
};

const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
const timings = [];
const work = mkdtempSync(join(tmpdir(), 'runstream-test-package-'));
const started = performance.now();
let server;
let browser;
/** The step under way, named in the failure. */
let current = 'setup';

function log(line) {
  process.stdout.write(`${line}\n`);
}

class StepError extends Error {
  constructor(message, output = '') {
    super(message);
    this.output = output;
  }
}

/** One timed part of the test; its failure ends the run. */
async function step(name, body) {
  const begun = performance.now();
  current = name;
  log(`\n▶ ${name}`);
  const result = await body();
  const seconds = (performance.now() - begun) / 1000;
  timings.push({ name, seconds });
  log(`✓ ${name} (${seconds.toFixed(1)} s)`);
  return result;
}

/** A command's exit and output; rejects with both when it fails or outlives `timeoutMs`. */
function run(command, args, { cwd = root, env = {}, timeoutMs = 5 * MINUTE, echo = false } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: 'pipe' });
    let output = '';
    const take = (chunk) => {
      output += chunk;
      if (echo) process.stdout.write(chunk);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new StepError(`${command} could not start: ${error.message}`));
    });
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      if (status === 0) return resolve(output);
      const why = signal === 'SIGKILL' ? `was stopped after ${timeoutMs / 1000} s` : `exited with ${status}`;
      reject(new StepError(`${[command, ...args].join(' ')} (in ${cwd}) ${why}`, output));
    });
  });
}

function lockedVersion(name) {
  const version = lock.packages?.[`node_modules/${name}`]?.version;
  if (version === undefined) throw new StepError(`${name} is not in package-lock.json`);
  return `${name}@${version}`;
}

function assert(ok, message) {
  if (!ok) throw new StepError(message);
}

async function pack() {
  const output = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work]);
  const [packed] = JSON.parse(output.slice(output.indexOf('[')));
  log(
    `  ${packed.filename}: ${(packed.size / 1024).toFixed(0)} KiB, ${packed.entryCount} files, ` +
      `${(packed.unpackedSize / 1024).toFixed(0)} KiB unpacked`,
  );
  return join(work, packed.filename);
}

/** A fresh project with the fixtures of `name`, and the tarball and its peers installed. */
async function install(name, tarball) {
  const project = join(work, name);
  mkdirSync(project, { recursive: true });
  cpSync(join(fixtures, name), project, { recursive: true });
  writeFileSync(
    join(project, 'package.json'),
    `${JSON.stringify({ name: `runstream-${name}-test`, version: '1.0.0', private: true, type: 'module' }, null, 2)}\n`,
  );
  const peers = PROJECTS[name].map(lockedVersion);
  const begun = performance.now();
  await run('npm', ['install', tarball, ...peers, '--no-audit', '--no-fund', '--prefer-offline'], {
    cwd: project,
    // Where no prebuilt binary can be fetched, better-sqlite3 compiles: on every core (node-gyp's JOBS).
    env: { JOBS: 'max' },
    timeoutMs: 10 * MINUTE,
  });
  const installed = JSON.parse(readFileSync(join(project, 'node_modules', '.package-lock.json'), 'utf8'));
  const count = Object.keys(installed.packages).filter((path) => path.startsWith('node_modules/')).length;
  log(
    `  ${name}: npm install <tarball> ${peers.join(' ')}: ${count} packages in ` +
      `${((performance.now() - begun) / 1000).toFixed(1)} s`,
  );
  return project;
}

/** `node server.mjs` in the app project; resolves with where the API and the page are. */
function startServer(app, pageDir) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['server.mjs'], {
      cwd: app,
      env: { ...process.env, DATABASE: join(work, 'data', 'runstream.db'), PAGE_DIR: pageDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let buffered = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new StepError('node server.mjs printed no address within 30 s', output));
    }, 30_000);
    child.stderr.on('data', (chunk) => {
      output += chunk;
      if (server !== undefined) process.stdout.write(`  [server] ${chunk}`);
    });
    child.stdout.on('data', (chunk) => {
      output += chunk;
      buffered += chunk;
      const newline = buffered.indexOf('\n');
      if (server !== undefined || newline === -1) return;
      clearTimeout(timer);
      server = { child, ...JSON.parse(buffered.slice(0, newline)) };
      resolve(server);
    });
    child.on('exit', (status) => {
      clearTimeout(timer);
      if (server === undefined) reject(new StepError(`node server.mjs exited with ${status}`, output));
    });
  });
}

async function stopServer() {
  if (server === undefined) return;
  const { child } = server;
  server = undefined;
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

/** The blocks as a person sees them: kind, status and text, for comparing before and after a reload. */
function renderedBlocks(page) {
  return page.$$eval('[data-testid="block"]', (elements) =>
    elements.map((element) => ({
      kind: element.getAttribute('data-kind'),
      status: element.getAttribute('data-status'),
      text: (element.textContent ?? '').replace(/\s+/g, ' ').trim(),
    })),
  );
}

function waitForPage(page, wanted) {
  return page.waitForFunction(
    (expected) => {
      const main = document.querySelector('[data-testid="support-page"]');
      return (
        main !== null &&
        Object.entries(expected).every(([name, value]) => main.getAttribute(`data-${name}`) === value)
      );
    },
    wanted,
    { timeout: 20_000 },
  );
}

const describeBlocks = (blocks) => blocks.map((block) => `${block.kind}:${block.status}`).join(' ');

/** Send, the card, a reload on the card, approve, the answer, a reload on the answer. */
async function drivePage(pageUrl) {
  const { launchChromium } = await import('../src/web/test-support/browser.ts');
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1000, height: 900 } });
  const page = await context.newPage();
  const pageErrors = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    // "Failed to load resource" names no URL by itself: say which one.
    const { url } = message.location();
    pageErrors.push(url ? `${message.text()} (${url})` : message.text());
  });

  await page.goto(pageUrl);
  await waitForPage(page, { status: 'ready', connection: 'idle' });
  const stylesheet = await page.evaluate(() => {
    const probe = document.createElement('article');
    probe.className = 'assistant-message';
    document.body.append(probe);
    const display = getComputedStyle(probe).display;
    probe.remove();
    return display;
  });
  assert(
    stylesheet === 'flex',
    `runstream/react/styles.css is not applied (.assistant-message is ${stylesheet})`,
  );
  log('  the page loaded with runstream/react/styles.css applied');

  await page.getByTestId('input').fill('Please cancel order B2002');
  await page.getByTestId('send').click();
  await waitForPage(page, { status: 'awaiting_confirmation', pending: '1' });
  const card = page.locator('.shop-card .confirm-card');
  assert((await card.count()) === 1, 'the card is not the page’s own ShopConfirmCard');
  const cardText = `${await card.locator('.confirm-title').textContent()}: ${await card.locator('.confirm-description').textContent()}`;
  assert(cardText.includes('B2002') && cardText.includes('Desk lamp'), `the card says "${cardText}"`);
  const onCard = await renderedBlocks(page);
  log(`  send → the card "${cardText}" (${describeBlocks(onCard)})`);
  assert(new URL(page.url()).searchParams.has('conversation'), 'the page did not keep the conversation');

  await page.reload();
  await waitForPage(page, { status: 'awaiting_confirmation', pending: '1' });
  const reloadedOnCard = await renderedBlocks(page);
  assert(
    JSON.stringify(reloadedOnCard) === JSON.stringify(onCard),
    `after a reload on the card the blocks differ:\n${JSON.stringify(onCard)}\n${JSON.stringify(reloadedOnCard)}`,
  );
  log('  reload → the same blocks, the card still pending');

  await page.getByTestId('confirm-approve').click();
  await waitForPage(page, { status: 'ready', pending: '0', connection: 'idle' });
  const answered = await renderedBlocks(page);
  const answer = answered.filter((block) => block.kind === 'answer').at(-1)?.text ?? '';
  assert(
    answer.includes('Order B2002 is cancelled; refund R-B2002 is on its way.') &&
      answered.some((block) => block.kind === 'confirm' && block.status === 'approved') &&
      answered.some((block) => block.kind === 'tool' && block.status === 'done'),
    `after approving: ${JSON.stringify(answered)}`,
  );
  log(`  approve → "${answer}" (${describeBlocks(answered)})`);

  await page.reload();
  await waitForPage(page, { status: 'ready', pending: '0' });
  const reloaded = await renderedBlocks(page);
  assert(
    JSON.stringify(reloaded) === JSON.stringify(answered),
    `after a reload the blocks differ:\n${JSON.stringify(answered)}\n${JSON.stringify(reloaded)}`,
  );
  log('  reload → the same blocks');
  assert(pageErrors.length === 0, `the page reported errors: ${pageErrors.join(' | ')}`);
  await browser.close();
  browser = undefined;
}

let failed = false;
try {
  log(`test:package on Node ${process.version}, in ${work}`);
  if (!flags.has('--skip-build'))
    await step('build (npm run build)', () => run('npm', ['run', 'build'], { timeoutMs: 10 * MINUTE }));
  const tarball = await step('pack (npm pack)', pack);

  // The three installs go at once: the SQLite driver's compile is most of the time.
  const [app, types, pageProject] = await step('install the tarball into three fresh projects', () =>
    Promise.all(['app', 'types', 'page'].map((name) => install(name, tarball))),
  );

  await step('(c) tsc --noEmit over consumer.ts, every entry, against the shipped .d.ts', async () => {
    await run(process.execPath, [join(types, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.'], {
      cwd: types,
    });
    log('  no errors, and every @ts-expect-error met its error');
  });

  const pageDir = await step('(d) vite build of the React page', async () => {
    const output = await run(
      process.execPath,
      [join(pageProject, 'node_modules', 'vite', 'bin', 'vite.js'), 'build'],
      {
        cwd: pageProject,
      },
    );
    for (const line of output.split('\n').filter((line) => /dist\/.*kB/.test(line))) log(`  ${line.trim()}`);
    return join(pageProject, 'dist');
  });

  await step('(b) node server.mjs: agent.mjs through createRunstream + sqliteStore + serve', async () => {
    assert(!existsSync(join(app, 'node_modules', 'tsx')), 'tsx is installed in the app project');
    assert(!existsSync(join(app, 'node_modules', 'runstream', 'src')), 'the package ships src/');
    const help = await run('npx', ['--no-install', 'runstream', '--help'], { cwd: app });
    assert(/Usage/.test(help), `npx runstream --help printed:\n${help}`);
    log('  npx runstream --help prints the usage');
    await startServer(app, pageDir);
    const health = await fetch(`${server.api}/health`);
    assert(health.ok, `GET ${server.api}/health answered ${health.status}`);
    log(`  the API is at ${server.api} (GET /support/health ${health.status}), the page at ${server.page}`);
  });

  await step('(a) node client.mjs: runstream/client streams, approves once and stops', async () => {
    const output = await run(process.execPath, ['client.mjs', server.api], { cwd: app, timeoutMs: MINUTE });
    for (const line of output.trim().split('\n')) log(`  ${line}`);
  });

  await step('(d) the page in headless Chromium: send → card → approve → answer, reloads', () =>
    drivePage(server.page),
  );
} catch (error) {
  failed = true;
  log(`\nFAIL ${current}: ${error.message}`);
  if (error.output) log(error.output.trim().split('\n').slice(-60).join('\n'));
  if (!(error instanceof StepError) && error.stack) log(error.stack);
} finally {
  await browser?.close().catch(() => undefined);
  await stopServer();
  if (failed || flags.has('--keep')) log(`\nthe projects are left in ${work}`);
  else rmSync(work, { recursive: true, force: true });
}

log('\ntimings:');
for (const { name, seconds } of timings) log(`  ${seconds.toFixed(1).padStart(6)} s  ${name}`);
const total = ((performance.now() - started) / 1000).toFixed(1);
log(failed ? `test:package FAILED after ${total} s` : `test:package: every part passed in ${total} s`);
process.exit(failed ? 1 : 0);
