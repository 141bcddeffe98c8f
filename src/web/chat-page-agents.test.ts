import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import type { Database } from 'better-sqlite3';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_WEB_ROOT } from '../cli/build-web.ts';
import { ScriptedChatModel, textTurn } from '../models/index.ts';
import type { KnowledgeSources } from '../retrieval/index.ts';
import { RunManager } from '../runtime/index.ts';
import { testAgent } from '../runtime/test-support/test-agent.ts';
import type { AgentCard } from '../server/agent-card.ts';
import { createApp } from '../server/create-app.ts';
import { serveWeb } from '../server/serve-web.ts';
import { openDatabase, SqliteRunStore } from '../store/index.ts';
import { launchChromium, saveScreenshot } from './test-support/browser.ts';
import { waitForLastMessageStatus } from './test-support/chat-page-fixture.ts';

/**
 * One page, two agents, in real Chromium against the real HTTP app (a temp SQLite file, scripted
 * models): the picker, each agent's title, greeting and examples, a conversation created with the
 * chosen agent, its citation read among that agent's documents, and the page after a refresh.
 */
const SHOP: AgentCard = {
  id: 'shop',
  name: '商城客服',
  language: 'zh-CN',
  ui: { title: '商城智能客服', greeting: '你好，我是商城客服。', examples: ['我的订单到哪了？'] },
};
const REPAIR: AgentCard = {
  id: 'repair',
  name: '家电维修',
  description: '洗衣机、冰箱和空调的报修',
  language: 'zh-CN',
  ui: {
    title: '家电报修助手',
    greeting: '你好，我来帮你排查家电故障。',
    examples: ['洗衣机漏水怎么办？', '空调不制冷'],
  },
};
const REPAIR_ANSWER = '先关掉进水阀，再检查排水管是否松动。（来源：knowledge/faq.md#L3）';

/** Both agents have a `knowledge/faq.md`: only the conversation's agent says which one a citation means. */
function faqOf(agent: string): KnowledgeSources {
  return {
    async read(path) {
      if (path !== 'knowledge/faq.md') return undefined;
      return { path, title: `${agent} FAQ`, text: `# ${agent} FAQ\n\n${agent} 的第三行\n` };
    },
  };
}

let directory: string;
let database: Database;
let browser: Browser;
let url: string;
let token: string;
let close: () => Promise<void>;

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'runstream-page-agents-'));
  database = openDatabase(join(directory, 'runstream.db'));
  const store = new SqliteRunStore(database);
  const user = await store.createUser('演示用户');
  token = await store.issueToken(user.id);
  const runs = new RunManager({
    agents: [
      testAgent({ id: SHOP.id, model: new ScriptedChatModel([textTurn('这是商城客服的回答。')]) }),
      testAgent({ id: REPAIR.id, model: new ScriptedChatModel([textTurn(REPAIR_ANSWER)]) }),
    ],
    store,
  });
  const sources = new Map([
    [SHOP.id, faqOf('shop')],
    [REPAIR.id, faqOf('repair')],
  ]);
  const server = serve({
    fetch: createApp({
      store,
      runs,
      agents: [SHOP, REPAIR],
      sources: (agentId) => sources.get(agentId),
      mountWeb: (app) => serveWeb(app, DEFAULT_WEB_ROOT),
      demoSession: { userId: user.id },
    }).fetch,
    port: 0,
    hostname: '127.0.0.1',
  });
  await new Promise((resolve) => server.once('listening', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
  close = async () => {
    await browser.close().catch(() => undefined);
    await runs.close();
    await new Promise((resolve) => server.close(resolve));
    database.close();
    rmSync(directory, { recursive: true, force: true });
  };
}, 60_000);

afterAll(async () => {
  await close?.();
});

async function api(path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** What the page shows of its agent: header, tab title, greeting and example buttons. */
async function shownAgent(page: Page) {
  return {
    title: (await page.getByTestId('app-title').textContent())?.replace(/runstream.*$/, '').trim(),
    documentTitle: await page.title(),
    greeting: await page.getByTestId('greeting').textContent(),
    examples: await page.getByTestId('examples').getByRole('button').allTextContents(),
  };
}

describe('a page for two agents', () => {
  it('picks the agent, shows its title, greeting and examples, and creates the conversation with it', async () => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 }, locale: 'zh-CN' });
    const page = await context.newPage();
    page.on('pageerror', (error) => {
      throw new Error(`the page threw: ${error.message}`);
    });
    const created: unknown[] = [];
    const sourceRequests: string[] = [];
    page.on('request', (request) => {
      const { pathname } = new URL(request.url());
      if (request.method() === 'POST' && pathname === '/v1/conversations')
        created.push(request.postDataJSON());
      if (pathname === '/v1/knowledge/sources') sourceRequests.push(request.url());
    });

    await page.goto(url);
    // The default agent first; the picker, labelled, offers both.
    const picker = page.getByLabel('选择助手');
    await picker.waitFor();
    await expect.poll(() => page.getByTestId('app-title').textContent()).toContain(SHOP.ui.title);
    expect(await shownAgent(page)).toEqual({
      title: SHOP.ui.title,
      documentTitle: SHOP.ui.title,
      greeting: SHOP.ui.greeting,
      examples: SHOP.ui.examples,
    });
    expect(await picker.inputValue()).toBe(SHOP.id);
    expect(await picker.locator('option').allTextContents()).toEqual([SHOP.name, REPAIR.name]);

    await picker.selectOption(REPAIR.id);
    await expect.poll(() => page.getByTestId('app-title').textContent()).toContain(REPAIR.ui.title);
    expect(await shownAgent(page)).toEqual({
      title: REPAIR.ui.title,
      documentTitle: REPAIR.ui.title,
      greeting: REPAIR.ui.greeting,
      examples: REPAIR.ui.examples,
    });
    await saveScreenshot(page, 'agent-picker-second-agent');

    // An example of the second agent starts a conversation with the second agent.
    await page.getByRole('button', { name: '洗衣机漏水怎么办？' }).click();
    await waitForLastMessageStatus(page, ['completed']);
    expect(created).toEqual([{ agentId: REPAIR.id }]);
    const conversationId = decodeURIComponent(new URL(page.url()).pathname.split('/')[2] ?? '');
    const stored = await api(`/v1/conversations/${encodeURIComponent(conversationId)}`);
    expect(stored.body.agentId).toBe(REPAIR.id);
    expect(await page.getByTestId('app-title').textContent()).toContain(REPAIR.ui.title);
    // With two agents, the list says whose each conversation is.
    const listed = page.getByTestId('conversation-link').filter({ hasText: '洗衣机漏水' });
    await listed.waitFor();
    expect(await listed.getByTestId('conversation-agent').textContent()).toContain(REPAIR.name);

    // The citation is read among the conversation's agent's documents, not the default agent's.
    await page.locator('[data-testid="block"][data-kind="answer"] a[data-citation]').first().click();
    const drawer = page.getByTestId('source-drawer');
    await drawer.locator('.source-lines li.cited').waitFor();
    expect(await drawer.locator('.source-lines li.cited').textContent()).toBe('repair 的第三行');
    expect(new URL(sourceRequests.at(-1) ?? url).searchParams.get('conversation_id')).toBe(conversationId);
    await page.keyboard.press('Escape');

    // A refresh shows the conversation's agent again, the picker on it.
    await page.reload();
    await waitForLastMessageStatus(page, ['completed']);
    await expect.poll(() => page.getByTestId('app-title').textContent()).toContain(REPAIR.ui.title);
    expect(await page.title()).toBe(REPAIR.ui.title);
    expect(await page.getByLabel('选择助手').inputValue()).toBe(REPAIR.id);

    // Choosing the other agent from an existing conversation starts a new one with it; in English too.
    await page.getByLabel('选择助手').selectOption(SHOP.id);
    await expect.poll(() => new URL(page.url()).pathname).toBe('/');
    expect((await shownAgent(page)).greeting).toBe(SHOP.ui.greeting);
    await page.getByTestId('language').click();
    expect(await page.getByLabel('Choose assistant').inputValue()).toBe(SHOP.id);
    await context.close();
  });
});
