import Database from 'better-sqlite3';
import type { Browser, Page } from 'playwright-core';
import { TEST_TOKEN, type TestServer } from '../../server/test-support/start-test-server.ts';
import { launchChromium } from './browser.ts';
import { type DropProxy, startDropProxy } from './drop-proxy.ts';

/** Loosely typed JSON from the API: tests read the fields they check. */
// biome-ignore lint/suspicious/noExplicitAny: test code reads whichever fields it asserts on
export type ApiBody = any;

/**
 * What every browser test around a real server needs, whatever page it loads (the shipped chat
 * page, the `runstream/react` hook page): a dropping proxy in front of the server, headless
 * Chromium, pages that fail the test when they throw, the API and the SQLite file beside them.
 */
export interface BrowserServerFixture {
  testServer: TestServer;
  /** The browser talks to the server through this proxy, so a test can cut its connections. */
  proxy: DropProxy;
  browser: Browser;
  newPage(options?: { width?: number; height?: number }): Promise<Page>;
  /** An authenticated JSON request straight to the server (not through the proxy). */
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: ApiBody }>;
  /** Read the server's SQLite file (orders, tool calls) to check side effects. */
  query<T>(sql: string, ...params: unknown[]): T[];
  /** Close the pages, the browser, the proxy and the server. */
  close(): Promise<void>;
}

export async function openBrowserServerFixture(testServer: TestServer): Promise<BrowserServerFixture> {
  const proxy = await startDropProxy(Number(new URL(testServer.server.url).port));
  const browser = await launchChromium();
  const pages: Page[] = [];
  return {
    testServer,
    proxy,
    browser,
    async newPage({ width = 1200, height = 900 } = {}) {
      const context = await browser.newContext({ viewport: { width, height }, locale: 'zh-CN' });
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
      // A run stream (SSE) comes back as its text, read to the end.
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
    },
  };
}
