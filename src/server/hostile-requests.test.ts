import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../cli/test-support/run-command.ts';
import { campaignSize } from '../shared/test-support/campaign-size.ts';
import { READ_FILE_TOOL } from './responses/test-support/responses-http.ts';
import { startTestServer, TEST_TOKEN, type TestServer } from './test-support/start-test-server.ts';

/**
 * Hostile requests against a real server (issue #13 §3): user B with user A's ids on every route,
 * and fast-check fuzzing of every route's path ids, body, headers and query. A bad request is a 4xx
 * in the wire error shape, never a 5xx, and it changes nothing of A's.
 */
/** Fuzzed requests: 1,000 in `npm test`, 5,000 in the campaign (campaign-size.ts). */
const FUZZED_REQUESTS = campaignSize({ quick: 1000, full: 5000 });
const SEED = '我买的那块表还没发货的话，帮我取消吧，不想要了。';

let testServer: TestServer;
let url: string;
/** A's things: a conversation with a run paused on a confirmation, and a response waiting for a host tool. */
const a = { conversation: '', run: '', toolCallId: '', response: '', callId: '' };
let bobToken = '';

type Json = Record<string, unknown>;

async function call(token: string | null, method: string, path: string, body?: unknown, headers: Json = {}) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: {
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(headers as Record<string, string>),
    },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, text, json, contentType: response.headers.get('content-type') ?? '' };
}

/** Users as an operator makes them: the `runstream users` command on the server's file. */
async function users(...args: string[]): Promise<string> {
  const { code, stdout, stderr } = await runCommand(['users', ...args], {
    env: { RUNSTREAM_DB: testServer.databasePath, RUNSTREAM_DATABASE_URL: undefined },
  });
  expect(code, stderr).toBe(0);
  return stdout.trim();
}

beforeAll(async () => {
  // Thousands of requests from two users: the rate limit has tests of its own.
  testServer = await startTestServer({ env: { RUNSTREAM_RATE_LIMIT: '0' } });
  url = testServer.server.url;
  bobToken = await users('token', 'create', await users('add', 'Bob'));

  a.conversation = ((await call(TEST_TOKEN, 'POST', '/v1/conversations', {})).json as Json).id as string;
  const paused = await call(TEST_TOKEN, 'POST', `/v1/conversations/${a.conversation}/messages`, {
    text: SEED,
  });
  expect(paused.text).toContain('event: run.paused');
  const conversation = (await call(TEST_TOKEN, 'GET', `/v1/conversations/${a.conversation}`)).json as {
    messages: { runId?: string; blocks?: { kind: string; toolCallId?: string }[] }[];
  };
  const assistant = conversation.messages.at(-1);
  a.run = assistant?.runId ?? '';
  a.toolCallId = assistant?.blocks?.find((block) => block.kind === 'confirm')?.toolCallId ?? '';
  const response = (
    await call(
      TEST_TOKEN,
      'POST',
      '/v1/responses',
      { input: 'read notes.txt', tools: [READ_FILE_TOOL], stream: false },
      { 'x-runstream-extensions': '1' },
    )
  ).json as { id: string; status: string; output: { type: string; call_id?: string }[] };
  expect(response.status).toBe('requires_action');
  a.response = response.id;
  a.callId = response.output.find((item) => item.type === 'function_call')?.call_id ?? '';
  for (const value of Object.values(a)) expect(value).not.toBe('');
}, 120_000);

afterAll(() => testServer?.close());

/** What must not have moved after anyone else's requests: A's run still paused, the response still waiting. */
async function expectAUntouched(): Promise<void> {
  expect(((await call(TEST_TOKEN, 'GET', `/v1/runs/${a.run}`)).json as Json).status).toBe('paused');
  const extension = { 'x-runstream-extensions': '1' };
  expect(
    ((await call(TEST_TOKEN, 'GET', `/v1/responses/${a.response}`, undefined, extension)).json as Json)
      .status,
  ).toBe('requires_action');
}

function expectWireError(result: { status: number; json: unknown }, status: number, code?: string): void {
  expect(result.status).toBe(status);
  const error = (result.json as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  expect(typeof error?.code).toBe('string');
  expect(typeof error?.message).toBe('string');
  if (code !== undefined) expect(error?.code).toBe(code);
}

describe('the tenant matrix', () => {
  const routes = () =>
    [
      ['GET', `/v1/conversations/${a.conversation}`],
      ['POST', `/v1/conversations/${a.conversation}/messages`, { text: '帮我取消' }],
      ['GET', `/v1/runs/${a.run}`],
      ['GET', `/v1/runs/${a.run}/events`],
      ['POST', `/v1/runs/${a.run}/cancel`, {}],
      ['POST', `/v1/runs/${a.run}/confirmations/${a.toolCallId}`, { decision: 'approve' }],
      ['GET', `/v1/responses/${a.response}`],
      ['POST', `/v1/responses/${a.response}/tool_results`, [{ call_id: a.callId, output: 'stolen' }]],
      ['POST', `/v1/responses/${a.response}/cancel`, {}],
      ['POST', '/v1/responses', { input: 'go on', previous_response_id: a.response, stream: false }],
    ] as const;

  it("is 404 for user B on every route with A's ids, as for ids that do not exist; 401 without a valid token", async () => {
    for (const [method, path, body] of routes()) {
      const asBob = await call(bobToken, method, path, body);
      expect([method, path, asBob.status]).toEqual([method, path, 404]);
      expectWireError(asBob, 404, 'not_found');
      for (const token of [null, 'rs_not-a-token', `${TEST_TOKEN}x`, '']) {
        const refused = await call(token, method, path, body);
        expect([method, path, token, refused.status]).toEqual([method, path, token, 401]);
        expectWireError(refused, 401, 'unauthorized');
      }
    }
    // A GET stream with B's token in the query is B's too.
    const query = await call(null, 'GET', `/v1/runs/${a.run}/events?access_token=${bobToken}`);
    expectWireError(query, 404, 'not_found');
    // The audit log filtered by A's run answers B as it answers a run that does not exist: nothing.
    const audit = await call(bobToken, 'GET', `/v1/tool-audit?run_id=${a.run}`);
    expect(audit).toEqual(await call(bobToken, 'GET', '/v1/tool-audit?run_id=run_nope'));
    expect(audit.json).toEqual({ data: [] });
    // B's own list holds none of A's conversations.
    expect(((await call(bobToken, 'GET', '/v1/conversations')).json as { data: unknown[] }).data).toEqual([]);
    await expectAUntouched();
  }, 60_000);
});

/** Path ids: A's, made up, and the shapes that break naive routers and SQL. */
const pathId = () =>
  fc.oneof(
    fc.constantFrom(
      a.conversation,
      a.run,
      a.response,
      'run_nope',
      '..',
      '%2e%2e',
      '%00',
      '%2F',
      encodeURIComponent("' OR 1=1 --"),
      encodeURIComponent('退货'),
      'x'.repeat(5000),
    ),
    fc.string({ maxLength: 40 }).map(encodeURIComponent),
  );

/** Bodies: valid-looking ones with wrong values, any JSON, broken JSON, and the odd huge one. */
const body = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  {
    weight: 3,
    arbitrary: fc.record(
      {
        text: fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.constant('  ')),
        clientMessageId: fc.oneof(fc.string(), fc.constant(''), fc.integer()),
        decision: fc.oneof(fc.constantFrom('approve', 'reject', 'APPROVE', ''), fc.integer()),
        reason: fc.oneof(fc.string(), fc.constant(''), fc.constant('x'.repeat(500))),
        title: fc.oneof(fc.string(), fc.constant(''), fc.integer()),
        input: fc.oneof(
          fc.string(),
          fc.constant([]),
          fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }),
        ),
        tools: fc.oneof(fc.constant([]), fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 2 })),
        previous_response_id: fc.oneof(fc.constant(a.response), fc.string()),
        stream: fc.oneof(fc.boolean(), fc.string()),
        tool_outputs: fc.oneof(fc.constant([]), fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 2 })),
      },
      { requiredKeys: [] },
    ),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom('{"text": ', '{', '[', 'null', '"', '{"text":"\\ud800"}', '\u0000', '{}}', ''),
  },
  { weight: 1, arbitrary: fc.constant(JSON.stringify({ text: 'x'.repeat(70_000) })) },
);

const lastEventId = fc.oneof(
  fc.constantFrom(
    '-1',
    '0',
    '1e9',
    '99999999999999999999999',
    'NaN',
    'abc',
    '1.5',
    ' 7 ',
    '',
    '\u00e9\u00ff',
  ),
  fc.string({ maxLength: 12 }).filter((value) => /^[\x20-\x7e]*$/.test(value)),
);

const query = fc.oneof(
  fc.constant(''),
  fc
    .tuple(
      fc.constantFrom('after', 'limit', 'run_id', 'path', 'access_token', 'stream', 'starting_after'),
      fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('-1', '1e99', 'x'.repeat(3000))),
    )
    .map(([key, value]) => `?${key}=${encodeURIComponent(value)}`),
);

type Route = readonly [method: string, path: () => string];

const request = fc.record({
  route: fc.oneof<fc.Arbitrary<Route>[]>(
    fc.constant(['POST', () => '/v1/conversations'] as const),
    fc.constant(['GET', () => '/v1/conversations'] as const),
    pathId().map((id) => ['GET', () => `/v1/conversations/${id}`] as const),
    pathId().map((id) => ['POST', () => `/v1/conversations/${id}/messages`] as const),
    pathId().map((id) => ['GET', () => `/v1/runs/${id}`] as const),
    pathId().map((id) => ['GET', () => `/v1/runs/${id}/events`] as const),
    pathId().map((id) => ['POST', () => `/v1/runs/${id}/cancel`] as const),
    fc
      .tuple(pathId(), pathId())
      .map(([id, call]) => ['POST', () => `/v1/runs/${id}/confirmations/${call}`] as const),
    fc.constant(['GET', () => '/v1/knowledge/sources'] as const),
    fc.constant(['GET', () => '/v1/tool-audit'] as const),
    fc.constant(['POST', () => '/v1/responses'] as const),
    pathId().map((id) => ['GET', () => `/v1/responses/${id}`] as const),
    pathId().map((id) => ['POST', () => `/v1/responses/${id}/tool_results`] as const),
    pathId().map((id) => ['POST', () => `/v1/responses/${id}/cancel`] as const),
  ),
  body,
  query,
  lastEventId: fc.option(lastEventId),
  contentType: fc.constantFrom('application/json', 'text/plain', 'application/json; charset=latin1', ''),
  asBob: fc.boolean(),
});

describe('fuzzed requests', () => {
  it('are never a 5xx: every refusal is a 4xx in the wire error shape, and the server stays up', async () => {
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(request, async ({ route, body, query, lastEventId, contentType, asBob }) => {
        const [method, path] = route;
        const headers: Json = {};
        if (lastEventId !== null) headers['last-event-id'] = lastEventId;
        if (contentType !== '') headers['content-type'] = contentType;
        const result = await call(
          asBob ? bobToken : TEST_TOKEN,
          method,
          `${path()}${query}`,
          method === 'POST' ? (typeof body === 'string' ? body : JSON.stringify(body)) : undefined,
          headers,
        );
        statuses.set(result.status, (statuses.get(result.status) ?? 0) + 1);
        expect(
          result.status,
          `${method} ${path().slice(0, 80)}${query.slice(0, 40)}: ${result.text.slice(0, 200)}`,
        ).toBeLessThan(500);
        if (result.status >= 400) expectWireError(result, result.status);
      }),
      { numRuns: FUZZED_REQUESTS, seed: 1303 },
    );
    // The fuzzer reached success, refusal and not-found alike.
    expect([...statuses.keys()].some((status) => status < 300)).toBe(true);
    expect(statuses.get(400) ?? 0).toBeGreaterThan(FUZZED_REQUESTS / 100);
    expect(statuses.get(404) ?? 0).toBeGreaterThan(FUZZED_REQUESTS / 100);
    expect((await call(null, 'GET', '/health')).json).toEqual({ status: 'ok' });
  }, 240_000);
});
