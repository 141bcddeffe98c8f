import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRunstreamClient, type RunstreamClient } from '../../client/index.ts';
import type { Message, ToolBlock } from '../../protocol/index.ts';
import { startTestServer, TEST_TOKEN, type TestServer } from '../../server/test-support/start-test-server.ts';
import { RETURN_QUESTION, SEED_CANCEL_MESSAGE } from '../../web/test-support/chat-page-fixture.ts';
import { type DropProxy, startDropProxy } from '../../web/test-support/drop-proxy.ts';
import { ChatController, type ChatItem, type ChatSnapshot, composerBlock } from './chat-controller.ts';

/**
 * The chat page's controller, React aside, against the real server (offline NovaShop model, a temp
 * SQLite file) through the real client SDK: sends, switches, refresh restore, the confirmation card,
 * the 409, stop and a dropped connection. Only `fetch` is wrapped, to count and (once) hold requests.
 */

type AssistantItem = Extract<ChatItem, { kind: 'assistant' }>;

interface RecordedRequest {
  method: string;
  url: string;
}

interface TestPage {
  controller: ChatController;
  client: RunstreamClient;
  navigations: { path: string; replace: boolean }[];
  unauthorized: number[];
  requests: RecordedRequest[];
  /** Every connection status a subscriber saw, consecutive repeats folded. */
  connectionStatuses: string[];
}

interface PageOptions {
  baseUrl?: string;
  /** Called with each response before the client sees it; may hold it back. */
  onResponse?: (request: RecordedRequest, response: Response) => Promise<void> | void;
}

const pages: TestPage[] = [];

function openPage(server: TestServer, options: PageOptions = {}): TestPage {
  const requests: RecordedRequest[] = [];
  const recordingFetch: typeof fetch = async (input, init) => {
    const request = { method: init?.method ?? 'GET', url: String(input) };
    requests.push(request);
    const response = await fetch(input, init);
    await options.onResponse?.(request, response);
    return response;
  };
  const client = createRunstreamClient({
    baseUrl: options.baseUrl ?? server.server.url,
    token: TEST_TOKEN,
    fetch: recordingFetch,
  });
  const navigations: TestPage['navigations'] = [];
  const unauthorized: number[] = [];
  const controller = new ChatController({
    client,
    navigate: (path, { replace }) => navigations.push({ path, replace }),
    onUnauthorized: () => unauthorized.push(Date.now()),
    scheduleFrame: (callback) => queueMicrotask(callback),
  });
  const connectionStatuses: string[] = [controller.getSnapshot().connection.status];
  controller.subscribe(() => {
    const status = controller.getSnapshot().connection.status;
    if (connectionStatuses.at(-1) !== status) connectionStatuses.push(status);
  });
  const page = { controller, client, navigations, unauthorized, requests, connectionStatuses };
  pages.push(page);
  return page;
}

afterEach(() => {
  for (const page of pages.splice(0)) {
    page.controller.dispose();
    expect(page.unauthorized).toEqual([]);
  }
});

/** A client straight to the server, for checking what it stored (not the page's). */
function apiClient(server: TestServer): RunstreamClient {
  return createRunstreamClient({ baseUrl: server.server.url, token: TEST_TOKEN });
}

async function waitFor<T>(
  check: () => T | false | null | undefined,
  timeoutMs = 8_000,
  what = 'the condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (true) {
    const value = check();
    if (value !== false && value !== null && value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function lastItem(snapshot: ChatSnapshot): ChatItem | undefined {
  return snapshot.conversation.items.at(-1);
}

function lastAssistant(snapshot: ChatSnapshot): AssistantItem | undefined {
  const last = lastItem(snapshot);
  return last?.kind === 'assistant' ? last : undefined;
}

function answerText(message: Pick<Message, 'blocks'>): string {
  return message.blocks
    .filter((block) => block.kind === 'answer')
    .map((block) => ('text' in block ? block.text : ''))
    .join('\n');
}

/** The page shows its last assistant message with `status`, and reads no stream any more. */
function settledWith(page: TestPage, status: string): () => AssistantItem | undefined {
  return () => {
    const snapshot = page.controller.getSnapshot();
    const last = lastAssistant(snapshot);
    return last?.state.status === status && !snapshot.streaming && !snapshot.sending ? last : undefined;
  };
}

/** The last assistant message as the server persisted it. */
async function persistedLast(server: TestServer, conversationId: string): Promise<Message> {
  const detail = await apiClient(server).getConversation(conversationId);
  const last = detail.messages.at(-1);
  if (last?.role !== 'assistant') throw new Error('the conversation does not end with an answer');
  return last.message;
}

function settleWithin<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_resolve, reject) =>
      setTimeout(() => reject(new Error(`did not settle within ${timeoutMs} ms`)), timeoutMs),
    ),
  ]);
}

/** Poll the server's run until it has `status` (or the time is up), and return the last view. */
async function runStatusEventually(server: TestServer, runId: string, status: string, timeoutMs = 8_000) {
  const api = apiClient(server);
  const deadline = Date.now() + timeoutMs;
  while (true) {
    const run = await api.getRun(runId);
    if (run.status === status || Date.now() > deadline) return run;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

describe('ChatController: sending', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
  }, 30_000);

  afterAll(async () => {
    await server?.close();
  });

  it('creates the conversation on the first message, navigates to it and streams the answer', async () => {
    const page = openPage(server);
    const { controller } = page;
    const before = (await apiClient(server).listConversations()).length;

    const accepted = await controller.send('你好');
    expect(accepted).toBe(true);
    // Resolved after the first event: the answer item already carries the run it belongs to.
    const atAccept = controller.getSnapshot();
    expect(lastAssistant(atAccept)?.state.runId).toEqual(expect.any(String));
    expect(atAccept.sending).toBe(false);

    const conversationId = atAccept.conversation.id;
    expect(conversationId).toEqual(expect.any(String));
    expect(page.navigations).toEqual([{ path: `/c/${conversationId}`, replace: true }]);

    await waitFor(settledWith(page, 'completed'), 8_000, 'the answer to complete');
    const snapshot = controller.getSnapshot();
    expect(snapshot.streaming).toBe(false);
    expect(snapshot.sending).toBe(false);
    expect(snapshot.connection).toEqual({ status: 'idle' });
    expect(composerBlock(snapshot)).toBeNull();
    expect(snapshot.conversation.items.map((item) => item.kind)).toEqual(['user', 'assistant']);

    const after = await apiClient(server).listConversations();
    expect(after).toHaveLength(before + 1);
    expect(after.some((conversation) => conversation.id === conversationId)).toBe(true);
    expect(page.requests.filter((request) => request.method === 'POST')).toHaveLength(2);
    // The sidebar list was refreshed after the send.
    await waitFor(
      () => controller.getSnapshot().conversations.some((conversation) => conversation.id === conversationId),
      2_000,
      'the conversation list to include the new conversation',
    );
  });

  it('sends one message for a double send (an example button double click)', async () => {
    const page = openPage(server);
    const { controller } = page;
    const before = (await apiClient(server).listConversations()).length;

    const first = controller.send(RETURN_QUESTION);
    const second = controller.send(RETURN_QUESTION);
    await expect(second).resolves.toBe(false);
    await expect(first).resolves.toBe(true);
    await waitFor(settledWith(page, 'completed'), 8_000, 'the answer to complete');

    expect(await apiClient(server).listConversations()).toHaveLength(before + 1);
    const conversationId = controller.getSnapshot().conversation.id ?? '';
    const detail = await apiClient(server).getConversation(conversationId);
    expect(detail.messages.filter((message) => message.role === 'user')).toHaveLength(1);
    expect(detail.messages).toHaveLength(2);
    expect(page.requests.filter((request) => request.method === 'POST')).toHaveLength(2);
    expect(controller.getSnapshot().conversation.items).toHaveLength(2);
  });

  it.each(['openConversation', 'newConversation'] as const)(
    'settles the send and frees the composer after a switch (%s) before the first event',
    async (how) => {
      const other = await apiClient(server).createConversation({ title: 'another conversation' });
      const accepted = deferred();
      const release = deferred();
      const seen: { runId: string | null } = { runId: null };
      const page = openPage(server, {
        // Hold the answer to the message until the test has switched away: the server has the
        // message and started the run, the page has not seen a single event.
        async onResponse(request, response) {
          if (request.method !== 'POST' || !request.url.endsWith('/messages')) return;
          seen.runId = response.headers.get('x-runstream-run-id');
          accepted.resolve();
          await release.promise;
        },
      });
      const { controller } = page;

      const sent = controller.send('你好');
      await settleWithin(accepted.promise, 5_000);
      const switched =
        how === 'openConversation' ? controller.openConversation(other.id) : controller.newConversation();
      release.resolve();
      // Settled, not hung: `true`, as the server took the message (the composer it was typed in is gone).
      await expect(settleWithin(sent, 5_000)).resolves.toBe(true);
      await switched;

      const snapshot = await waitFor(() => {
        const current = controller.getSnapshot();
        return current.conversation.status !== 'loading' ? current : undefined;
      });
      expect(snapshot.conversation.id).toBe(how === 'openConversation' ? other.id : null);
      expect(snapshot.conversation.items).toEqual([]);
      expect(snapshot.sending).toBe(false);
      expect(snapshot.streaming).toBe(false);
      expect(composerBlock(snapshot)).toBeNull();
      if (how === 'newConversation') expect(page.navigations.at(-1)).toEqual({ path: '/', replace: false });
      // Nothing of the other conversation's run leaks into this one, even later.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(controller.getSnapshot().conversation.items).toEqual([]);
      expect(controller.getSnapshot().connection).toEqual({ status: 'idle' });

      // A switch only disconnects: the run goes on and completes on the server.
      expect(seen.runId).toEqual(expect.any(String));
      expect(await runStatusEventually(server, seen.runId ?? '', 'completed')).toMatchObject({
        status: 'completed',
      });
    },
  );
  it('settles the send when the switch comes before the request has even left', async () => {
    const api = apiClient(server);
    const mine = await api.createConversation({ title: 'mine' });
    const other = await api.createConversation({ title: 'another conversation' });
    const page = openPage(server);
    const { controller } = page;
    await controller.openConversation(mine.id);

    const sent = controller.send('你好');
    const switched = controller.openConversation(other.id);
    await expect(settleWithin(sent, 5_000)).resolves.toEqual(expect.any(Boolean));
    await switched;
    const snapshot = controller.getSnapshot();
    expect(snapshot.conversation).toMatchObject({ id: other.id, status: 'ready', items: [] });
    expect(composerBlock(snapshot)).toBeNull();
    // Whatever reached the server is whole: no question left without its (finished) answer.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const stored = await api.getConversation(mine.id);
    expect(stored.messages.map((message) => message.role)).toEqual(
      stored.messages.length === 0 ? [] : ['user', 'assistant'],
    );
  });
});

describe('ChatController: the confirmation card', () => {
  let server: TestServer;

  // A fresh server: order 88235 is paid and not shipped, so the seed scenario pauses on its card.
  beforeAll(async () => {
    server = await startTestServer();
  }, 30_000);

  afterAll(async () => {
    await server?.close();
  });

  it('pauses on the seed card, blocks the composer and sends one decision for a double approve', async () => {
    const page = openPage(server);
    const { controller } = page;

    await expect(controller.send(SEED_CANCEL_MESSAGE)).resolves.toBe(true);
    const paused = await waitFor(settledWith(page, 'paused'), 8_000, 'the run to pause on the card');
    const pending = paused.state.pause?.pending ?? [];
    expect(pending).toHaveLength(1);
    const toolCallId = pending[0]?.toolCallId ?? '';
    expect(pending[0]?.name).toBe('cancel_order');
    expect(composerBlock(controller.getSnapshot())).toBe('pending_confirmation');
    expect(controller.isBusy()).toBe(true);
    await expect(controller.send('再问一个问题')).resolves.toBe(false);

    const first = controller.decide(toolCallId, 'approve');
    const second = controller.decide(toolCallId, 'approve');
    await Promise.all([first, second]);
    const completed = await waitFor(settledWith(page, 'completed'), 8_000, 'the run to complete');

    const decisions = page.requests.filter(
      (request) => request.method === 'POST' && request.url.includes('/confirmations/'),
    );
    expect(decisions).toHaveLength(1);
    expect(decisions[0]?.url).toContain(encodeURIComponent(toolCallId));
    const tool = completed.state.blocks.find(
      (block): block is ToolBlock => block.kind === 'tool' && block.toolCallId === toolCallId,
    );
    expect(tool).toMatchObject({ name: 'cancel_order', status: 'done' });
    expect(completed.state.blocks.find((block) => block.kind === 'confirm')).toMatchObject({
      status: 'approved',
    });
    expect(answerText(completed.state)).toContain('88235');
    const snapshot = controller.getSnapshot();
    expect(snapshot.deciding.size).toBe(0);
    expect(snapshot.decisionErrors.size).toBe(0);
    expect(composerBlock(snapshot)).toBeNull();
    expect(snapshot.connection).toEqual({ status: 'idle' });
    // What the page shows is what the server stored.
    const stored = await persistedLast(server, snapshot.conversation.id ?? '');
    expect(stored.status).toBe('completed');
    expect(answerText(completed.state)).toBe(answerText(stored));
  });
});

describe("ChatController: the server's 409", () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
  }, 30_000);

  afterAll(async () => {
    await server?.close();
  });

  it('takes the message back, says why, shows the pending card, and a decision clears the notice', async () => {
    const page = openPage(server);
    const { controller } = page;
    await expect(controller.send('你好')).resolves.toBe(true);
    await waitFor(settledWith(page, 'completed'), 8_000, 'the first answer');
    const conversationId = controller.getSnapshot().conversation.id ?? '';
    const before = controller.getSnapshot().conversation.items;
    expect(before).toHaveLength(2);

    // Another tab (here: the API) pauses a run in this conversation; the page does not know.
    const elsewhere = await apiClient(server)
      .sendMessage(conversationId, { text: SEED_CANCEL_MESSAGE })
      .result();
    expect(elsewhere.status).toBe('paused');

    await expect(controller.send('x')).resolves.toBe(false);
    const refused = controller.getSnapshot();
    expect(refused.composerNotice?.code).toBe('confirmation_pending');
    expect(refused.composerNotice?.message).toContain('确认');
    expect(refused.sending).toBe(false);
    // The optimistic question and answer are gone again.
    expect(refused.conversation.items).toEqual(before);

    // The page reloads the conversation and shows the card that is waiting.
    const paused = await waitFor(settledWith(page, 'paused'), 5_000, 'the reload to show the paused run');
    expect(paused.key).toBe(elsewhere.messageId);
    const items = controller.getSnapshot().conversation.items;
    expect(items.map((item) => (item.kind === 'user' ? item.text : item.kind))).toEqual([
      '你好',
      'assistant',
      SEED_CANCEL_MESSAGE,
      'assistant',
    ]);
    expect(composerBlock(controller.getSnapshot())).toBe('pending_confirmation');
    expect(controller.getSnapshot().composerNotice?.code).toBe('confirmation_pending');
    const toolCallId = paused.state.pause?.pending[0]?.toolCallId ?? '';
    expect(toolCallId).not.toBe('');

    const decided = controller.decide(toolCallId, 'reject');
    await waitFor(() => controller.getSnapshot().composerNotice === null, 1_000, 'the notice to clear');
    await decided;
    const completed = await waitFor(settledWith(page, 'completed'), 8_000, 'the rejected run to complete');
    expect(completed.state.blocks.find((block) => block.kind === 'confirm')).toMatchObject({
      status: 'rejected',
    });
    expect(controller.getSnapshot().composerNotice).toBeNull();
    expect(composerBlock(controller.getSnapshot())).toBeNull();
    // No message "x" was ever stored.
    const detail = await apiClient(server).getConversation(conversationId);
    expect(detail.messages.filter((message) => message.role === 'user')).toHaveLength(2);
  });
});

describe('ChatController: while a run streams', () => {
  let server: TestServer;
  let proxy: DropProxy | undefined;

  beforeAll(async () => {
    // The offline model at 30 ms per part: the answer streams for a few seconds.
    server = await startTestServer({ env: { RUNSTREAM_DEMO_DELAY_MS: '30' } });
  }, 30_000);

  afterAll(async () => {
    await proxy?.close();
    await server?.close();
  });

  /** Wait until the streaming answer shows at least `characters` characters. */
  function streamingAnswer(page: TestPage, characters: number): Promise<AssistantItem> {
    return waitFor(
      () => {
        const last = lastAssistant(page.controller.getSnapshot());
        return last?.state.status === 'running' && answerText(last.state).length >= characters
          ? last
          : undefined;
      },
      8_000,
      `${characters} characters of the answer`,
    );
  }

  /** Record every answer text the page shows for its last message (to check it only ever grows). */
  function recordAnswers(page: TestPage): string[] {
    const texts: string[] = [];
    page.controller.subscribe(() => {
      const last = lastAssistant(page.controller.getSnapshot());
      if (last === undefined) return;
      const text = answerText(last.state);
      if (texts.at(-1) !== text) texts.push(text);
    });
    return texts;
  }

  it('restores a refreshed page mid-stream, which then streams on to the same answer', async () => {
    const first = openPage(server);
    await expect(first.controller.send(RETURN_QUESTION)).resolves.toBe(true);
    const partial = await streamingAnswer(first, 20);
    const conversationId = first.controller.getSnapshot().conversation.id ?? '';

    // The refreshed page: a new controller (and client) that opens the conversation by its address.
    const second = openPage(server);
    const seenBySecond = recordAnswers(second);
    const runningAfterLoad: number[] = [];
    second.controller.subscribe(() => {
      const last = lastAssistant(second.controller.getSnapshot());
      if (last?.state.status === 'running') runningAfterLoad.push(answerText(last.state).length);
    });
    await second.controller.openConversation(conversationId);
    const restored = lastAssistant(second.controller.getSnapshot());
    expect(restored?.state.status).toBe('running');
    expect(restored?.key).toBe(partial.state.messageId);
    // The server persists at block boundaries, so the restored text may lag what the first page shows;
    // following the run from the persisted lastSeq fills the gap.
    expect(restored?.state.lastSeq).toBeGreaterThan(0);
    expect(second.controller.getSnapshot().streaming).toBe(true);

    const [done, firstDone] = await Promise.all([
      waitFor(settledWith(second, 'completed'), 8_000, 'the refreshed page to complete'),
      waitFor(settledWith(first, 'completed'), 8_000, 'the first page to complete'),
    ]);
    // It kept streaming after the restore, not just jumped to the end.
    expect(new Set(runningAfterLoad).size).toBeGreaterThan(2);
    const stored = await persistedLast(server, conversationId);
    expect(stored.status).toBe('completed');
    const finalText = answerText(stored);
    expect(finalText.length).toBeGreaterThan(answerText(partial.state).length);
    expect(answerText(done.state)).toBe(finalText);
    expect(answerText(firstDone.state)).toBe(finalText);
    expect(done.state.blocks.map((block) => block.kind)).toEqual(stored.blocks.map((block) => block.kind));
    for (const text of seenBySecond) expect(finalText.startsWith(text)).toBe(true);
    expect(second.controller.getSnapshot().connection).toEqual({ status: 'idle' });
  });

  it('stops the run with stop(): cancelled by the user, on the server and on the page', async () => {
    const page = openPage(server);
    const { controller } = page;
    const stoppingValues: boolean[] = [];
    controller.subscribe(() => {
      const { stopping } = controller.getSnapshot();
      if (stoppingValues.at(-1) !== stopping) stoppingValues.push(stopping);
    });
    await expect(controller.send(RETURN_QUESTION)).resolves.toBe(true);
    const partial = await streamingAnswer(page, 10);
    const runId = partial.state.runId ?? '';

    await controller.stop();
    const cancelled = await waitFor(settledWith(page, 'cancelled'), 5_000, 'the run to be cancelled');
    const snapshot = controller.getSnapshot();
    expect(snapshot.stopping).toBe(false);
    expect(stoppingValues).toEqual([false, true, false]);
    expect(snapshot.composerNotice).toBeNull();
    expect(composerBlock(snapshot)).toBeNull();
    expect(snapshot.connection).toEqual({ status: 'idle' });
    expect(cancelled.state.finishReason).toBe('user_stop');

    const run = await runStatusEventually(server, runId, 'cancelled');
    expect(run).toMatchObject({ status: 'cancelled', cancelReason: 'user_stop' });
    const stored = await persistedLast(server, snapshot.conversation.id ?? '');
    expect(stored.status).toBe('cancelled');
    expect(answerText(cancelled.state)).toBe(answerText(stored));
    expect(page.requests.filter((request) => request.url.endsWith('/cancel'))).toHaveLength(1);
  });

  it('reconnects by itself after a dropped connection and ends with the stored answer', async () => {
    proxy = await startDropProxy(Number(new URL(server.server.url).port));
    const page = openPage(server, { baseUrl: proxy.url });
    const { controller } = page;
    const texts = recordAnswers(page);

    await expect(controller.send(RETURN_QUESTION)).resolves.toBe(true);
    await streamingAnswer(page, 20);
    expect(proxy.dropAll()).toBeGreaterThan(0);

    const done = await waitFor(
      () => {
        const completed = settledWith(page, 'completed')();
        return completed && controller.getSnapshot().connection.status === 'idle' ? completed : undefined;
      },
      9_000,
      'the resumed run to complete',
    );
    expect(page.connectionStatuses).toContain('reconnecting');
    const reconnectingAt = page.connectionStatuses.indexOf('reconnecting');
    expect(page.connectionStatuses.slice(0, reconnectingAt)).toEqual(['idle', 'open']);
    expect(page.connectionStatuses.at(-1)).toBe('idle');
    expect(page.connectionStatuses).not.toContain('failed');
    // The resume asked for the events after the last one seen.
    expect(page.requests.some((request) => request.method === 'GET' && request.url.endsWith('/events'))).toBe(
      true,
    );

    const stored = await persistedLast(server, controller.getSnapshot().conversation.id ?? '');
    expect(stored.status).toBe('completed');
    const finalText = answerText(stored);
    expect(answerText(done.state)).toBe(finalText);
    expect(done.state.blocks.map((block) => block.kind)).toEqual(stored.blocks.map((block) => block.kind));
    // Never duplicated (or lost) text on the way: every text shown was a beginning of the final one.
    for (const text of texts) expect(finalText.startsWith(text)).toBe(true);
  });
});
