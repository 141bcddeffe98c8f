import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedChatModel, textTurn } from '../models/index.ts';
import { saveScreenshot } from './test-support/browser.ts';
import {
  type ChatPageFixture,
  sendMessage,
  startChatPageFixture,
  waitForLastMessageStatus,
} from './test-support/chat-page-fixture.ts';

/**
 * The run's token usage in the timeline, in real Chromium against the real server: shown after a
 * run whose model reported usage, the same after a refresh (from the persisted message), in both
 * languages, and not at all for a run whose model reported none.
 */
const USAGE = { inputTokens: 12_600, outputTokens: 150, reasoningTokens: 40, cachedInputTokens: 10_240 };

let fixture: ChatPageFixture;

beforeAll(async () => {
  fixture = await startChatPageFixture({
    model: new ScriptedChatModel([
      textTurn('订单 88235 还没发货，可以直接取消。', { reasoning: '先看订单状态。', usage: USAGE }),
      textTurn('不客气，还有别的需要吗？'),
    ]),
  });
}, 60_000);

afterAll(async () => {
  await fixture?.close();
});

/** Open the last message's timeline and return its usage line (a locator: it may be absent). */
async function lastTimelineUsage(page: Page) {
  await page.locator('.assistant-timeline-toggle').last().click();
  const timeline = page.locator('.run-timeline').last();
  await timeline.getByTestId('run-timeline').waitFor();
  return timeline.getByTestId('run-usage');
}

describe('token usage on the chat page', () => {
  it('shows the run’s usage in its timeline, after a refresh too, in both languages; nothing when unknown', async () => {
    const page = await fixture.newPage();
    await page.goto(fixture.url);
    await sendMessage(page, '88235 能取消吗？');
    await waitForLastMessageStatus(page, ['completed']);

    const usage = await lastTimelineUsage(page);
    await usage.waitFor();
    expect(await usage.textContent()).toBe(
      'Token 用量：输入 12,600（缓存命中 10,240） · 输出 150（推理 40）',
    );
    expect(await usage.getAttribute('data-input')).toBe('12600');
    await usage.scrollIntoViewIfNeeded();
    await saveScreenshot(page, 'timeline-usage');

    // A refresh renders the persisted message: the same usage, read back from the store.
    await page.reload();
    await waitForLastMessageStatus(page, ['completed']);
    const restored = await lastTimelineUsage(page);
    await restored.waitFor();
    expect(await restored.textContent()).toBe(
      'Token 用量：输入 12,600（缓存命中 10,240） · 输出 150（推理 40）',
    );
    await page.getByTestId('language').click();
    expect(await restored.textContent()).toBe(
      'Tokens: input 12,600 (10,240 cached) · output 150 (40 reasoning)',
    );
    await page.getByTestId('language').click();

    // The second answer's model reported nothing: its timeline has no usage line, not a zero.
    await sendMessage(page, '谢谢');
    await page.waitForFunction(
      () => document.querySelectorAll('[data-testid="assistant-message"]').length === 2,
    );
    await waitForLastMessageStatus(page, ['completed']);
    const none = await lastTimelineUsage(page);
    expect(await page.locator('.run-timeline').count()).toBe(2);
    expect(await none.count()).toBe(0);
    // The first message's line is still there.
    expect(await page.getByTestId('run-usage').count()).toBe(1);
  });
});
