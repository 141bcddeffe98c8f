import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedChatModel, textTurn } from '../../models/index.ts';
import { launchChromium, saveScreenshot } from '../../web/test-support/browser.ts';
import { startTestServer, TEST_TOKEN, type TestServer } from '../test-support/start-test-server.ts';
import { GatedChatModel } from './test-support/gated-chat-model.ts';
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

describe('stopping from a useChat page', () => {
  /** A server whose model waits after two text pieces, and the page's origin in front of it. */
  async function gatedSite(text: string) {
    const model = new GatedChatModel(new ScriptedChatModel([textTurn(text, { chunkSize: 2 })]), 2);
    const hooks = { onStreamGet: () => {} };
    const gated = await startTestServer({
      model,
      log: (line) => {
        if (String(line.path).endsWith('/stream') && line.status === 200) hooks.onStreamGet();
      },
    });
    const site = await servePage(page.outDir, gated.server.url);
    return {
      model,
      hooks,
      url: site.url,
      run: async (runId: string) =>
        (await (
          await fetch(`${gated.server.url}/v1/runs/${runId}`, {
            headers: { authorization: `Bearer ${TEST_TOKEN}` },
          })
        ).json()) as { status: string; cancelReason?: string },
      close: async () => {
        await site.close();
        await gated.close();
      },
    };
  }

  it('useChat().stop() is a disconnect: the run goes on, and a reload shows it finished', async () => {
    const site = await gatedSite('前半段。后半段在门后。');
    const tab = await browser.newPage();
    try {
      await tab.goto(`${site.url}/?token=${TEST_TOKEN}`);
      await expect.poll(() => tab.getByTestId('status').textContent()).toBe('ready');
      await tab.getByTestId('input').fill('讲吧');
      await tab.getByTestId('send').click();
      await site.model.reached;
      await tab.locator('[data-role="assistant"] [data-part="text"]').waitFor();
      const runId = (await tab.locator('[data-role="assistant"]').getAttribute('data-run-id')) ?? '';
      await tab.getByTestId('stop').click();
      await expect.poll(() => tab.getByTestId('status').textContent()).toBe('ready');
      expect(await site.run(runId)).toMatchObject({ status: 'running' });

      // The run may go on once the reloaded page has asked for it.
      site.hooks.onStreamGet = () => site.model.open();
      await tab.reload();
      await expect
        .poll(() => tab.locator('[data-role="assistant"] [data-part="text"]').textContent())
        .toBe('前半段。后半段在门后。');
      await expect.poll(() => tab.getByTestId('status').textContent()).toBe('ready');
      expect(await site.run(runId)).toMatchObject({ status: 'completed' });
    } finally {
      await tab.close();
      await site.close();
    }
  }, 120_000);

  it('the explicit stop (the run id from the message metadata, POST /v1/runs/:id/cancel) ends the run', async () => {
    const site = await gatedSite('说到一半就停。');
    const tab = await browser.newPage();
    try {
      await tab.goto(`${site.url}/?token=${TEST_TOKEN}`);
      await expect.poll(() => tab.getByTestId('status').textContent()).toBe('ready');
      await tab.getByTestId('input').fill('说吧');
      await tab.getByTestId('send').click();
      await site.model.reached;
      await tab.locator('[data-role="assistant"] [data-part="text"]').waitFor();
      const runId = (await tab.locator('[data-role="assistant"]').getAttribute('data-run-id')) ?? '';
      await tab.getByTestId('cancel-run').click();
      // The page's own stream was not aborted: it ends with the run's `abort`, and the chat is ready.
      await expect.poll(() => tab.getByTestId('status').textContent()).toBe('ready');
      expect(await tab.locator('[data-role="assistant"] [data-part="text"]').textContent()).toBe('说到一半');
      expect(await tab.getByTestId('error').count()).toBe(0);
      expect(await site.run(runId)).toMatchObject({ status: 'cancelled', cancelReason: 'user_stop' });
    } finally {
      await tab.close();
      await site.close();
    }
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
