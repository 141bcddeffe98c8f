import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RenderedBlock, renderedBlocks } from './test-support/browser.ts';
import {
  type ChatPageFixture,
  lastAnswerText,
  lastRunId,
  RETURN_QUESTION,
  sendMessage,
  startChatPageFixture,
  waitForLastMessageStatus,
} from './test-support/chat-page-fixture.ts';

/**
 * Streaming in real Chromium: a refresh mid-stream, a connection the network drops, and the stop
 * button. The offline model streams at 40 ms per part, so the answer takes a few seconds.
 */
let fixture: ChatPageFixture;
/** The same question answered without interruption: what every interrupted run must end up showing. */
let reference: { text: string; blocks: RenderedBlock[] };

beforeAll(async () => {
  fixture = await startChatPageFixture({ delayMs: 40 });
  const page = await fixture.newPage();
  await page.goto(fixture.url);
  await sendMessage(page, RETURN_QUESTION);
  await waitForLastMessageStatus(page, ['completed'], 30_000);
  reference = { text: await lastAnswerText(page), blocks: await renderedBlocks(page) };
  await page.close();
}, 60_000);

afterAll(async () => {
  await fixture?.close();
});

/** Wait until the streaming answer shows at least `characters` characters, and return them. */
async function waitForStreamingAnswer(page: Page, characters: number): Promise<string> {
  const handle = await page.waitForFunction(
    (minimum) => {
      const blocks = document.querySelectorAll(
        '[data-testid="block"][data-kind="answer"][data-status="streaming"]',
      );
      const text = blocks[blocks.length - 1]?.textContent ?? '';
      return text.length >= minimum ? text : false;
    },
    characters,
    { timeout: 20_000 },
  );
  return (await handle.jsonValue()) as string;
}

/**
 * Timing text (思考了 0.5 秒, a tool's 不到 0.1 秒 or 0.2 秒) differs between two runs; everything else
 * must not.
 */
function withoutTimings(blocks: RenderedBlock[]): RenderedBlock[] {
  return blocks.map((block) => ({
    ...block,
    text: block.text.replace(/(不到 |under )?\d+(\.\d+)? ?(秒|s|毫秒|ms)/g, '#'),
  }));
}

describe('the chat page while a run streams', () => {
  it('continues after a refresh mid-stream and ends with the uninterrupted text', async () => {
    expect(reference.text.length).toBeGreaterThan(100);
    const page = await fixture.newPage();
    await page.goto(fixture.url);
    await sendMessage(page, RETURN_QUESTION);
    const partial = await waitForStreamingAnswer(page, 20);
    expect(reference.text.length).toBeGreaterThan(partial.length + 20);

    await page.reload();
    // The persisted part shows at once, the run is followed from there, and it still streams.
    await page.locator('[data-testid="block"][data-kind="answer"]').first().waitFor();
    expect(await page.getAttribute('[data-testid="assistant-message"]', 'data-status')).toBe('running');
    await waitForLastMessageStatus(page, ['completed'], 30_000);
    expect(await lastAnswerText(page)).toBe(reference.text);
    expect(withoutTimings(await renderedBlocks(page))).toEqual(withoutTimings(reference.blocks));
  });

  it('reconnects by itself when the connection drops mid-stream, without duplicated or missing text', async () => {
    const page = await fixture.newPage();
    const resumes: string[] = [];
    page.on('request', (request) => {
      const lastEventId = request.headers()['last-event-id'];
      if (request.url().includes('/events') && lastEventId !== undefined) resumes.push(lastEventId);
    });
    await page.goto(fixture.url);
    // Remember every connection state the page showed.
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { bannerLog: string[] }).bannerLog = seen;
      new MutationObserver(() => {
        const banner = document.querySelector('[data-testid="connection-banner"]');
        const text = banner?.textContent ?? '';
        if (text !== '' && seen.at(-1) !== text) seen.push(text);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    await sendMessage(page, RETURN_QUESTION);
    await waitForStreamingAnswer(page, 20);

    expect(fixture.proxy.dropAll()).toBeGreaterThan(0);
    await waitForLastMessageStatus(page, ['completed'], 30_000);

    const banners = await page.evaluate(() => (window as unknown as { bannerLog: string[] }).bannerLog);
    expect(banners.some((text) => text.includes('正在重连'))).toBe(true);
    expect(resumes.length).toBeGreaterThan(0);
    expect(Number(resumes[0])).toBeGreaterThan(0);
    expect(await lastAnswerText(page)).toBe(reference.text);
    expect(withoutTimings(await renderedBlocks(page))).toEqual(withoutTimings(reference.blocks));
    // The server was never told to stop: the run completed there too.
    const run = await fixture.api('GET', `/v1/runs/${await lastRunId(fixture, page)}`);
    expect(run.body.status).toBe('completed');
  });

  it('stops on the stop button: blocks kept and marked stopped, the server says cancelled with user_stop', async () => {
    const page = await fixture.newPage();
    await page.goto(fixture.url);
    await sendMessage(page, RETURN_QUESTION);
    const partial = await waitForStreamingAnswer(page, 20);

    await page.getByTestId('stop').click();
    await waitForLastMessageStatus(page, ['cancelled']);
    const blocks = await renderedBlocks(page);
    const answer = blocks.find((block) => block.kind === 'answer');
    expect(answer?.status).toBe('cancelled');
    expect(answer?.text.length).toBeGreaterThanOrEqual(partial.length);
    expect((await lastAnswerText(page)).length).toBeLessThan(reference.text.length);
    expect(await page.locator('[data-testid="assistant-message"]').textContent()).toContain(
      '你停止了这次回复',
    );

    const run = await fixture.api('GET', `/v1/runs/${await lastRunId(fixture, page)}`);
    expect(run.body).toMatchObject({ status: 'cancelled', cancelReason: 'user_stop' });
    // The composer is free again, and a refresh shows the same stopped message.
    expect(await page.getByTestId('stop').count()).toBe(0);
    await page.reload();
    await waitForLastMessageStatus(page, ['cancelled']);
    expect(await renderedBlocks(page)).toEqual(blocks);
  });
});
