import Database from 'better-sqlite3';
import type { Page } from 'playwright-core';
import { seedNovaShop } from '../../../examples/novashop/orders/seed-novashop.ts';
import { DEFAULT_WEB_ROOT } from '../../cli/build-web.ts';
import type { ChatModel } from '../../models/index.ts';
import { DEMO_USER_ID } from '../../node/start-server.ts';
import { startTestServer } from '../../server/test-support/start-test-server.ts';
import { type BrowserServerFixture, openBrowserServerFixture } from './browser-server-fixture.ts';

/** The seed scenario's message (seed 002): cancel the watch if it has not shipped. */
export const SEED_CANCEL_MESSAGE = '我买的那块表还没发货的话，帮我取消吧，不想要了。';
/** A policy question whose answer streams for a few seconds at the fixture's pace. */
export const RETURN_QUESTION = '跑鞋穿了一次不合适，可以退吗？';

export type { ApiBody } from './browser-server-fixture.ts';

export interface ChatPageFixture extends BrowserServerFixture {
  /** The page's origin (the proxy's). */
  url: string;
  /** Put the demo user's orders back to the seed (order 88235 paid, not shipped), for a fresh card. */
  resetDemoOrders(): void;
}

/**
 * The real server (`npm start`'s composition root with the offline NovaShop model, at `delayMs` per
 * stream part), the built page, a dropping proxy in front, and headless Chromium.
 */
export async function startChatPageFixture(
  options: { delayMs?: number; model?: ChatModel } = {},
): Promise<ChatPageFixture> {
  const testServer = await startTestServer({
    webRoot: DEFAULT_WEB_ROOT,
    env: { RUNSTREAM_DEMO_DELAY_MS: String(options.delayMs ?? 0) },
    ...(options.model === undefined ? {} : { model: options.model }),
  });
  const shared = await openBrowserServerFixture(testServer);
  return {
    ...shared,
    url: shared.proxy.url,
    resetDemoOrders() {
      const database = new Database(testServer.databasePath, { fileMustExist: true });
      try {
        database.transaction(() => {
          database.prepare('DELETE FROM novashop_order_items WHERE user_id = ?').run(DEMO_USER_ID);
          database.prepare('DELETE FROM novashop_orders WHERE user_id = ?').run(DEMO_USER_ID);
          seedNovaShop(database, DEMO_USER_ID);
        })();
      } finally {
        database.close();
      }
    },
  };
}

/** Type into the composer and press Enter, as a person would. */
export async function sendMessage(page: Page, text: string): Promise<void> {
  const input = page.getByTestId('composer-input');
  await input.fill(text);
  await input.press('Enter');
}

/** The latest assistant message's status attribute once it equals one of `statuses`. */
export async function waitForLastMessageStatus(
  page: Page,
  statuses: string[],
  timeout = 20_000,
): Promise<string> {
  const handle = await page.waitForFunction(
    (wanted) => {
      const messages = document.querySelectorAll('[data-testid="assistant-message"]');
      const status = messages[messages.length - 1]?.getAttribute('data-status');
      return status && wanted.includes(status) ? status : false;
    },
    statuses,
    { timeout },
  );
  return (await handle.jsonValue()) as string;
}

/** The text of the last assistant message's answer blocks, joined. */
export async function lastAnswerText(page: Page): Promise<string> {
  return page.evaluate(() => {
    const messages = document.querySelectorAll('[data-testid="assistant-message"]');
    const last = messages[messages.length - 1];
    if (!last) return '';
    return [...last.querySelectorAll('[data-testid="block"][data-kind="answer"]')]
      .map(
        (block) => block.querySelector('.answer-content, .markdown')?.textContent ?? block.textContent ?? '',
      )
      .join('\n');
  });
}

/** The run id behind the current conversation's last assistant message, from the API. */
export async function lastRunId(fixture: ChatPageFixture, page: Page): Promise<string> {
  const conversationId = decodeURIComponent(new URL(page.url()).pathname.split('/')[2] ?? '');
  const { body } = await fixture.api('GET', `/v1/conversations/${conversationId}`);
  const last = body.messages.at(-1);
  return last.runId as string;
}
