import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import type { Page } from 'playwright-core';
import { startTestServer, TEST_TOKEN } from '../../server/test-support/start-test-server.ts';
import {
  type BrowserServerFixture,
  openBrowserServerFixture,
} from '../../web/test-support/browser-server-fixture.ts';

const HOOK_PAGE = fileURLToPath(new URL('./hook-page/', import.meta.url));

export type { ApiBody } from '../../web/test-support/browser-server-fixture.ts';

export interface HookPageFixture extends BrowserServerFixture {
  /** The hook page's address (through the proxy), with the test token; `conversation` opens one. */
  pageUrl(conversationId?: string): string;
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
  const shared = await openBrowserServerFixture(testServer);
  return {
    ...shared,
    pageUrl(conversationId) {
      const query = new URLSearchParams({ token: TEST_TOKEN });
      if (conversationId !== undefined) query.set('conversation', conversationId);
      return `${shared.proxy.url}/?${query}`;
    },
    newPage: () => shared.newPage({ width: 1000, height: 900 }),
    async close() {
      await shared.close();
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
