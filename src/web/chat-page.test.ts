import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderedBlocks, saveScreenshot } from './test-support/browser.ts';
import {
  type ChatPageFixture,
  SEED_CANCEL_MESSAGE,
  sendMessage,
  startChatPageFixture,
  waitForLastMessageStatus,
} from './test-support/chat-page-fixture.ts';

/**
 * The chat page in real headless Chromium against the real server (offline NovaShop model, real
 * SQLite file): the seed cancel-order scenario by clicking, refresh on the card, double clicks, the
 * 409 next to the composer, sources, English and a phone-width screen.
 */
let fixture: ChatPageFixture;

beforeAll(async () => {
  // A little pace, so blocks arrive one after another as they would from a model.
  fixture = await startChatPageFixture({ delayMs: 8 });
}, 60_000);

afterAll(async () => {
  await fixture?.close();
});

const SEED_KINDS_AT_CARD = [
  'reasoning',
  'answer',
  'tool',
  'reasoning',
  'tool',
  'reasoning',
  'answer',
  'tool',
  'confirm',
];

/** Record every block-kind sequence the page shows while it streams. */
async function recordBlockKinds(page: Page): Promise<void> {
  await page.evaluate(() => {
    const log: string[] = [];
    (window as unknown as { blockKindLog: string[] }).blockKindLog = log;
    new MutationObserver(() => {
      const kinds = [...document.querySelectorAll('[data-testid="block"]')]
        .map((block) => block.getAttribute('data-kind'))
        .join(',');
      if (log.at(-1) !== kinds) log.push(kinds);
    }).observe(document.body, { subtree: true, childList: true, attributes: true });
  });
}

async function openSeedCard(page: Page): Promise<void> {
  fixture.resetDemoOrders();
  await page.goto(fixture.url);
  await sendMessage(page, SEED_CANCEL_MESSAGE);
  await page.getByTestId('confirm-approve').waitFor({ timeout: 20_000 });
  await waitForLastMessageStatus(page, ['paused']);
}

function cancellationsOf88235(): number | undefined {
  return fixture.query<{ count: number }>(
    `SELECT COUNT(*) AS count FROM tool_calls WHERE name = 'cancel_order' AND executed = 1
       AND json_extract(args, '$.orderId') = '88235'`,
  )[0]?.count;
}

function orderStatus(orderId: string): string | undefined {
  return fixture.query<{ status: string }>(
    'SELECT status FROM novashop_orders WHERE order_id = ?',
    orderId,
  )[0]?.status;
}

describe('the chat page', () => {
  it('runs the seed cancel-order scenario by clicking: blocks in order, the card, one cancellation', async () => {
    const page = await fixture.newPage();
    fixture.resetDemoOrders();
    const cancellationsBefore = cancellationsOf88235() ?? 0;
    await page.goto(fixture.url);
    expect(await page.getAttribute('html', 'lang')).toBe('zh-CN');
    await recordBlockKinds(page);
    await sendMessage(page, SEED_CANCEL_MESSAGE);

    const card = page.locator('[data-testid="block"][data-kind="confirm"]');
    await card.waitFor({ timeout: 20_000 });
    await waitForLastMessageStatus(page, ['paused']);
    const atCard = await renderedBlocks(page);
    expect(atCard.map((block) => block.kind)).toEqual(SEED_KINDS_AT_CARD);
    expect(atCard[7]).toMatchObject({ kind: 'tool', status: 'awaiting_confirmation' });
    expect(atCard[7]?.text).toContain('取消订单');
    expect(atCard[8]?.text).toContain('88235');
    expect(atCard[8]?.text).toContain('Apple Watch');
    // A tool row tells the shopper what was done and how long it took, honestly (never "0.0 秒");
    // the machine name and the arguments are in the row's details.
    const toolBlocks = page.locator('[data-testid="block"][data-kind="tool"]');
    const rows = await toolBlocks.locator('summary').allInnerTexts();
    expect(rows).toHaveLength(3);
    for (const row of rows) expect(row).not.toMatch(/[a-z]+_[a-z]+|0\.0/);
    for (const row of rows.slice(0, 2)) expect(row).toMatch(/完成\s*(不到 0\.1|\d+\.\d) 秒$/);
    expect(rows[2]).toMatch(/^取消订单\s*待确认$/);
    const cancelRow = toolBlocks.nth(2);
    expect(await cancelRow.locator('.tool-body').isVisible()).toBe(false);
    await cancelRow.locator('summary').click();
    const details = await cancelRow.locator('.tool-body').textContent();
    expect(details).toContain('cancel_order');
    expect(details).toContain('88235');
    await cancelRow.locator('summary').click();
    // The page grew the list block by block: every sequence it showed is a prefix of the final one.
    const log = await page.evaluate(() => (window as unknown as { blockKindLog: string[] }).blockKindLog);
    expect(log.length).toBeGreaterThan(3);
    for (const kinds of log) expect(SEED_KINDS_AT_CARD.join(',').startsWith(kinds)).toBe(true);
    // The composer says why it waits.
    await expect(page.getByTestId('composer-reason').textContent()).resolves.toContain(
      '上一步操作还在等你确认',
    );
    expect(await page.getByTestId('send').isDisabled()).toBe(true);
    await saveScreenshot(page, 'seed-confirmation-card');

    await page.getByTestId('confirm-approve').click();
    await waitForLastMessageStatus(page, ['completed']);
    const after = await renderedBlocks(page);
    expect(after.slice(0, 9).map((block) => block.kind)).toEqual(SEED_KINDS_AT_CARD);
    expect(after[7]).toMatchObject({ kind: 'tool', status: 'done' });
    expect(after[8]).toMatchObject({ kind: 'confirm', status: 'approved' });
    expect(after[8]?.text).toContain('已确认');
    expect(await page.getByTestId('confirm-approve').count()).toBe(0);
    expect(after.at(-1)).toMatchObject({ kind: 'answer', status: 'done' });
    expect(after.at(-1)?.text).toContain('已为你取消订单 88235');
    expect(cancellationsOf88235()).toBe(cancellationsBefore + 1);
    expect(orderStatus('88235')).toBe('已取消');

    // The run timeline: one bar per block, on a time axis.
    await page
      .getByRole('button', { name: /时间线/ })
      .last()
      .click();
    const timeline = page.getByTestId('run-timeline').last();
    await timeline.waitFor();
    await timeline.scrollIntoViewIfNeeded();
    expect(await timeline.locator('[data-testid="timeline-row"]').count()).toBe(after.length);
    await saveScreenshot(page, 'seed-timeline');
  });

  it('shows identical blocks after a refresh on the card, and the card still works', async () => {
    // Another user's seed: a fresh order 88235 would be needed, so reject here instead of approving.
    const page = await fixture.newPage();
    await openSeedCard(page);
    const before = await renderedBlocks(page);
    const url = page.url();
    expect(url).toMatch(/\/c\/conv_/);

    await page.reload();
    await page.getByTestId('confirm-reject').waitFor();
    expect(page.url()).toBe(url);
    expect(await renderedBlocks(page)).toEqual(before);
    await expect(page.getByTestId('composer-reason').textContent()).resolves.toContain(
      '上一步操作还在等你确认',
    );

    // By keyboard: focus 取消 and press Enter; focus then rests on the decision, not the page top.
    await page.getByTestId('confirm-reject').focus();
    await page.keyboard.press('Enter');
    await waitForLastMessageStatus(page, ['completed']);
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.className ?? ''))
      .toContain('confirm-decision');
    const after = await renderedBlocks(page);
    expect(after[8]).toMatchObject({ kind: 'confirm', status: 'rejected' });
    expect(after[7]).toMatchObject({ kind: 'tool', status: 'rejected' });
    // And a refresh after the decision shows the same again.
    await page.reload();
    await waitForLastMessageStatus(page, ['completed']);
    expect(await renderedBlocks(page)).toEqual(after);
  });

  it('sends one decision for a double click on 确认', async () => {
    const page = await fixture.newPage();
    await openSeedCard(page);
    const decisions: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().includes('/confirmations/'))
        decisions.push(request.url());
    });
    const before = cancellationsOf88235() ?? 0;
    await page.getByTestId('confirm-approve').dblclick();
    await waitForLastMessageStatus(page, ['completed']);
    expect(decisions).toHaveLength(1);
    expect(cancellationsOf88235()).toBe(before + 1);
    expect(orderStatus('88235')).toBe('已取消');
    const blocks = await renderedBlocks(page);
    expect(blocks.filter((block) => block.kind === 'confirm')).toHaveLength(1);
    expect(blocks[8]).toMatchObject({ kind: 'confirm', status: 'approved' });
  });

  it("shows the server's 409 next to the composer when a confirmation became pending elsewhere", async () => {
    const page = await fixture.newPage();
    await page.goto(fixture.url);
    await sendMessage(page, '你好');
    await waitForLastMessageStatus(page, ['completed']);
    const conversationId = decodeURIComponent(new URL(page.url()).pathname.split('/')[2] ?? '');

    // Another tab (here: the API) pauses a run in this conversation; this page does not know yet.
    fixture.resetDemoOrders();
    const started = await fixture.api('POST', `/v1/conversations/${conversationId}/messages`, {
      text: SEED_CANCEL_MESSAGE,
    });
    expect(started.status).toBe(200);
    await expect
      .poll(
        async () =>
          (await fixture.api('GET', `/v1/conversations/${conversationId}`)).body.messages.at(-1).status,
      )
      .toBe('paused');

    await sendMessage(page, '再问一个问题');
    const notice = page.getByTestId('composer-notice');
    await notice.waitFor();
    expect(await notice.textContent()).toContain('上一步操作还在等你确认，请先确认或取消');
    // The refused text goes back into the composer, and the page now shows the pending card.
    expect(await page.getByTestId('composer-input').inputValue()).toBe('再问一个问题');
    await page.getByTestId('confirm-approve').waitFor();
    expect(await page.getByTestId('user-message').allTextContents()).not.toContain('再问一个问题');
  });

  it('links cited knowledge sources and opens them beside the chat', async () => {
    const page = await fixture.newPage();
    await page.goto(fixture.url);
    await sendMessage(page, '跑鞋穿了一次不合适，可以退吗？');
    await waitForLastMessageStatus(page, ['completed']);
    const link = page.locator('[data-testid="block"][data-kind="answer"] a[data-citation]').first();
    const citation = await link.getAttribute('data-citation');
    expect(citation).toMatch(/^knowledge\/.+#L\d+$/);
    await link.click();
    const drawer = page.getByTestId('source-drawer');
    await drawer.locator('.source-lines li.cited').first().waitFor();
    expect(await drawer.textContent()).toContain(String(citation).split('#')[0]);
    // Above the file, the passage the knowledge search gave for this citation, its clause marked.
    const passage = drawer.getByTestId('source-passage');
    const marked = (await passage.locator('mark').textContent()) ?? '';
    expect(marked.length).toBeGreaterThan(0);
    expect(await passage.locator('blockquote').textContent()).toContain(marked);
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'detached' });
  });

  it('switches to English and back, and fits a phone-width screen', async () => {
    const page = await fixture.newPage({ width: 360, height: 740 });
    fixture.resetDemoOrders();
    await page.goto(fixture.url);
    await page.getByTestId('language').click();
    expect(await page.getAttribute('html', 'lang')).toBe('en');
    await expect(page.getByTestId('send').textContent()).resolves.toBe('Send');
    await sendMessage(page, SEED_CANCEL_MESSAGE);
    await page.getByTestId('confirm-approve').waitFor({ timeout: 20_000 });
    expect(await page.getByTestId('confirm-approve').textContent()).toBe('Confirm');
    // One agent (its list long loaded by now): no assistant picker in the way.
    expect(await page.getByTestId('agent-picker').count()).toBe(0);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await saveScreenshot(page, 'phone-width-english');
    // The choice survives a refresh.
    await page.reload();
    await page.getByTestId('confirm-approve').waitFor();
    expect(await page.getAttribute('html', 'lang')).toBe('en');
    await page.getByTestId('language').click();
    expect(await page.getByTestId('confirm-approve').textContent()).toBe('确认');
  });
});
