import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TEST_TOKEN, type TestServer } from '../test-support/start-test-server.ts';
import { secondUser } from './test-support/ag-ui-agent.ts';

/**
 * Fuzzed requests on the AG-UI routes, as `hostile-requests.test.ts` does for the others: whatever
 * the body, headers or ids, the answer is a stream or a 4xx in the wire error shape, never a 5xx,
 * and the server stays up.
 */
let testServer: TestServer;
let url: string;
let bobToken = '';

beforeAll(async () => {
  testServer = await startTestServer({ env: { RUNSTREAM_RATE_LIMIT: '0' } });
  url = testServer.server.url;
  bobToken = await secondUser(testServer, 'Bob');
});

afterAll(() => testServer?.close());

const id = fc.oneof(
  fc.constantFrom('thread-1', 'call_1', '', 'x'.repeat(300), '..', '\u0000', '退货'),
  fc.string({ maxLength: 20 }),
);

const message = fc.oneof(
  fc.record({
    id,
    role: fc.constant('user'),
    content: fc.oneof(fc.string(), fc.constant('帮我取消订单 88235')),
  }),
  fc.record({ id, role: fc.constant('tool'), toolCallId: id, content: fc.string() }),
  fc.record({
    id,
    role: fc.constantFrom('assistant', 'system', 'developer', 'reasoning', 'robot'),
    content: fc.string(),
  }),
  fc.jsonValue({ maxDepth: 2 }),
);

const body = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record(
      {
        threadId: id,
        runId: id,
        state: fc.jsonValue({ maxDepth: 2 }),
        messages: fc.oneof(fc.array(message, { maxLength: 4 }), fc.string()),
        tools: fc.oneof(
          fc.constant([]),
          fc.array(
            fc.record({ name: id, description: fc.string(), parameters: fc.jsonValue({ maxDepth: 2 }) }),
            { maxLength: 2 },
          ),
        ),
        context: fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 2 }),
        resume: fc.oneof(
          fc.constant([]),
          fc.array(
            fc.record({
              interruptId: id,
              status: fc.constantFrom('resolved', 'cancelled', 'maybe'),
              payload: fc.oneof(fc.constantFrom('approve', 'reject'), fc.jsonValue({ maxDepth: 2 })),
            }),
            { maxLength: 2 },
          ),
        ),
      },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)) },
  { weight: 1, arbitrary: fc.constantFrom('{"threadId": ', '', 'null', '[', '\u0000') },
);

describe('fuzzed AG-UI requests', () => {
  it('are never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        body,
        fc.boolean(),
        fc.oneof(fc.constant(undefined), fc.constantFrom('-1', 'abc', '99999999999999999999', '3')),
        id,
        async (payload, asBob, lastEventId, runId) => {
          const token = asBob ? bobToken : TEST_TOKEN;
          const posted = await fetch(`${url}/v1/ag-ui`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: typeof payload === 'string' ? payload : JSON.stringify(payload),
          });
          const text = await posted.text();
          expect([posted.status, text.slice(0, 200)]).toEqual([
            expect.toBeOneOf([200, 400, 404, 409, 413, 429]),
            expect.any(String),
          ]);
          if (posted.status !== 200)
            expect(JSON.parse(text)).toMatchObject({ error: { code: expect.any(String) } });
          const got = await fetch(`${url}/v1/ag-ui/runs/${encodeURIComponent(runId)}/events`, {
            headers: {
              authorization: `Bearer ${token}`,
              ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }),
            },
          });
          await got.text();
          expect(got.status).toBeGreaterThanOrEqual(200);
          expect(got.status).toBeLessThan(500);
        },
      ),
      { numRuns: 150 },
    );
    expect((await fetch(`${url}/health`)).status).toBe(200);
  }, 120_000);
});
