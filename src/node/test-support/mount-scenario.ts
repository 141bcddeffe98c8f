import OpenAI from 'openai';
import { expect, it } from 'vitest';
import { createRunstreamClient, type RunstreamClient } from '../../client/index.ts';
import {
  createMessageState,
  createRunEventDecoderStream,
  fromMessage,
  type LoggedRunEvent,
  type Message,
  type MessageState,
  type RunEvent,
  reduceAll,
  toMessage,
} from '../../protocol/index.ts';
import { ALICE, BASE_PATH, BOB, WAITER_AGENT_ID, WAITER_FIRST_WORDS } from './support-runstream.ts';

/** A host app with runstream mounted under `/support`, as the scenario drives it. */
export interface MountedApp {
  /** Where the host app answers: `http://127.0.0.1:<port>`, or a URL only its handlers see. */
  origin: string;
  /**
   * `fetch` as the holder of `session` reaches the host app, signed in the host's own way (its
   * bearer header, its cookie); anonymous without one.
   */
  fetchAs(session?: string): typeof fetch;
  /** The official `openai` client as that session's holder, its `baseURL` under the mount. */
  openai(session: string): OpenAI;
  close(): Promise<void>;
}

/** The NovaShop example's seed scenario (examples/novashop/README.md): cancel the unshipped watch. */
export const SEED = '我买的那块表还没发货的话，帮我取消吧，不想要了。';

/** The blocks of the seed run when it stops on the card, as `npm start` shows them. */
const SEED_CARD_SHAPE = [
  'reasoning:done',
  'answer:done',
  'tool:load_skill:done',
  'reasoning:done',
  'tool:query_order:done',
  'reasoning:done',
  'answer:done',
  'tool:cancel_order:awaiting_confirmation',
  'confirm:pending',
];

export function shape(message: Pick<Message, 'blocks'>): string[] {
  return message.blocks.map((block) =>
    block.kind === 'tool' ? `tool:${block.name}:${block.status}` : `${block.kind}:${block.status}`,
  );
}

export function postJson(body: unknown): RequestInit {
  return { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}

/**
 * The run events of a stream response, in order, to its end; or, when `dropWhen` says so, up to
 * there, and the connection is dropped (the reader cancelled, which closes the socket over HTTP).
 */
export async function readEvents(
  response: Response,
  dropWhen?: (events: readonly RunEvent[]) => boolean,
): Promise<RunEvent[]> {
  if (response.body === null) throw new Error(`expected a stream, got ${response.status} without a body`);
  const reader = response.body.pipeThrough(createRunEventDecoderStream('sse')).getReader();
  const events: RunEvent[] = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return events;
    events.push(value);
    if (dropWhen?.(events)) {
      await reader.cancel();
      return events;
    }
  }
}

/** The events of the run's log among these (all but `done`, which ends one stream). */
export function logged(events: readonly RunEvent[]): LoggedRunEvent[] {
  return events.filter((event): event is LoggedRunEvent => event.type !== 'done');
}

function lastSeqOf(events: readonly RunEvent[]): number {
  return logged(events).at(-1)?.seq ?? 0;
}

/** Each of the log's events once, in order, from the first: the seqs are 1, 2, … n. */
function expectEveryEventOnce(events: readonly LoggedRunEvent[]): void {
  expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
}

/**
 * The conversation's last message after a page refresh, as a page restores it: the persisted
 * message, then its run followed from the seq it was saved at (the store may be a moment behind the
 * end of the stream the page read).
 */
async function refresh(client: RunstreamClient, conversationId: string): Promise<Message> {
  const last = (await client.getConversation(conversationId)).messages.at(-1);
  if (last?.role !== 'assistant' || last.runId === null) throw new Error('no assistant message to restore');
  return toMessage(await client.followRun(last.runId, { state: fromMessage(last.message) }).result());
}

interface Api {
  /** The mount's own URL: `<origin>/support`. */
  api: string;
  asAlice: typeof fetch;
  alice: RunstreamClient;
}

function apiOf(mount: MountedApp): Api {
  const api = `${mount.origin}${BASE_PATH}`;
  const asAlice = mount.fetchAs(ALICE);
  // The client SDK with a base URL that has a path: every route it calls is under the mount.
  return { api, asAlice, alice: createRunstreamClient({ baseUrl: api, fetch: asAlice }) };
}

/**
 * The scenario every mount runs (issue #30, point 4): the seed scenario with a dropped connection
 * resumed with `Last-Event-ID`, a stop with a reason, another user's run, and the Responses face with
 * the official `openai` client. `mountOf` gives the mount the host's `beforeAll` opened.
 */
export function itRunsTheMountScenario(mountOf: () => MountedApp): void {
  it('plays the seed scenario: a dropped stream resumes with Last-Event-ID, the card survives a refresh, 409 while paused, approved once', async () => {
    const { api, asAlice, alice } = apiOf(mountOf());
    const conversation = await alice.createConversation();

    const sent = await asAlice(
      `${api}/v1/conversations/${conversation.id}/messages`,
      postJson({ text: SEED }),
    );
    expect(sent.status).toBe(200);
    expect(sent.headers.get('content-type')).toContain('text/event-stream');
    const runId = sent.headers.get('x-runstream-run-id') ?? '';
    expect(runId).not.toBe('');
    // The connection drops after three events; the run goes on without it.
    const beforeDrop = await readEvents(sent, (events) => events.length === 3);
    const resumed = await asAlice(`${api}/v1/runs/${runId}/events`, {
      headers: { 'last-event-id': String(lastSeqOf(beforeDrop)) },
    });
    expect(resumed.status).toBe(200);
    const afterDrop = await readEvents(resumed);
    expect(afterDrop.at(-1)?.type).toBe('done');
    const seen = logged([...beforeDrop, ...afterDrop]);
    expectEveryEventOnce(seen);
    // …and exactly the log, as a reader from the start gets it.
    expect(seen).toEqual(logged(await readEvents(await asAlice(`${api}/v1/runs/${runId}/events`))));

    const live = reduceAll(createMessageState(), seen);
    expect(live.status).toBe('paused');
    expect(shape(live)).toEqual(SEED_CARD_SHAPE);
    expect(live.blocks.at(-1)).toMatchObject({
      kind: 'confirm',
      description: expect.stringContaining('88235'),
    });

    // A refresh: the same message, the card still there.
    expect(await refresh(alice, conversation.id)).toEqual(toMessage(live));

    // A new message while the card waits is refused, and starts nothing.
    await expect(
      alice.sendMessage(conversation.id, { text: '88235 现在什么状态' }).result(),
    ).rejects.toMatchObject({
      status: 409,
      code: 'confirmation_pending',
    });

    // Approved twice at once: one decision wins and the run continues, the other is refused.
    const toolCallId = live.pause?.pending[0]?.toolCallId ?? '';
    const decisions = await Promise.allSettled(
      [0, 1].map(() =>
        alice.decide(runId, toolCallId, 'approve', { state: fromMessage(toMessage(live)) }).result(),
      ),
    );
    const approved = decisions.flatMap((decision) =>
      decision.status === 'fulfilled' ? [decision.value] : [],
    );
    const refused = decisions.flatMap((decision) =>
      decision.status === 'rejected' ? [decision.reason] : [],
    );
    expect(refused).toEqual([expect.objectContaining({ status: 409, code: 'decision_conflict' })]);
    expect(approved).toHaveLength(1);
    const final = approved[0] as MessageState;
    expect(final.status).toBe('completed');
    expect(final.messageId).toBe(live.messageId);
    expect(shape(final)).toEqual([
      ...SEED_CARD_SHAPE.slice(0, 7),
      'tool:cancel_order:done',
      'confirm:approved',
      'answer:done',
    ]);
    // The cancel ran exactly once.
    const audit = (await alice.getJson(`/v1/tool-audit?run_id=${runId}`)) as {
      data: { name: string; outcome: string }[];
    };
    expect(audit.data.filter((entry) => entry.name === 'cancel_order').map((entry) => entry.outcome)).toEqual(
      ['done'],
    );
    expect(await refresh(alice, conversation.id)).toEqual(toMessage(final));
  });

  it('stops a running run with a reason; a dropped connection stops nothing and resumes with Last-Event-ID', async () => {
    const { api, asAlice, alice } = apiOf(mountOf());
    const conversation = await alice.createConversation({ agentId: WAITER_AGENT_ID });
    const sent = await asAlice(
      `${api}/v1/conversations/${conversation.id}/messages`,
      postJson({ text: '慢慢想，不着急' }),
    );
    const runId = sent.headers.get('x-runstream-run-id') ?? '';
    // The first words arrive while the run still runs (nothing holds the stream back); then the
    // connection drops.
    const beforeDrop = await readEvents(sent, (events) =>
      events.some((event) => event.type === 'block.delta'),
    );
    expect(reduceAll(createMessageState(), logged(beforeDrop)).blocks).toMatchObject([
      { kind: 'answer', text: WAITER_FIRST_WORDS },
    ]);
    // A disconnect is not a stop: the run is still running, with no reason to end.
    const running = await alice.getRun(runId);
    expect(running.status).toBe('running');
    expect(running.cancelReason).toBeUndefined();

    const resumed = await asAlice(`${api}/v1/runs/${runId}/events`, {
      headers: { 'last-event-id': String(lastSeqOf(beforeDrop)) },
    });
    expect(resumed.status).toBe(200);
    const rest = readEvents(resumed);
    expect(await alice.cancel(runId, 'changed_my_mind')).toEqual({
      id: runId,
      status: 'cancelled',
      cancelReason: 'changed_my_mind',
    });
    const afterDrop = await rest;
    expect(afterDrop.at(-1)?.type).toBe('done');
    const seen = logged([...beforeDrop, ...afterDrop]);
    expectEveryEventOnce(seen);
    expect(seen.at(-1)).toMatchObject({
      type: 'run.finished',
      status: 'cancelled',
      reason: 'changed_my_mind',
    });
    expect(await alice.getRun(runId)).toMatchObject({ status: 'cancelled', cancelReason: 'changed_my_mind' });
    // Stopping again changes nothing.
    expect(await alice.cancel(runId, 'another_reason')).toMatchObject({ cancelReason: 'changed_my_mind' });
  });

  it("answers 404 for another user's run and conversation, and 401 to no one", async () => {
    const mount = mountOf();
    const { api, alice } = apiOf(mount);
    const conversation = await alice.createConversation();
    const status = await alice.sendMessage(conversation.id, { text: '我的订单到哪了' }).result();
    expect(status.status).toBe('completed');
    const runId = status.runId ?? '';

    const bob = createRunstreamClient({ baseUrl: api, fetch: mount.fetchAs(BOB) });
    const notFound = { status: 404, code: 'not_found' };
    await expect(bob.getRun(runId)).rejects.toMatchObject(notFound);
    await expect(bob.followRun(runId).result()).rejects.toMatchObject(notFound);
    await expect(bob.cancel(runId, 'not_mine')).rejects.toMatchObject(notFound);
    await expect(bob.getConversation(conversation.id)).rejects.toMatchObject(notFound);
    await expect(bob.sendMessage(conversation.id, { text: '我的订单到哪了' }).result()).rejects.toMatchObject(
      notFound,
    );
    expect(await bob.listConversations()).toEqual([]);
    expect(await alice.getRun(runId)).toMatchObject({ id: runId, conversationId: conversation.id });

    const anonymous = await mount.fetchAs()(`${api}/v1/runs/${runId}`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ error: { code: 'unauthorized' } });
  });

  it('speaks the Responses API to the official openai client, its baseURL under the mount', async () => {
    const mount = mountOf();
    const openai = mount.openai(ALICE);
    const waiting = await openai.responses.stream({ input: '帮我取消订单 88240' }).finalResponse();
    expect(waiting.status).toBe('completed');
    const request = waiting.output.at(-1);
    expect(request).toMatchObject({
      type: 'mcp_approval_request',
      name: 'cancel_order',
      arguments: '{"orderId":"88240"}',
    });

    const approved = await openai.responses
      .stream({
        input: [{ type: 'mcp_approval_response', approval_request_id: request?.id ?? '', approve: true }],
      })
      .finalResponse();
    expect(approved.previous_response_id).toBe(waiting.id);
    expect(approved.status).toBe('completed');
    expect(approved.output[0]).toMatchObject({ type: 'mcp_call', name: 'cancel_order', status: 'completed' });
    expect(approved.output_text).not.toBe('');
    expect(await openai.responses.retrieve(approved.id)).toMatchObject({
      id: approved.id,
      output_text: approved.output_text,
    });
    await expect(mount.openai(BOB).responses.retrieve(approved.id)).rejects.toBeInstanceOf(
      OpenAI.NotFoundError,
    );
  });
}
