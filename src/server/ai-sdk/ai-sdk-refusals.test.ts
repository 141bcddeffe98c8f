import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedChatModel, textTurn, toolCallTurn } from '../../models/index.ts';
import { startTestServer, TEST_TOKEN, type TestServer } from '../test-support/start-test-server.ts';
import {
  aiSdkClient,
  answered,
  createOtherUser,
  nativeRun,
  post,
  rawGet,
  SEED,
  toolPart,
  type UiMessage,
  userMessage,
} from './test-support/ai-sdk-client.ts';

/** What `/v1/ai-sdk/chat` refuses; a refusal loses nothing of the chat it names. */

let server: TestServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('requests /v1/ai-sdk/chat refuses', () => {
  it('401 without a token, 400 for malformed (and fuzzed) bodies, 404 for another user’s chat, 409 while a card waits', async () => {
    server = await startTestServer();
    const baseUrl = server.server.url;
    const bob = await createOtherUser(server.databasePath, 'Bob');
    expect((await post(baseUrl, { id: 'c', messages: [userMessage('u', 'hi')] }, null)).status).toBe(401);
    expect((await rawGet(baseUrl, 'c', { authorization: '' })).status).toBe(401);

    const bad: [unknown, RegExp][] = [
      ['{not json', /not valid JSON/],
      [{}, /^id: /],
      [{ id: 'c', messages: [] }, /^messages: /],
      [{ id: 'c', messages: [{ role: 'user', parts: 'hi' }] }, /^messages\.0\.parts: /],
      [{ id: 'c', messages: [{ role: 'user', parts: [{ type: 'file', url: 'x' }] }] }, /no text part/],
      [
        { id: 'c', messages: [userMessage('u', 'hi')], trigger: 'regenerate-message' },
        /regenerate-message is not supported/,
      ],
      [
        { id: 'c', messages: [userMessage('u', 'hi')], tools: [{ name: 'cancel_order' }] },
        /name of a server tool/,
      ],
    ];
    for (const [body, message] of bad) {
      const response = await post(baseUrl, body);
      const json = (await response.json()) as { error: { code: string; message: string } };
      expect([response.status, json.error.message]).toEqual([400, expect.stringMatching(message)]);
    }

    const user = userMessage('u1', SEED);
    const first = await aiSdkClient({
      op: 'send',
      baseUrl,
      token: TEST_TOKEN,
      chatId: 'chat-a',
      messages: [user],
    });
    const runId = first.headers['x-runstream-run-id'] ?? '';
    const approval = answered(first.message as UiMessage, true);
    // Bob with Alice's chat id and her approval: his chat of that id is not hers.
    const bobs = await post(baseUrl, { id: 'chat-a', messages: [user, approval] }, bob);
    expect(bobs.status).toBe(404);
    expect((await rawGet(baseUrl, 'chat-a', { authorization: `Bearer ${bob}` })).status).toBe(204);
    const bobCancels = await fetch(`${baseUrl}/v1/runs/${runId}/cancel`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bob}` },
    });
    expect(bobCancels.status).toBe(404);
    expect((await rawGet(baseUrl, 'chat-a', { 'last-event-id': 'x' })).status).toBe(400);
    expect(await nativeRun(baseUrl, runId)).toMatchObject({ status: 'paused' });

    // Fuzzed bodies near the request's shape, on Alice's waiting chat and on fresh ones: a 4xx in
    // the wire error shape, or a stream of a new chat's run; never a 5xx, and her card still waits.
    await fc.assert(
      fc.asyncProperty(fuzzedBody(), async (body) => {
        const response = await post(baseUrl, body);
        if (response.status === 200) {
          await response.text();
          return;
        }
        expect(response.status).toBeGreaterThanOrEqual(400);
        expect(response.status).toBeLessThan(500);
        const json = (await response.json()) as { error: { code: unknown; message: unknown } };
        expect([typeof json.error.code, typeof json.error.message]).toEqual(['string', 'string']);
      }),
      { numRuns: 80 },
    );
    expect(await nativeRun(baseUrl, runId)).toMatchObject({ status: 'paused' });

    const meanwhile = await post(baseUrl, {
      id: 'chat-a',
      messages: [user, first.message, userMessage('u2', '在吗')],
    });
    expect(meanwhile.status).toBe(409);
    expect(((await meanwhile.json()) as { error: { code: string } }).error.code).toBe('confirmation_pending');
    // An assistant message that answers nothing the run waits for.
    const unanswered = await post(baseUrl, { id: 'chat-a', messages: [user, first.message] });
    expect(unanswered.status).toBe(400);
    // Alice's own approval still works after all that.
    const approved = await aiSdkClient({
      op: 'send',
      baseUrl,
      token: TEST_TOKEN,
      chatId: 'chat-a',
      messages: [user, approval],
      message: approval,
    });
    expect(toolPart(approved.message, 'cancel_order')).toMatchObject({ state: 'output-available' });
    // And the same approval again: the run no longer waits.
    expect((await post(baseUrl, { id: 'chat-a', messages: [user, approval] })).status).toBe(409);
  }, 120_000);

  it('an approval from an earlier run’s message is refused, not applied to a later card with the same call id', async () => {
    // Providers may number their calls (`call_0`): two runs of one chat can hold the same call id.
    const cancelCall = (orderId: string) => [
      toolCallTurn([{ name: 'load_skill', arguments: { name: 'order-change' }, id: 'call_skill' }]),
      toolCallTurn([{ name: 'cancel_order', arguments: { orderId }, id: 'call_same' }]),
    ];
    const model = new ScriptedChatModel([...cancelCall('88235'), ...cancelCall('88240'), textTurn('好')]);
    server = await startTestServer({ model });
    const baseUrl = server.server.url;
    const send = (messages: unknown[]) =>
      aiSdkClient({ op: 'send', baseUrl, token: TEST_TOKEN, chatId: 'chat-stale', messages });
    const user = userMessage('u1', '取消 88235');
    const stale = (await send([user])).message as UiMessage;
    const staleRunId = String(stale.metadata?.runId);
    const stopped = await fetch(`${baseUrl}/v1/runs/${staleRunId}/cancel`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_TOKEN}` },
    });
    expect(stopped.status).toBe(200);
    const later = (await send([user, stale, userMessage('u2', '取消 88240')])).message as UiMessage;
    const laterRunId = String(later.metadata?.runId);
    expect(toolPart(later, 'cancel_order')).toMatchObject({
      toolCallId: 'call_same',
      state: 'approval-requested',
    });

    // A second tab still shows the first run's card, and approves it.
    const response = await post(baseUrl, { id: 'chat-stale', messages: [user, answered(stale, true)] });
    expect(response.status).toBe(409);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('run_finished');
    expect(await nativeRun(baseUrl, laterRunId)).toMatchObject({ status: 'paused' });
  }, 120_000);
});

describe('Last-Event-ID on a chat’s stream', () => {
  it('a position in an earlier run of the chat is no position in the run under way: the reader gets it whole', async () => {
    const model = new ScriptedChatModel([
      textTurn('第一轮说完了，这一段话比较长，好让它的事件多一些。'),
      toolCallTurn([{ name: 'load_skill', arguments: { name: 'order-change' }, id: 'call_skill' }]),
      toolCallTurn([{ name: 'cancel_order', arguments: { orderId: '88235' }, id: 'call_c' }]),
    ]);
    server = await startTestServer({ model });
    const baseUrl = server.server.url;
    const first = await (await post(baseUrl, { id: 'chat-ids', messages: [userMessage('u1', '说')] })).text();
    // As EventSource keeps it: the last `id:` the stream carried.
    const lastId = [...first.matchAll(/^id: (.+)$/gm)].at(-1)?.[1] ?? '';
    expect(lastId).not.toBe('');
    const second = await post(baseUrl, { id: 'chat-ids', messages: [userMessage('u2', '取消 88235')] });
    expect(await second.text()).toContain('"finishReason":"tool-calls"');

    const resumed = await rawGet(baseUrl, 'chat-ids', { 'last-event-id': lastId });
    expect(resumed.status).toBe(200);
    const text = await resumed.text();
    expect(text.startsWith('data: {"type":"start"')).toBe(true);
    expect(text).toContain('"type":"tool-approval-request"');
  }, 120_000);

  it('a chat id with spaces around it names the same chat on the resume route as on the POST', async () => {
    const model = new ScriptedChatModel([
      toolCallTurn([{ name: 'load_skill', arguments: { name: 'order-change' }, id: 'call_skill' }]),
      toolCallTurn([{ name: 'cancel_order', arguments: { orderId: '88235' }, id: 'call_c' }]),
    ]);
    server = await startTestServer({ model });
    const baseUrl = server.server.url;
    const started = await post(baseUrl, { id: ' chat spaced ', messages: [userMessage('u1', '取消 88235')] });
    expect(await started.text()).toContain('"finishReason":"tool-calls"');
    const resumed = await rawGet(baseUrl, ' chat spaced ');
    expect(resumed.status).toBe(200);
    expect(await resumed.text()).toContain('"type":"tool-approval-request"');
  }, 120_000);
});

/** Request bodies shaped like `DefaultChatTransport`'s, with every field sometimes wrong. */
function fuzzedBody(): fc.Arbitrary<unknown> {
  const junk = fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.boolean(), fc.object());
  const part = fc.record(
    {
      type: fc.oneof(
        fc.constantFrom('text', 'reasoning', 'tool-cancel_order', 'dynamic-tool', 'file'),
        fc.string(),
      ),
      text: fc.oneof(fc.string({ maxLength: 40 }), junk),
      toolCallId: fc.oneof(fc.constantFrom('call_x', ''), junk),
      state: fc.oneof(fc.constantFrom('approval-responded', 'output-available', 'output-error'), junk),
      approval: fc.oneof(fc.record({ id: fc.string(), approved: fc.boolean() }), junk),
      output: junk,
    },
    { requiredKeys: ['type'] },
  );
  const message = fc.record(
    {
      id: fc.oneof(fc.string({ maxLength: 10 }), junk),
      role: fc.oneof(fc.constantFrom('user', 'assistant', 'system'), junk),
      parts: fc.oneof(fc.array(part, { maxLength: 4 }), junk),
    },
    { requiredKeys: ['role'] },
  );
  return fc.oneof(
    junk,
    fc.record(
      {
        id: fc.oneof(fc.constantFrom('chat-a', 'chat-fuzz'), fc.string({ maxLength: 30 }), junk),
        messages: fc.oneof(fc.array(message, { maxLength: 3 }), junk),
        trigger: fc.oneof(fc.constantFrom('submit-message', 'regenerate-message'), junk),
        tools: fc.oneof(fc.array(fc.record({ name: fc.string({ maxLength: 10 }) }), { maxLength: 2 }), junk),
      },
      { requiredKeys: [] },
    ),
  );
}
