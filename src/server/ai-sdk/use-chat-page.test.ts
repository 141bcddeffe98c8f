import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, saveScreenshot } from '../../web/test-support/browser.ts';
import { startTestServer, TEST_TOKEN, type TestServer } from '../test-support/start-test-server.ts';
import { buildUseChatPage, servePage } from './test-support/use-chat-page.ts';

/**
 * A minimal `useChat` page (React + `@ai-sdk/react` from interop/, bundled with vite) in real headless
 * Chromium, served from the same origin as the API (its server proxies `/v1` to a real runstream
 * server with the offline NovaShop model): the seed cancel by typing and clicking, the approval
 * card surviving a reload through the SDK's resume, and the answer after approving.
 */
const SEED = '我买的那块表还没发货的话，帮我取消吧，不想要了。';

let server: TestServer;
let page: { outDir: string; remove(): void };
let origin: { url: string; close(): Promise<void> };
let browser: Browser;

beforeAll(async () => {
  server = await startTestServer();
  page = await buildUseChatPage();
  origin = await servePage(page.outDir, server.server.url);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await origin?.close();
  page?.remove();
  await server?.close();
});

function tool(tab: Page, name: string) {
  return tab.locator(`[data-part="tool"][data-tool="${name}"]`);
}

describe('a useChat page on /v1/ai-sdk/chat', () => {
  it('shows reasoning, text and tool parts, the approval card again after a reload, and the answer after approving', async () => {
    const tab = await browser.newPage();
    const errors: string[] = [];
    tab.on('pageerror', (error) => errors.push(error.message));
    await tab.goto(`${origin.url}/?token=${TEST_TOKEN}`);
    // `resume: true` asked for the chat's stream on mount: nothing under way, 204, ready.
    await expect.poll(() => tab.getByTestId('status').textContent()).toBe('ready');
    await tab.getByTestId('input').fill(SEED);
    await tab.getByTestId('send').click();

    await tool(tab, 'cancel_order')
      .and(tab.locator('[data-state="approval-requested"]'))
      .waitFor({ timeout: 30_000 });
    await expect.poll(() => tab.getByTestId('status').textContent()).toBe('ready');
    const before = await renderedParts(tab);
    expect(before.find((part) => part.part === 'reasoning')?.text).toBeTruthy();
    expect(before.find((part) => part.role === 'assistant' && part.part === 'text')?.text).toBe(
      '我先看下取消订单的具体办理流程。',
    );
    expect(
      before.filter((part) => part.part === 'tool' && part.state === 'output-available').length,
    ).toBeGreaterThan(0);
    expect(await tool(tab, 'cancel_order').textContent()).toContain('"orderId":"88235"');
    expect(await tab.locator('[data-approval-title]').textContent()).toBe('取消订单');

    // A reload loses the page's messages; the SDK's resume replays the paused run from our log.
    await tab.reload();
    await tool(tab, 'cancel_order')
      .and(tab.locator('[data-state="approval-requested"]'))
      .waitFor({ timeout: 30_000 });
    const assistantParts = before.filter((part) => part.role === 'assistant');
    expect(await renderedParts(tab)).toEqual(assistantParts);

    await tab.getByTestId('approve').click();
    await tool(tab, 'cancel_order')
      .and(tab.locator('[data-state="output-available"]'))
      .waitFor({ timeout: 30_000 });
    await expect.poll(() => tab.getByTestId('status').textContent()).toBe('ready');
    const after = await renderedParts(tab);
    expect(
      after
        .filter((part) => part.part === 'text')
        .map((part) => part.text)
        .join(''),
    ).toContain('已为你取消订单 88235');
    expect(await tool(tab, 'cancel_order').locator('[data-output]').textContent()).toContain('88235');
    await saveScreenshot(tab, 'ai-sdk-use-chat');
    expect(await tab.getByTestId('error').count()).toBe(0);
    expect(errors).toEqual([]);
    await tab.close();
  }, 120_000);
});

interface RenderedPart {
  role: string;
  part: string;
  tool: string | null;
  state: string | null;
  text: string;
}

async function renderedParts(tab: Page): Promise<RenderedPart[]> {
  return tab.$$eval('[data-part]', (elements) =>
    elements.map((element) => ({
      role: element.closest('li')?.getAttribute('data-role') ?? '',
      part: element.getAttribute('data-part') ?? '',
      tool: element.getAttribute('data-tool'),
      state: element.getAttribute('data-state'),
      text: (element.textContent ?? '').trim(),
    })),
  );
}
