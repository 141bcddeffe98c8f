import { afterEach, describe, expect, it } from 'vitest';
import { createRunstreamClient } from '../client/index.ts';
import { ScriptedChatModel, textTurn, toolCallTurn } from '../models/index.ts';
import type { ToolPolicy } from '../runtime/index.ts';
import { startTestServer, TEST_TOKEN, type TestServer } from './test-support/start-test-server.ts';

/**
 * Governance over real HTTP with the offline NovaShop model: a policy sees each call with its caller
 * and trace id and may deny or rewrite it; every call lands in the audit log and in the log lines
 * under the request's trace id.
 */
let server: TestServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';

async function runSeed(url: string): Promise<{ runId: string; text: string }> {
  const client = createRunstreamClient({ baseUrl: url, token: TEST_TOKEN });
  const conversation = await client.createConversation();
  const response = await fetch(`${url}/v1/conversations/${conversation.id}/messages`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${TEST_TOKEN}`,
      'content-type': 'application/json',
      traceparent: TRACEPARENT,
    },
    body: JSON.stringify({ text: '我买的那块表还没发货的话，帮我取消吧，不想要了。' }),
  });
  expect(response.headers.get('x-request-id')).toBe(TRACE_ID);
  return { runId: response.headers.get('x-runstream-run-id') ?? '', text: await response.text() };
}

describe('tool governance', () => {
  it('keeps a tool named in RUNSTREAM_DENY_TOOLS from the model, and denies a call anyway: the model sees why, the audit says denied', async () => {
    const lines: Record<string, unknown>[] = [];
    // A model that calls the refused tool all the same (it was never offered).
    const model = new ScriptedChatModel([
      toolCallTurn([{ name: 'load_skill', arguments: { name: 'order-change' } }]),
      toolCallTurn([{ name: 'query_order', arguments: {} }]),
      textTurn('订单查询在本服务上不可用。'),
    ]);
    server = await startTestServer({
      model,
      env: { RUNSTREAM_DENY_TOOLS: 'query_order' },
      log: (line) => lines.push(line),
    });
    const { runId, text } = await runSeed(server.server.url);
    expect(text).toContain('"traceId":"4bf92f3577b34da6a3ce929d0e0e4736"');
    expect(text).toContain('tool_denied');
    for (const request of model.requests)
      expect(request.tools?.map((tool) => tool.name) ?? []).not.toContain('query_order');
    expect(model.requests[0]?.tools?.map((tool) => tool.name)).toContain('search_knowledge');

    const audit = await fetch(`${server.server.url}/v1/tool-audit?run_id=${runId}`, {
      headers: { authorization: `Bearer ${TEST_TOKEN}` },
    }).then((response) => response.json() as Promise<{ data: Record<string, unknown>[] }>);
    const denied = audit.data.find((entry) => entry.name === 'query_order');
    expect(denied).toMatchObject({
      decision: 'deny',
      policy: 'deny-list',
      outcome: 'denied',
      traceId: TRACE_ID,
      face: 'chat',
      executor: 'server',
    });
    expect(audit.data.find((entry) => entry.name === 'load_skill')).toMatchObject({
      decision: 'allow',
      outcome: 'done',
    });
    // The same trace id ties the request's log line and each tool call's log line together.
    expect(
      lines.some((line) => line.traceId === TRACE_ID && line.path?.toString().includes('/messages')),
    ).toBe(true);
    expect(
      lines.filter((line) => line.event === 'tool_call' && line.traceId === TRACE_ID).length,
    ).toBeGreaterThan(0);
    expect(JSON.stringify(lines)).not.toContain(TEST_TOKEN);
  });

  it('lets a policy rewrite arguments and shows the rewritten call to the tool and in the audit', async () => {
    const seen: { name: string; traceId?: string; userId: string }[] = [];
    const limitOrders: ToolPolicy = {
      name: 'limit-orders',
      check: (call) => {
        seen.push({
          name: call.name,
          userId: call.userId,
          ...(call.traceId ? { traceId: call.traceId } : {}),
        });
        return call.name === 'query_order'
          ? { action: 'rewrite', args: { limit: 1 }, reason: 'one order at most' }
          : { action: 'allow' };
      },
    };
    server = await startTestServer({ policies: [limitOrders] });
    const { runId } = await runSeed(server.server.url);
    expect(seen.map((call) => call.name)).toContain('query_order');
    expect(seen.every((call) => call.traceId === TRACE_ID && call.userId === 'usr_demo')).toBe(true);
    const audit = await fetch(`${server.server.url}/v1/tool-audit?run_id=${runId}`, {
      headers: { authorization: `Bearer ${TEST_TOKEN}` },
    }).then((response) => response.json() as Promise<{ data: Record<string, unknown>[] }>);
    expect(audit.data.find((entry) => entry.name === 'query_order')).toMatchObject({
      decision: 'rewrite',
      policy: 'limit-orders',
      args: { limit: 1 },
      outcome: 'done',
    });
  });

  it('refuses a malformed limit and an unauthenticated caller', async () => {
    server = await startTestServer();
    const response = await fetch(`${server.server.url}/v1/tool-audit?limit=abc`, {
      headers: { authorization: `Bearer ${TEST_TOKEN}` },
    });
    expect(response.status).toBe(400);
    expect((await fetch(`${server.server.url}/v1/tool-audit`)).status).toBe(401);
  });
});
