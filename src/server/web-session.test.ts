import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedChatModel } from '../models/index.ts';
import { demoLoginFromEnv } from '../node/start-server.ts';
import { RunManager } from '../runtime/index.ts';
import { testAgent } from '../runtime/test-support/test-agent.ts';
import { MemoryRunStore } from '../store/index.ts';
import { createApp } from './create-app.ts';
import { startTestServer, TEST_TOKEN, type TestServer } from './test-support/start-test-server.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function started(options: Parameters<typeof startTestServer>[0] = {}): Promise<TestServer> {
  const testServer = await startTestServer(options);
  cleanups.push(() => testServer.close());
  return testServer;
}

async function errorCode(response: Response): Promise<string | undefined> {
  return ((await response.json()) as { error?: { code?: string } }).error?.code;
}

function get(url: string, path: string | undefined, token: string | null = TEST_TOKEN): Promise<Response> {
  return fetch(
    `${url}/v1/knowledge/sources${path === undefined ? '' : `?path=${encodeURIComponent(path)}`}`,
    {
      headers: token === null ? {} : { authorization: `Bearer ${token}` },
    },
  );
}

describe('POST /auth/demo-session', () => {
  it('issues a fresh token for the demo user, never cached, that works on /v1', async () => {
    const { server } = await started();
    const response = await fetch(`${server.url}/auth/demo-session`, { method: 'POST' });
    expect(response.status).toBe(201);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = (await response.json()) as { token: string; user: { id: string; name: string } };
    expect(body).toEqual({
      token: expect.any(String),
      user: { id: 'usr_demo', name: '演示用户' },
    });
    expect(body.token).not.toBe(TEST_TOKEN);

    const authorization = { authorization: `Bearer ${body.token}` };
    const created = await fetch(`${server.url}/v1/conversations`, {
      method: 'POST',
      headers: authorization,
      body: '{}',
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const list = (await (
      await fetch(`${server.url}/v1/conversations`, { headers: authorization })
    ).json()) as {
      data: { id: string }[];
    };
    expect(list.data.map((conversation) => conversation.id)).toEqual([id]);
    // The same user as the printed demo token.
    const viaDemoToken = await fetch(`${server.url}/v1/conversations/${id}`, {
      headers: { authorization: `Bearer ${TEST_TOKEN}` },
    });
    expect(viaDemoToken.status).toBe(200);

    const second = (await (await fetch(`${server.url}/auth/demo-session`, { method: 'POST' })).json()) as {
      token: string;
    };
    expect(second.token).not.toBe(body.token);
    expect((await fetch(`${server.url}/auth/demo-session`)).status).toBe(404);
  });

  it.each(['off', '0', 'false', ' OFF '])('is 404 with RUNSTREAM_DEMO_LOGIN=%j', async (value) => {
    const { server } = await started({ env: { RUNSTREAM_DEMO_LOGIN: value } });
    const response = await fetch(`${server.url}/auth/demo-session`, { method: 'POST' });
    expect([response.status, await errorCode(response)]).toEqual([404, 'not_found']);
    // The rest of the API is unchanged.
    const list = await fetch(`${server.url}/v1/conversations`, {
      headers: { authorization: `Bearer ${TEST_TOKEN}` },
    });
    expect(list.status).toBe(200);
  });

  it('reads RUNSTREAM_DEMO_LOGIN strictly', () => {
    expect(demoLoginFromEnv({})).toBe(true);
    expect(demoLoginFromEnv({ RUNSTREAM_DEMO_LOGIN: 'on' })).toBe(true);
    expect(demoLoginFromEnv({ RUNSTREAM_DEMO_LOGIN: '1' })).toBe(true);
    expect(demoLoginFromEnv({ RUNSTREAM_DEMO_LOGIN: 'false' })).toBe(false);
    expect(() => demoLoginFromEnv({ RUNSTREAM_DEMO_LOGIN: 'of' })).toThrow(/RUNSTREAM_DEMO_LOGIN/);
  });
});

describe('GET /v1/knowledge/sources', () => {
  it('answers a cited document whole, and nothing else', async () => {
    const { server } = await started();
    const response = await get(server.url, 'knowledge/policies/order-changes.md');
    expect(response.status).toBe(200);
    const document = (await response.json()) as { path: string; title: string; text: string };
    expect(document.path).toBe('knowledge/policies/order-changes.md');
    expect(document.title).toBe('NovaShop 订单变更规则');
    expect(document.text).toMatch(/^# NovaShop 订单变更规则\n/);
    // Line 21 is the clause the demo model cites (`…order-changes.md#L21`).
    expect(document.text.split('\n')[20]).toContain('已发货');
    // A citation with its line is the same document.
    const cited = (await (await get(server.url, 'knowledge/policies/order-changes.md#L21')).json()) as {
      text: string;
    };
    expect(cited.text).toBe(document.text);
    const faq = (await (await get(server.url, 'knowledge/faq.json')).json()) as { text: string };
    expect(JSON.parse(faq.text)).toEqual(expect.any(Array));

    for (const path of [
      '../package.json',
      'knowledge/../../package.json',
      'knowledge/../../../../package.json',
      'knowledge/policies/../../../../../etc/passwd',
      '/etc/passwd',
      'knowledge/policies/nope.md',
      'knowledge/eval/dev.jsonl',
      'README.md',
      'create-novashop-domain.ts',
      './knowledge/policies/order-changes.md',
      'knowledge%2fpolicies%2forder-changes.md',
      'knowledge\\policies\\order-changes.md',
      'knowledge/policies',
    ]) {
      const unknown = await get(server.url, path);
      expect([path, unknown.status]).toEqual([path, 404]);
      expect(await errorCode(unknown)).toBe('not_found');
    }
  });

  it('needs a token and a path', async () => {
    const { server } = await started();
    const anonymous = await get(server.url, 'knowledge/policies/order-changes.md', null);
    expect([anonymous.status, await errorCode(anonymous)]).toEqual([401, 'unauthorized']);
    expect((await get(server.url, 'knowledge/policies/order-changes.md', 'rs_wrong')).status).toBe(401);
    for (const path of [undefined, '', '   ', '#L21']) {
      const missing = await get(server.url, path);
      expect([path, missing.status, await errorCode(missing)]).toEqual([path, 400, 'invalid_request']);
    }
  });
});

describe('the routes the page needs', () => {
  it('serves the web UI from webRoot beside the API', async () => {
    const webRoot = mkdtempSync(join(tmpdir(), 'runstream-web-root-'));
    cleanups.push(() => rmSync(webRoot, { recursive: true, force: true }));
    writeFileSync(join(webRoot, 'index.html'), '<!doctype html><title>runstream</title>');
    const { server } = await started({ webRoot });
    const page = await fetch(`${server.url}/c/conv_1`);
    expect(page.status).toBe(200);
    expect(await page.text()).toBe('<!doctype html><title>runstream</title>');
    expect(await (await fetch(`${server.url}/health`)).json()).toEqual({ status: 'ok' });
    const unknown = await fetch(`${server.url}/v1/nope`, {
      headers: { authorization: `Bearer ${TEST_TOKEN}` },
    });
    expect([unknown.status, await errorCode(unknown)]).toEqual([404, 'not_found']);
  });

  it('leaves the demo session and the sources off when createApp is not given them', async () => {
    const store = new MemoryRunStore();
    const token = await store.issueToken((await store.createUser('alice')).id);
    const runs = new RunManager({
      agents: [
        testAgent({ model: new ScriptedChatModel([]), tools: [], skills: [], instructions: '你是客服。' }),
      ],
      store,
    });
    const server = serve({ fetch: createApp({ store, runs }).fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise((resolve) => server.once('listening', resolve));
    cleanups.push(async () => {
      await runs.close();
      await new Promise((resolve) => server.close(resolve));
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const session = await fetch(`${url}/auth/demo-session`, { method: 'POST' });
    expect([session.status, await errorCode(session)]).toEqual([404, 'not_found']);
    const sources = await get(url, 'knowledge/policies/order-changes.md', token);
    expect([sources.status, await errorCode(sources)]).toEqual([404, 'not_found']);
  });
});
