import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ScriptedChatModel } from '../models/index.ts';
import { RunManager } from '../runtime/index.ts';
import { testAgent } from '../runtime/test-support/test-agent.ts';
import { MemoryRunStore } from '../store/index.ts';
import { type AppOptions, createApp } from './create-app.ts';
import {
  frameAncestorsFromEnv,
  type ServeWebOptions,
  serveWeb,
  WEB_CONTENT_SECURITY_POLICY,
} from './serve-web.ts';

const INDEX =
  '<!doctype html><html><head><script type="module" src="/assets/index-Ab12.js"></script></head></html>';
const SCRIPT = 'console.log("runstream");';
const STYLE = 'body { margin: 0; }';
const FAVICON = '<svg xmlns="http://www.w3.org/2000/svg"></svg>';
const SECRET = 'the secret outside the web root';
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "font-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

let directory: string;
let webRoot: string;
let baseUrl: string;
let token: string;
let close: () => Promise<void>;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'runstream-web-'));
  webRoot = join(directory, 'web');
  mkdirSync(join(webRoot, 'assets'), { recursive: true });
  writeFileSync(join(webRoot, 'index.html'), INDEX);
  writeFileSync(join(webRoot, 'assets', 'index-Ab12.js'), SCRIPT);
  writeFileSync(join(webRoot, 'assets', 'index-Cd34.css'), STYLE);
  writeFileSync(join(webRoot, 'favicon.svg'), FAVICON);
  writeFileSync(join(webRoot, '.env'), SECRET);
  writeFileSync(join(directory, 'secret.txt'), SECRET);
});

afterEach(async () => {
  await close();
  rmSync(directory, { recursive: true, force: true });
});

async function start(
  options: Partial<AppOptions> & { webRoot?: string; web?: ServeWebOptions } = {},
): Promise<void> {
  const { webRoot: root, web, ...appOptions } = options;
  const store = new MemoryRunStore();
  token = await store.issueToken((await store.createUser('alice')).id);
  const runs = new RunManager({
    agents: [
      testAgent({ model: new ScriptedChatModel([]), tools: [], skills: [], instructions: '你是客服。' }),
    ],
    store,
  });
  const server = serve({
    fetch: createApp({
      store,
      runs,
      ...appOptions,
      ...(root === undefined ? {} : { mountWeb: (app) => serveWeb(app, root, web) }),
    }).fetch,
    port: 0,
    hostname: '127.0.0.1',
  });
  await new Promise((resolve) => server.once('listening', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = async () => {
    await runs.close();
    await new Promise((resolve) => server.close(resolve));
  };
}

/** A request with the path exactly as written: `fetch` would normalise `..` and `%2e%2e` first. */
function raw(path: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const outgoing = request({ hostname, port, path, method: 'GET' }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

async function errorCode(response: Response): Promise<string | undefined> {
  return ((await response.json()) as { error?: { code?: string } }).error?.code;
}

describe('the web UI, served from webRoot', () => {
  it('answers / and the client-side routes with index.html, revalidated, under a strict CSP', async () => {
    await start({ webRoot });
    expect(WEB_CONTENT_SECURITY_POLICY).toBe(CSP);
    for (const path of ['/', '/c/abc', '/c/conv_0123456789', '/index.html']) {
      const response = await fetch(`${baseUrl}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('no-cache');
      expect(response.headers.get('content-security-policy')).toBe(CSP);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
      expect(await response.text()).toBe(INDEX);
    }
    const head = await fetch(`${baseUrl}/`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(head.headers.get('content-security-policy')).toBe(CSP);
    expect(await head.text()).toBe('');
    // Revalidation: the same file is a 304 without a body.
    const etag = (await fetch(`${baseUrl}/`)).headers.get('etag') ?? '';
    expect(etag).not.toBe('');
    const revalidated = await fetch(`${baseUrl}/c/abc`, { headers: { 'if-none-match': etag } });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.get('cache-control')).toBe('no-cache');
  });

  it('serves hashed assets as immutable with their content type, and root files with a short cache', async () => {
    await start({ webRoot });
    const script = await fetch(`${baseUrl}/assets/index-Ab12.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(script.headers.get('x-content-type-options')).toBe('nosniff');
    expect(script.headers.get('content-security-policy')).toBeNull();
    expect(await script.text()).toBe(SCRIPT);

    const style = await fetch(`${baseUrl}/assets/index-Cd34.css`);
    expect(style.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(await style.text()).toBe(STYLE);

    const head = await fetch(`${baseUrl}/assets/index-Ab12.js`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(head.headers.get('content-length')).toBe(String(SCRIPT.length));
    expect(await head.text()).toBe('');

    const favicon = await fetch(`${baseUrl}/favicon.svg`);
    expect(favicon.status).toBe(200);
    expect(favicon.headers.get('content-type')).toBe('image/svg+xml');
    expect(favicon.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(favicon.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await favicon.text()).toBe(FAVICON);
  });

  it('answers an unknown file with the usual 404 JSON', async () => {
    await start({ webRoot });
    for (const path of [
      '/assets/missing.js',
      '/assets/',
      '/assets',
      '/missing.svg',
      '/nope/deeper',
      '/.env',
    ]) {
      const response = await fetch(`${baseUrl}${path}`);
      expect([path, response.status]).toEqual([path, 404]);
      expect(response.headers.get('content-type')).toContain('application/json');
      expect(await errorCode(response)).toBe('not_found');
    }
  });

  it('never reads outside the web root, however the path is spelled', async () => {
    await start({ webRoot });
    const attempts = [
      '/assets/../../secret.txt',
      '/assets/../../../../../../etc/passwd',
      '/assets/%2e%2e/%2e%2e/secret.txt',
      '/assets/%2E%2E/%2E%2E/secret.txt',
      '/assets/..%2f..%2fsecret.txt',
      '/assets/%2e%2e%2f%2e%2e%2fsecret.txt',
      '/assets/..%5c..%5csecret.txt',
      '/assets/%252e%252e/%252e%252e/secret.txt',
      '/assets/index-Ab12.js%00.png',
      '/..%2fsecret.txt',
      '/%2e%2e%2fsecret.txt',
      '/%2e%2e/secret.txt',
      '/c/../../secret.txt',
      '/.env',
      '/%2eenv',
    ];
    for (const path of attempts) {
      const response = await raw(path);
      expect([path, response.status]).toEqual([path, 404]);
      expect(response.body).not.toContain(SECRET);
    }
    // A `..` that stays inside the root is only a longer name for a file of the page.
    expect((await raw('/assets/../favicon.svg')).body).toBe(FAVICON);
  });

  it('answers 503 web_ui_not_built when the root has no index.html', async () => {
    rmSync(join(webRoot, 'index.html'));
    await start({ webRoot });
    for (const path of ['/', '/c/abc']) {
      const response = await fetch(`${baseUrl}${path}`);
      expect(response.status).toBe(503);
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('web_ui_not_built');
      expect(body.error.message).toContain('npm run build:web');
    }
    expect((await fetch(`${baseUrl}/assets/index-Ab12.js`)).status).toBe(200);
  });

  it('leaves /health and /v1 as they were', async () => {
    await start({ webRoot });
    expect(await (await fetch(`${baseUrl}/health`)).json()).toEqual({ status: 'ok' });
    const authorization = { authorization: `Bearer ${token}` };
    expect((await fetch(`${baseUrl}/v1/conversations`)).status).toBe(401);
    const list = await fetch(`${baseUrl}/v1/conversations`, { headers: authorization });
    expect([list.status, await list.json()]).toEqual([200, { data: [] }]);
    const unknown = await fetch(`${baseUrl}/v1/nope`, { headers: authorization });
    expect(unknown.status).toBe(404);
    expect(await errorCode(unknown)).toBe('not_found');
    expect((await fetch(`${baseUrl}/v1/nope`)).status).toBe(401);
    const auth = await fetch(`${baseUrl}/auth/demo-session`, { method: 'POST' });
    expect([auth.status, await errorCode(auth)]).toEqual([404, 'not_found']);
  });

  it('serves nothing without a webRoot', async () => {
    await start();
    for (const path of ['/', '/c/abc', '/assets/index-Ab12.js', '/favicon.svg']) {
      const response = await fetch(`${baseUrl}${path}`);
      expect([path, response.status]).toEqual([path, 404]);
      expect(await errorCode(response)).toBe('not_found');
    }
  });
});

describe('framing the page (RUNSTREAM_FRAME_ANCESTORS)', () => {
  it('lets exactly the allowed origins frame the page, and nobody by default', async () => {
    const allowed = frameAncestorsFromEnv({
      RUNSTREAM_FRAME_ANCESTORS: "https://shop.example.com, https://*.example.org:8443 'self'",
    });
    await start({ webRoot, web: { frameAncestors: allowed } });
    const policy = (await fetch(`${baseUrl}/`)).headers.get('content-security-policy') ?? '';
    expect(policy).toContain("frame-ancestors https://shop.example.com https://*.example.org:8443 'self';");
    expect(policy).not.toContain("frame-ancestors 'none'");
    expect(policy.replace(/frame-ancestors [^;]+/, "frame-ancestors 'none'")).toBe(CSP);
  });

  it("reads empty and 'none' as nobody, and refuses what is not an origin", () => {
    expect(frameAncestorsFromEnv({})).toEqual([]);
    expect(frameAncestorsFromEnv({ RUNSTREAM_FRAME_ANCESTORS: " 'none' " })).toEqual([]);
    for (const value of [
      '*',
      'https:',
      'https://shop.example.com/path',
      "'unsafe-inline'",
      'javascript:alert(1)',
    ])
      expect(() => frameAncestorsFromEnv({ RUNSTREAM_FRAME_ANCESTORS: value }), value).toThrow(
        /RUNSTREAM_FRAME_ANCESTORS/,
      );
  });
});
