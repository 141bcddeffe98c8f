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
  server: ['shared', 'protocol', 'runtime', 'models', 'retrieval', 'store', 'bus', 'domains', 'mcp'],
  // A domain keeps its own tables (NovaShop's orders) with the store's engines and migrations.
  domains: ['shared', 'protocol', 'runtime', 'models', 'retrieval', 'store'],
  cli: [
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
  web: ['shared', 'protocol', 'client'],
  // Fault campaigns: test files only, which drive a whole server from outside through any layer.
  faults: [
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
const BROWSER_LAYERS = new Set(['shared', 'protocol', 'client', 'web']);

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
