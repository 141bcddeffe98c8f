import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunstreamClient } from '../client/index.ts';
import { hashApiToken } from '../store/index.ts';
import { startTestServer, TEST_TOKEN, type TestServer } from './test-support/start-test-server.ts';

/**
 * Everything the server logs in a session that uses every way a token reaches it: the header, the
 * `?access_token=` of a GET stream, a token handed out by the demo session, wrong and malformed
 * tokens, the Responses API, errors. None of them, nor a token's hash, may be in the log.
 */
let testServer: TestServer;
const lines: Record<string, unknown>[] = [];

beforeAll(async () => {
  testServer = await startTestServer({ log: (line) => lines.push(line) });
});

afterAll(() => testServer?.close());

describe("the server's log", () => {
  it('holds no token, however the tokens came, and no token hash', async () => {
    const { url } = testServer.server;
    const session = (await (await fetch(`${url}/auth/demo-session`, { method: 'POST' })).json()) as {
      token: string;
    };
    const guesses = ['rs_guessedButWrong0123456789', 'Bearer-looking secret', 'a'.repeat(300)];
    for (const token of [TEST_TOKEN, session.token]) {
      const client = createRunstreamClient({ baseUrl: url, token });
      const conversation = await client.createConversation();
      const result = await client.sendMessage(conversation.id, { text: '退货政策是怎样的？' }).result();
      const runId = result.runId ?? '';
      // A GET stream may carry the token in its URL, as a browser EventSource must.
      const replay = await fetch(`${url}/v1/runs/${runId}/events?access_token=${encodeURIComponent(token)}`);
      expect(replay.status).toBeLessThan(300);
      await replay.text();
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      for (const [path, init] of [
        [`/v1/runs/${runId}`, {}],
        [`/v1/conversations/${conversation.id}/messages`, { method: 'POST', body: '{"text": ' }],
        ['/v1/conversations/conv_nope', {}],
        ['/v1/responses', { method: 'POST', body: '{"input":"你好","stream":false}' }],
      ] as const) {
        const response = await fetch(`${url}${path}`, { ...init, headers });
        await response.text();
      }
    }
    for (const guess of guesses) {
      await (
        await fetch(`${url}/v1/conversations`, { headers: { authorization: `Bearer ${guess}` } })
      ).text();
      await (await fetch(`${url}/v1/conversations?access_token=${encodeURIComponent(guess)}`)).text();
    }

    expect(lines.length).toBeGreaterThan(15);
    const log = lines.map((line) => JSON.stringify(line)).join('\n');
    for (const secret of [TEST_TOKEN, session.token, ...guesses]) {
      expect(log).not.toContain(secret);
      expect(log).not.toContain(hashApiToken(secret));
    }
    expect(log).not.toContain('access_token');
  }, 60_000);
});
