import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import type { Database } from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedChatModel, textTurn } from '../models/index.ts';
import { RunManager } from '../runtime/index.ts';
import { testAgent } from '../runtime/test-support/test-agent.ts';
import type { AgentCard } from '../server/agent-card.ts';
import { createApp } from '../server/create-app.ts';
import { openDatabase, SqliteRunStore } from '../store/index.ts';
import { HttpError } from './client-errors.ts';
import { createRunstreamClient, type RunstreamClient } from './runstream-client.ts';

/**
 * The client's agent calls against the real HTTP app (two agents, a temp SQLite file, real sockets):
 * the agent list as the page reads it, conversations created with and without an agent, and the
 * agent of each conversation in the list and the detail.
 */
const CARDS: AgentCard[] = [
  {
    id: 'shop',
    name: '商城客服',
    description: '订单和退换货',
    language: 'zh-CN',
    ui: { title: '商城智能客服', greeting: '你好，我是商城客服。', examples: ['我的订单到哪了？'] },
  },
  { id: 'repair', name: 'Repair desk', language: 'en', ui: { title: 'Repair assistant', examples: [] } },
];

let directory: string;
let database: Database;
let close: () => Promise<void>;
let client: RunstreamClient;
let baseUrl: string;
let token: string;

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'runstream-client-agents-'));
  database = openDatabase(join(directory, 'runstream.db'));
  const store = new SqliteRunStore(database);
  token = await store.issueToken((await store.createUser('alice')).id);
  const runs = new RunManager({
    agents: CARDS.map(({ id }) => testAgent({ id, model: new ScriptedChatModel([textTurn('好的')]) })),
    store,
  });
  const server = serve({
    fetch: createApp({ store, runs, agents: CARDS }).fetch,
    port: 0,
    hostname: '127.0.0.1',
  });
  await new Promise((resolve) => server.once('listening', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  client = createRunstreamClient({ baseUrl, token });
  close = async () => {
    await runs.close();
    await new Promise((resolve) => server.close(resolve));
    database.close();
    rmSync(directory, { recursive: true, force: true });
  };
});

afterAll(async () => {
  await close?.();
});

describe('agents through the client', () => {
  it('lists the agents, the default first, with what a page shows of each', async () => {
    const agents = await client.listAgents();
    expect(agents).toEqual([
      {
        id: 'shop',
        name: '商城客服',
        description: '订单和退换货',
        language: 'zh-CN',
        ui: { title: '商城智能客服', greeting: '你好，我是商城客服。', examples: ['我的订单到哪了？'] },
      },
      { id: 'repair', name: 'Repair desk', language: 'en', ui: { title: 'Repair assistant', examples: [] } },
    ]);
  });

  it('creates a conversation with the chosen agent, and with the default one in the old call shapes', async () => {
    const repair = await client.createConversation({ agentId: 'repair', title: '洗衣机漏水' });
    expect(repair).toMatchObject({ title: '洗衣机漏水', agentId: 'repair' });
    const plain = await client.createConversation();
    expect(plain.agentId).toBe('shop');
    const titled = await client.createConversation({ title: '退货' });
    expect(titled).toMatchObject({ title: '退货', agentId: 'shop' });

    expect((await client.getConversation(repair.id)).agentId).toBe('repair');
    expect((await client.getConversation(plain.id)).agentId).toBe('shop');
    const listed = await client.listConversations();
    expect(new Map(listed.map((item) => [item.id, item.agentId]))).toEqual(
      new Map([
        [repair.id, 'repair'],
        [plain.id, 'shop'],
        [titled.id, 'shop'],
      ]),
    );
    expect((await client.listConversations({ agentId: 'repair' })).map((item) => item.id)).toEqual([
      repair.id,
    ]);
    expect((await client.listConversations({ agentId: 'shop' })).map((item) => item.id).sort()).toEqual(
      [plain.id, titled.id].sort(),
    );
  });

  it('refuses an agent the server does not run with a 400 unknown_agent, and stores nothing', async () => {
    const before = (await client.listConversations()).length;
    const refused = await client.createConversation({ agentId: 'nobody' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(HttpError);
    expect(refused).toMatchObject({ status: 400, code: 'unknown_agent' });
    expect((await client.listConversations()).length).toBe(before);
  });

  it('sends `{}` for a conversation without title or agent, never undefined fields', async () => {
    const bodies: string[] = [];
    const recording = createRunstreamClient({
      baseUrl,
      token,
      fetch: async (input, init) => {
        if (init?.method === 'POST') bodies.push(String(init.body));
        return fetch(input, init);
      },
    });
    await recording.createConversation({ title: undefined, agentId: undefined });
    await recording.createConversation({ agentId: 'repair' });
    expect(bodies).toEqual(['{}', '{"agentId":"repair"}']);
  });

  it('fills in examples a server leaves out, and rejects an agent list of another shape', async () => {
    const answers = [
      { agents: [{ id: 'a', name: 'A', language: 'en', ui: { title: 'A' } }] },
      { agents: [{ id: 'a', name: 'A' }] },
    ];
    const scripted = createRunstreamClient({
      baseUrl,
      fetch: async () =>
        new Response(JSON.stringify(answers.shift()), { headers: { 'content-type': 'application/json' } }),
    });
    expect(await scripted.listAgents()).toEqual([
      { id: 'a', name: 'A', language: 'en', ui: { title: 'A', examples: [] } },
    ]);
    await expect(scripted.listAgents()).rejects.toMatchObject({ code: 'unexpected_response' });
  });
});
