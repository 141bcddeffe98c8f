import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defineAgent } from '../agent/define-agent.ts';
import { tool } from '../agent/tool.ts';
import { ScriptedChatModel } from '../models/scripted-chat-model.ts';
import { textTurn, toolCallTurn } from '../models/scripted-turns.ts';
import { sqliteStore } from '../node/sqlite-store.ts';
import { normaliseBasePath } from './create-app.ts';
import { createRunstream, type Runstream } from './create-runstream.ts';

let directory: string;
let store: ReturnType<typeof sqliteStore>;
const opened: Runstream<{ user?: string }>[] = [];

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'runstream-core-'));
  store = sqliteStore(join(directory, 'runstream.db'));
});

afterEach(async () => {
  for (const runstream of opened.splice(0)) await runstream.close();
  store.close();
  rmSync(directory, { recursive: true, force: true });
});

/** A runstream whose users are whoever the context names, under /support. */
function open(replies: string[] = ['您好，请问有什么可以帮您？']) {
  const runstream = createRunstream<{ user?: string }>({
    agents: [
      defineAgent({
        id: 'helpdesk',
        name: '帮助台',
        instructions: '你是帮助台。',
        model: new ScriptedChatModel(replies.map((reply) => textTurn(reply))),
      }),
    ],
    store,
    basePath: '/support/',
    authenticate: (_request, context) => (context?.user ? { userId: context.user } : null),
    log: () => undefined,
  });
  opened.push(runstream);
  return runstream;
}

const url = (path: string) => `http://shop.test${path}`;

function post(path: string, body: unknown): Request {
  return new Request(url(path), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('createRunstream', () => {
  it('answers under its base path only, for the user authenticate names, who is created on first sight', async () => {
    const runstream = open();
    const created = await runstream.fetch(post('/support/v1/conversations', {}), { user: 'shopper-1' });
    expect(created.status).toBe(201);
    const conversation = (await created.json()) as { id: string; agentId: string };
    expect(conversation.agentId).toBe('helpdesk');
    expect((await store.runs.getUser('shopper-1'))?.id).toBe('shopper-1');

    const sent = await runstream.fetch(
      post(`/support/v1/conversations/${conversation.id}/messages`, { text: '你好' }),
      { user: 'shopper-1' },
    );
    expect(sent.status).toBe(200);
    expect(sent.headers.get('content-type')).toContain('text/event-stream');
    const frames = await sent.text();
    expect(frames).toContain('您好，请问有什么可以帮您？');
    expect(frames).toContain('"type":"done"');

    // Outside the base path, or without the prefix, nothing answers.
    expect((await runstream.fetch(new Request(url('/v1/conversations')), { user: 'shopper-1' })).status).toBe(
      404,
    );
    expect((await runstream.fetch(new Request(url('/health')))).status).toBe(404);
    expect((await runstream.fetch(new Request(url('/support/health')))).status).toBe(200);
  });

  it('answers 401 without a user, and 404 for another user’s conversation', async () => {
    const runstream = open();
    const anonymous = await runstream.fetch(new Request(url('/support/v1/conversations')), {});
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { error: { code: string } }).error.code).toBe('unauthorized');

    const created = await runstream.fetch(post('/support/v1/conversations', {}), { user: 'alice' });
    const { id } = (await created.json()) as { id: string };
    const theirs = await runstream.fetch(new Request(url(`/support/v1/conversations/${id}`)), {
      user: 'bob',
    });
    expect(theirs.status).toBe(404);
    const listed = await runstream.fetch(new Request(url('/support/v1/conversations')), { user: 'bob' });
    expect(((await listed.json()) as { data: unknown[] }).data).toEqual([]);
  });

  it('ignores bearer tokens when authenticate is given: the host app decides who asks', async () => {
    const runstream = open();
    const user = await store.runs.createUser('token holder');
    const token = await store.runs.issueToken(user.id, 'test');
    const response = await runstream.fetch(
      new Request(url('/support/v1/conversations'), { headers: { authorization: `Bearer ${token}` } }),
      {},
    );
    expect(response.status).toBe(401);
  });

  it('uses the store’s bearer tokens when no authenticate is given', async () => {
    const runstream = createRunstream({
      agents: [defineAgent({ id: 'helpdesk', name: '帮助台', instructions: '你是帮助台。' })],
      store,
      log: () => undefined,
    });
    opened.push(runstream);
    const user = await store.runs.createUser('token holder');
    const token = await store.runs.issueToken(user.id, 'test');
    const authorised = await runstream.fetch(
      new Request(url('/v1/conversations'), { headers: { authorization: `Bearer ${token}` } }),
    );
    expect(authorised.status).toBe(200);
    expect((await runstream.fetch(new Request(url('/v1/conversations')))).status).toBe(401);
  });

  it('rejects ready with why an agent cannot start, answers 503 meanwhile, and logs it once', async () => {
    const lines: Record<string, unknown>[] = [];
    const runstream = createRunstream({
      agents: [
        defineAgent({
          id: 'librarian',
          name: '图书馆员',
          instructions: '你是图书馆员。',
          knowledge: { dirs: ['knowledge'] },
        }),
      ],
      // A store without knowledge bases, as a PostgreSQL one is.
      store: {
        runs: store.runs,
        responses: store.responses,
        toolAudit: store.toolAudit,
        close: () => undefined,
      },
      log: (line) => lines.push(line),
    });
    opened.push(runstream);
    await expect(runstream.ready).rejects.toThrow(/librarian has knowledge.*sqliteKnowledge/);
    const response = await runstream.fetch(new Request(url('/v1/conversations')));
    expect(response.status).toBe(503);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('unavailable');
    expect(lines.filter((line) => line.message === 'runstream failed to start')).toHaveLength(1);
  });

  it('answers 503 once closed, and closes twice without complaint', async () => {
    const runstream = open();
    await runstream.ready;
    await runstream.close();
    await runstream.close();
    const response = await runstream.fetch(new Request(url('/support/v1/conversations')), { user: 'alice' });
    expect(response.status).toBe(503);
  });

  it('offers fetch under every method name, for route handlers exported by name', async () => {
    const runstream = open();
    const { GET, POST } = runstream.handlers;
    expect((await POST(post('/support/v1/conversations', {}), { user: 'carol' })).status).toBe(201);
    expect((await GET(new Request(url('/support/v1/conversations')), { user: 'carol' })).status).toBe(200);
  });
});

describe('reads right after a stream ends', () => {
  it('see what the stream said: the run and the message paused on the card, then completed', async () => {
    const cancels: string[] = [];
    const runstream = createRunstream<{ user?: string }>({
      agents: [
        defineAgent({
          id: 'orders',
          name: '订单助手',
          instructions: '你是订单助手。',
          tools: [
            tool({
              name: 'cancel_order',
              description: '取消订单',
              inputSchema: {
                type: 'object',
                properties: { orderId: { type: 'string' } },
                required: ['orderId'],
              },
              needsApproval: true,
              execute: ({ orderId }: { orderId: string }) => {
                cancels.push(orderId);
                return { cancelled: orderId };
              },
            }),
          ],
          model: new ScriptedChatModel([
            toolCallTurn([{ name: 'cancel_order', arguments: { orderId: '88240' }, id: 'call_cancel' }]),
            textTurn('订单 88240 已取消。'),
          ]),
        }),
      ],
      store,
      authenticate: (_request, context) => (context?.user ? { userId: context.user } : null),
      log: () => undefined,
    });
    opened.push(runstream);
    const as = { user: 'shopper-2' };
    const { id } = (await (await runstream.fetch(post('/v1/conversations', {}), as)).json()) as {
      id: string;
    };
    // Called in-process (no socket between), the next request comes the moment `done` is read.
    const paused = await runstream.fetch(
      post(`/v1/conversations/${id}/messages`, { text: '取消 88240' }),
      as,
    );
    const runId = paused.headers.get('x-runstream-run-id') ?? '';
    expect(await paused.text()).toContain('"type":"done"');
    const run = (await (await runstream.fetch(new Request(url(`/v1/runs/${runId}`)), as)).json()) as {
      status: string;
    };
    expect(run.status).toBe('paused');
    const view = (await (await runstream.fetch(new Request(url(`/v1/conversations/${id}`)), as)).json()) as {
      messages: { role: string; status: string }[];
    };
    expect(view.messages.at(-1)).toMatchObject({ role: 'assistant', status: 'paused' });
    const busy = await runstream.fetch(post(`/v1/conversations/${id}/messages`, { text: '还有吗' }), as);
    expect(((await busy.json()) as { error: { code: string } }).error.code).toBe('confirmation_pending');

    const approved = await runstream.fetch(
      post(`/v1/runs/${runId}/confirmations/call_cancel`, { decision: 'approve', note: '顾客确认' }),
      as,
    );
    expect(await approved.text()).toContain('订单 88240 已取消。');
    const finished = (await (await runstream.fetch(new Request(url(`/v1/runs/${runId}`)), as)).json()) as {
      status: string;
    };
    expect(finished.status).toBe('completed');
    expect(cancels).toEqual(['88240']);
  });
});

describe('normaliseBasePath', () => {
  it('reads the usual spellings of one prefix, and refuses what is not a plain path', () => {
    expect(normaliseBasePath(undefined)).toBe('/');
    expect(normaliseBasePath('')).toBe('/');
    expect(normaliseBasePath('/')).toBe('/');
    expect(normaliseBasePath('support')).toBe('/support');
    expect(normaliseBasePath('/support/')).toBe('/support');
    expect(normaliseBasePath('/api/agents')).toBe('/api/agents');
    for (const bad of ['/support?x=1', '/support#top', '/a/../b', '/with space'])
      expect(() => normaliseBasePath(bad), bad).toThrow(/basePath/);
  });
});
