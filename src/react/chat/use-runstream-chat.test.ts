import type { Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderedBlocks } from '../../web/test-support/browser.ts';
import { RETURN_QUESTION, SEED_CANCEL_MESSAGE } from '../../web/test-support/chat-page-fixture.ts';
import {
  type HookPageFixture,
  sendFromHookPage,
  startHookPageFixture,
  waitForHookState,
} from '../test-support/hook-page-fixture.ts';

/**
 * `useRunstreamChat` in a page of its own (the hook, `AssistantMessage`, a composer and a stop
 * button), built with Vite and driven in real headless Chromium against the real server: a
 * conversation created by the first send, a refresh on the card, approve and reject, a refresh and a
 * dropped connection mid-stream (resumed with Last-Event-ID), and stop with a reason.
 */
let fixture: HookPageFixture;

beforeAll(async () => {
  // 40 ms per stream part: the policy answer takes a few seconds, time enough to cut it.
  fixture = await startHookPageFixture({ delayMs: 40 });
}, 90_000);

afterAll(async () => {
  await fixture?.close();
});

/** Every request the page makes, with its headers. */
function recordRequests(page: Page): Request[] {
  const requests: Request[] = [];
  page.on('request', (request) => {
    requests.push(request);
  });
  return requests;
}

function conversationOf(page: Page): Promise<string> {
  return page.getByTestId('hook-page').getAttribute('data-conversation') as Promise<string>;
}

/** The stored conversation's last assistant message, as the API has it. */
async function storedLastMessage(conversationId: string) {
  const { body } = await fixture.api('GET', `/v1/conversations/${conversationId}`);
  return body.messages.at(-1);
}

/** The stored answer text of a message: its answer blocks, joined. */
function answerTextOf(message: { message: { blocks: { kind: string; text?: string }[] } }): string {
  return message.message.blocks
    .filter((block) => block.kind === 'answer')
    .map((block) => block.text ?? '')
    .join('\n');
}

/** The page's answer text of the last assistant message, as a reader sees it. */
function shownAnswerText(page: Page): Promise<string> {
  return page.evaluate(() => {
    const messages = document.querySelectorAll('[data-testid="assistant-message"]');
    const last = messages[messages.length - 1];
    return [...(last?.querySelectorAll('[data-kind="answer"] .markdown') ?? [])]
      .map((answer) => answer.textContent ?? '')
      .join('\n');
  });
}

async function waitForStreamingAnswer(page: Page, characters: number): Promise<void> {
  await page.waitForFunction(
    (minimum) => {
      const blocks = document.querySelectorAll('[data-kind="answer"][data-status="streaming"]');
      return (blocks[blocks.length - 1]?.textContent ?? '').length >= minimum;
    },
    characters,
    { timeout: 20_000 },
  );
}

/**
 * What the page shows of a finished run reads the same after a reload, which renders it from what
 * the server stored: nothing the live stream delivered was lost or doubled.
 */
async function expectSameAfterReload(page: Page): Promise<void> {
  const live = await renderedBlocks(page);
  const liveText = await shownAnswerText(page);
  expect(liveText.length).toBeGreaterThan(100);
  await page.reload();
  await waitForHookState(page, { status: 'ready' });
  expect(await shownAnswerText(page)).toBe(liveText);
  expect(await renderedBlocks(page)).toEqual(live);
}

describe('useRunstreamChat', () => {
  let cardConversation = '';

  it('creates the conversation on the first send, streams to the card, and keeps it open without a reload', async () => {
    const page = await fixture.newPage();
    const requests = recordRequests(page);
    await page.goto(fixture.pageUrl());
    await waitForHookState(page, { status: 'ready', connection: 'idle' });
    await sendFromHookPage(page, SEED_CANCEL_MESSAGE);
    await waitForHookState(page, { status: 'awaiting_confirmation', pending: '1' });
    cardConversation = await conversationOf(page);
    expect(cardConversation).toMatch(/^conv_/);
    expect(new URL(page.url()).searchParams.get('conversation')).toBe(cardConversation);

    const blocks = await renderedBlocks(page);
    expect(blocks.map((block) => block.kind)).toEqual([
      'reasoning',
      'answer',
      'tool',
      'reasoning',
      'tool',
      'reasoning',
      'answer',
      'tool',
      'confirm',
    ]);
    expect(blocks[7]).toMatchObject({ kind: 'tool', status: 'awaiting_confirmation' });
    expect(blocks[8]?.text).toContain('88235');
    // The id handed back to the hook did not reload the conversation it had just created.
    const loads = requests.filter(
      (request) =>
        request.method() === 'GET' && request.url().includes(`/v1/conversations/${cardConversation}`),
    );
    expect(loads).toHaveLength(0);
    // Token and headers of the hook's options went with every API request.
    const api = requests.filter((request) => new URL(request.url()).pathname.startsWith('/v1/'));
    expect(api.length).toBeGreaterThan(1);
    for (const request of api) {
      expect(request.headers().authorization).toBe('Bearer demo-token');
      expect(request.headers()['x-hook-page']).toBe('1');
    }
  });

  it('restores the conversation on mount after a refresh: the same blocks, the card still there, and it works', async () => {
    const page = await fixture.newPage();
    await page.goto(fixture.pageUrl(cardConversation));
    await waitForHookState(page, { status: 'awaiting_confirmation', pending: '1' });
    const restored = await renderedBlocks(page);
    expect(restored).toHaveLength(9);
    expect(restored[8]).toMatchObject({ kind: 'confirm', status: 'pending' });

    await page.reload();
    await waitForHookState(page, { status: 'awaiting_confirmation', pending: '1' });
    expect(await renderedBlocks(page)).toEqual(restored);

    // Rejected through the hook (`reject(toolCallId, note)`), the run goes on and ends.
    await page.getByTestId('reject-with-note').click();
    await waitForHookState(page, { status: 'ready', pending: '0' });
    const after = await renderedBlocks(page);
    expect(after[8]).toMatchObject({ kind: 'confirm', status: 'rejected' });
    expect(after[7]).toMatchObject({ kind: 'tool', status: 'rejected' });
    const stored = await storedLastMessage(cardConversation);
    expect(stored.status).toBe('completed');
    // And a refresh after the decision shows the same again.
    await page.reload();
    await waitForHookState(page, { status: 'ready' });
    expect(await renderedBlocks(page)).toEqual(after);
  });

  it("approves with the card's own button (the hook's actions), once", async () => {
    const page = await fixture.newPage();
    await page.goto(fixture.pageUrl());
    await sendFromHookPage(page, SEED_CANCEL_MESSAGE);
    await waitForHookState(page, { status: 'awaiting_confirmation', pending: '1' });
    const decisions: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().includes('/confirmations/'))
        decisions.push(request.url());
    });
    await page.getByTestId('confirm-approve').dblclick();
    await waitForHookState(page, { status: 'ready', pending: '0' });
    expect(decisions).toHaveLength(1);
    const blocks = await renderedBlocks(page);
    expect(blocks[8]).toMatchObject({ kind: 'confirm', status: 'approved' });
    expect(blocks.at(-1)?.text).toContain('已为你取消订单 88235');
    const [order] = fixture.query<{ status: string }>(
      "SELECT status FROM novashop_orders WHERE order_id = '88235'",
    );
    expect(order?.status).toBe('已取消');
  });

  it('follows a run still going after a refresh mid-stream, to the same text the server stored', async () => {
    const page = await fixture.newPage();
    await page.goto(fixture.pageUrl());
    await sendFromHookPage(page, RETURN_QUESTION);
    await waitForStreamingAnswer(page, 20);
    const conversationId = await conversationOf(page);

    await page.reload();
    // Restored mid-run: shown as streaming, then followed live to the end.
    await waitForHookState(page, { status: 'streaming' });
    await waitForHookState(page, { status: 'ready' }, 30_000);
    const stored = await storedLastMessage(conversationId);
    expect(stored.status).toBe('completed');
    expect(answerTextOf(stored).length).toBeGreaterThan(100);
    await expectSameAfterReload(page);
  });

  it('resumes by itself with Last-Event-ID when the connection drops mid-stream', async () => {
    const page = await fixture.newPage();
    const requests = recordRequests(page);
    await page.goto(fixture.pageUrl());
    await sendFromHookPage(page, RETURN_QUESTION);
    await waitForStreamingAnswer(page, 20);
    expect(fixture.proxy.dropAll()).toBeGreaterThan(0);

    await waitForHookState(page, { status: 'ready' }, 30_000);
    const log = await page.evaluate(() => (globalThis as { connectionLog?: string[] }).connectionLog ?? []);
    expect(log).toContain('reconnecting');
    const resumed = requests.filter(
      (request) => request.url().includes('/events') && request.headers()['last-event-id'] !== undefined,
    );
    expect(resumed.length).toBeGreaterThan(0);
    expect(Number(resumed[0]?.headers()['last-event-id'])).toBeGreaterThan(0);

    const stored = await storedLastMessage(await conversationOf(page));
    expect(stored.status).toBe('completed');
    // No text lost or doubled: what was followed live reads as what the server stored.
    await expectSameAfterReload(page);
  });

  it('stops the run with the reason given to stop()', async () => {
    const page = await fixture.newPage();
    await page.goto(fixture.pageUrl());
    await sendFromHookPage(page, RETURN_QUESTION);
    await waitForStreamingAnswer(page, 10);
    await page.getByTestId('stop').click();
    await page
      .locator('[data-testid="assistant-message"][data-status="cancelled"]')
      .waitFor({ timeout: 20_000 });
    await waitForHookState(page, { status: 'ready' });
    const stored = await storedLastMessage(await conversationOf(page));
    expect(stored.status).toBe('cancelled');
    const { body: run } = await fixture.api('GET', `/v1/runs/${stored.runId}`);
    expect(run).toMatchObject({ status: 'cancelled', cancelReason: 'customer_left' });
  });
});
