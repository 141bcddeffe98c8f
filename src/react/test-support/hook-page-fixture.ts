import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import Database from 'better-sqlite3';
import type { Browser, Page } from 'playwright-core';
import { startTestServer, TEST_TOKEN, type TestServer } from '../../server/test-support/start-test-server.ts';
import { launchChromium } from '../../web/test-support/browser.ts';
import { type DropProxy, startDropProxy } from '../../web/test-support/drop-proxy.ts';

const HOOK_PAGE = fileURLToPath(new URL('./hook-page/', import.meta.url));

/** Loosely typed JSON from the API: tests read the fields they check. */
// biome-ignore lint/suspicious/noExplicitAny: test code reads whichever fields it asserts on
export type ApiBody = any;

export interface HookPageFixture {
  testServer: TestServer;
  /** The browser talks to the server through this proxy, so a test can cut its connections. */
  proxy: DropProxy;
  browser: Browser;
  /** The hook page's address (through the proxy), with the test token; `conversation` opens one. */
  pageUrl(conversationId?: string): string;
  newPage(): Promise<Page>;
  /** An authenticated JSON request straight to the server (not through the proxy). */
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: ApiBody }>;
  query<T>(sql: string, ...params: unknown[]): T[];
  close(): Promise<void>;
}

/**
 * The hook page (hook-page/, built with Vite into a temp folder, as a team's own page would be),
 * served by the real server (`npm start`'s composition with the offline NovaShop model at
 * `delayMs` per stream part), a dropping proxy in front, and headless Chromium.
 */
export async function startHookPageFixture(options: { delayMs?: number } = {}): Promise<HookPageFixture> {
  const webRoot = mkdtempSync(join(tmpdir(), 'runstream-hook-page-'));
  const { build } = await import('vite');
  await build({
    configFile: false,
    root: HOOK_PAGE,
    base: '/',
    logLevel: 'warn',
    plugins: [react()],
    build: { outDir: webRoot, emptyOutDir: true, target: 'es2022' },
  });
  const testServer = await startTestServer({
    webRoot,
    env: { RUNSTREAM_DEMO_DELAY_MS: String(options.delayMs ?? 0) },
  });
  const proxy = await startDropProxy(Number(new URL(testServer.server.url).port));
  const browser = await launchChromium();
  const pages: Page[] = [];
  return {
    testServer,
    proxy,
    browser,
    pageUrl(conversationId) {
      const query = new URLSearchParams({ token: TEST_TOKEN });
      if (conversationId !== undefined) query.set('conversation', conversationId);
      return `${proxy.url}/?${query}`;
    },
    async newPage() {
      const context = await browser.newContext({ viewport: { width: 1000, height: 900 }, locale: 'zh-CN' });
      const page = await context.newPage();
      page.on('pageerror', (error) => {
        throw new Error(`the page threw: ${error.message}`);
      });
      pages.push(page);
      return page;
    },
    async api(method, path, body) {
      const response = await fetch(`${testServer.server.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      const json = response.headers.get('content-type')?.includes('application/json');
      return { status: response.status, body: json ? JSON.parse(text) : text };
    },
    query<T>(sql: string, ...params: unknown[]) {
      const database = new Database(testServer.databasePath, { readonly: true, fileMustExist: true });
      try {
        return database.prepare(sql).all(...params) as T[];
      } finally {
        database.close();
      }
    },
    async close() {
      for (const page of pages)
        await page
          .context()
          .close()
          .catch(() => undefined);
      await browser.close().catch(() => undefined);
      await proxy.close();
      await testServer.close();
      rmSync(webRoot, { recursive: true, force: true });
    },
  };
}

/** The hook page's state attributes once `read` holds, e.g. `{ status: 'ready' }`. */
export async function waitForHookState(
  page: Page,
  wanted: Partial<Record<'status' | 'connection' | 'pending', string>>,
  timeout = 20_000,
): Promise<void> {
  await page.waitForFunction(
    (expected) => {
      const main = document.querySelector('[data-testid="hook-page"]');
      return (
        main !== null &&
        Object.entries(expected).every(([name, value]) => main.getAttribute(`data-${name}`) === value)
      );
    },
    wanted,
    { timeout },
  );
}

/** Type a message into the hook page's composer and send it. */
export async function sendFromHookPage(page: Page, text: string): Promise<void> {
  await page.getByTestId('input').fill(text);
  await page.getByTestId('send').click();
}
