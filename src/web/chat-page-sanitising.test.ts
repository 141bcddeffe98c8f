import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedChatModel, textTurn } from '../models/index.ts';
import {
  type ChatPageFixture,
  sendMessage,
  startChatPageFixture,
  waitForLastMessageStatus,
} from './test-support/chat-page-fixture.ts';

/** Model output that tries to become markup: it must reach the page as text or inert Markdown. */
const HOSTILE_ANSWER = [
  '**加粗**和一个[正常链接](https://example.com/policy)。',
  '<img src="x" onerror="window.__pwned = true">',
  '<script>window.__pwned = true</script>',
  '[点我](javascript:window.__pwned=true)',
  '<a href="#" onclick="window.__pwned = true">假按钮</a>',
  '<iframe src="https://example.com"></iframe><style>body{display:none}</style>',
  '（来源：knowledge/policies/order-changes.md#L21）',
].join('\n\n');

let fixture: ChatPageFixture;

beforeAll(async () => {
  fixture = await startChatPageFixture({
    model: new ScriptedChatModel([textTurn(HOSTILE_ANSWER, { chunkSize: 7 })]),
  });
}, 60_000);

afterAll(async () => {
  await fixture?.close();
});

describe('model output on the page', () => {
  it('is rendered as sanitised Markdown: no script runs, no handler or dangerous URL survives', async () => {
    const page = await fixture.newPage();
    await page.goto(fixture.url);
    await sendMessage(page, '随便说点什么');
    await waitForLastMessageStatus(page, ['completed']);

    const answer = page.locator('[data-testid="block"][data-kind="answer"]');
    expect(await page.evaluate(() => (window as unknown as { __pwned?: boolean }).__pwned)).toBeUndefined();
    expect(await answer.locator('strong').textContent()).toBe('加粗');
    expect(await answer.locator('img, script, iframe, style').count()).toBe(0);
    expect(await answer.locator('[onerror], [onclick]').count()).toBe(0);
    const hrefs = await answer
      .locator('a')
      .evaluateAll((links) => links.map((link) => link.getAttribute('href')));
    for (const href of hrefs) expect(href ?? '').not.toMatch(/^\s*javascript:/i);
    const external = answer.locator('a[href="https://example.com/policy"]');
    expect(await external.getAttribute('rel')).toContain('noopener');
    // The citation is a link to the source, not a raw path.
    expect(await answer.locator('a[data-citation="knowledge/policies/order-changes.md#L21"]').count()).toBe(
      1,
    );
    // The body is still visible (the <style> did not apply).
    expect(await page.locator('body').isVisible()).toBe(true);
  });
});
