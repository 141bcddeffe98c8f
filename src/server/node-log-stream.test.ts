import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedChatModel, textTurn } from '../models/index.ts';
import { createRunEventDecoderStream, type LoggedRunEvent, type RunEvent } from '../protocol/index.ts';
import { RunManager } from '../runtime/index.ts';
import { testAgent } from '../runtime/test-support/test-agent.ts';
import { MemoryRunStore } from '../store/index.ts';
import { createApp } from './create-app.ts';
import { MAX_LAG_EVENTS } from './node-log-stream.ts';

let close: () => Promise<void> = async () => {};

afterEach(async () => {
  await close();
  close = async () => {};
});

/** Three times the frames a reader may fall behind by, each far bigger than a token. */
const DELTAS = MAX_LAG_EVENTS * 3;
const DELTA_TEXT = '字'.repeat(100);

async function start(): Promise<{ url: string; token: string; conversationId: string }> {
  const store = new MemoryRunStore();
  const user = await store.createUser('shopper');
  const token = await store.issueToken(user.id);
  const conversation = await store.createConversation(user.id, '长回答');
  const runs = new RunManager({
    agents: [
      testAgent({
        model: new ScriptedChatModel([textTurn(DELTA_TEXT.repeat(DELTAS), { chunkSize: DELTA_TEXT.length })]),
        tools: [],
        skills: [],
        instructions: '你是客服。',
      }),
    ],
    store, // The whole run stays replayable, so the resume below reads events, not a snapshot.
    logCapacity: DELTAS * 2,
  });
  const server = serve({ fetch: createApp({ store, runs }).fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise((resolve) => server.once('listening', resolve));
  close = async () => {
    await runs.close();
    (server as import('node:http').Server).closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    token,
    conversationId: conversation.id,
  };
}

async function decode(body: ReadableStream<Uint8Array>): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  await decodeInto(body, events);
  return events;
}

/** Decodes into `events` as it reads, so what came before a broken connection is kept. */
async function decodeInto(body: ReadableStream<Uint8Array>, events: RunEvent[]): Promise<void> {
  const reader = body.pipeThrough(createRunEventDecoderStream('sse')).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    events.push(value);
  }
}

describe('run streams written straight to Node', () => {
  it('drop a reader that stops reading far behind; it resumes with nothing lost or repeated', async () => {
    const { url, token, conversationId } = await start();
    // A reader that takes the headers and then reads nothing while the run streams 3 MB.
    const stalled = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
      const call = request(
        `${url}/v1/conversations/${conversationId}/messages`,
        { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } },
        (response) => {
          response.pause();
          resolve(response);
        },
      );
      call.once('error', reject);
      call.end(JSON.stringify({ text: '写一段很长的话' }));
    });
    const runId = String(stalled.headers['x-runstream-run-id']);
    for (let status = ''; status !== 'completed'; ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const run = await fetch(`${url}/v1/runs/${runId}`, { headers: { authorization: `Bearer ${token}` } });
      status = ((await run.json()) as { status: string }).status;
    }
    // Now read what the stalled connection got: the server gave up on it before the end.
    const chunks: Buffer[] = [];
    await new Promise<void>((resolve) => {
      stalled.on('data', (chunk: Buffer) => chunks.push(chunk));
      stalled.once('end', resolve);
      stalled.once('close', resolve);
      stalled.once('error', () => resolve());
      stalled.resume();
    });
    const got = await decode(new Blob(chunks.map((chunk) => new Uint8Array(chunk))).stream());
    expect(got.some((event) => event.type === 'done')).toBe(false);
    const seen = got.filter((event): event is LoggedRunEvent => 'seq' in event);
    expect(seen.length).toBeLessThan(DELTAS);
    // It resumes from the last event it got, and the two parts are the whole run, once each.
    const lastSeq = seen.at(-1)?.seq ?? 0;
    const resumed = await fetch(`${url}/v1/runs/${runId}/events`, {
      headers: { authorization: `Bearer ${token}`, 'last-event-id': String(lastSeq) },
    });
    const rest = await decode(resumed.body as ReadableStream<Uint8Array>);
    expect(rest.at(-1)?.type).toBe('done');
    const all = [...seen, ...rest.filter((event): event is LoggedRunEvent => 'seq' in event)];
    expect(all.map((event) => event.seq)).toEqual(all.map((_, index) => index + 1));
    expect(all.filter((event) => event.type === 'block.delta')).toHaveLength(DELTAS);
  }, 60_000);

  it('never slows a fast reader for a slow one: the fast one reads the whole run while the other stalls', async () => {
    const { url, token, conversationId } = await start();
    const started = await fetch(`${url}/v1/conversations/${conversationId}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: '写一段很长的话' }),
    });
    const runId = started.headers.get('x-runstream-run-id') ?? '';
    // The starting stream is the slow reader: it takes the headers and then reads nothing.
    const stalled = started.body?.getReader();
    // The fast reader reads the whole run. On a loaded machine it can itself fall 10,000 events
    // behind this in-process producer and be dropped; it then resumes as every client does, and
    // what is asserted is that it got the whole run once, in order, while the other never read.
    const events: RunEvent[] = [];
    for (let attempt = 0; attempt < 5 && events.at(-1)?.type !== 'done'; attempt += 1) {
      const lastSeq = events.filter((event): event is LoggedRunEvent => 'seq' in event).at(-1)?.seq;
      const fast = await fetch(`${url}/v1/runs/${runId}/events`, {
        headers: {
          authorization: `Bearer ${token}`,
          ...(lastSeq === undefined ? {} : { 'last-event-id': String(lastSeq) }),
        },
      });
      // Dropped mid-frame, the connection ends in an error rather than cleanly: what was decoded
      // before it counts, and the next attempt resumes after it.
      await decodeInto(fast.body as ReadableStream<Uint8Array>, events).catch(() => {});
    }
    expect(events.at(-1)?.type).toBe('done');
    const logged = events.filter((event): event is LoggedRunEvent => 'seq' in event);
    expect(logged.map((event) => event.seq)).toEqual(logged.map((_, index) => index + 1));
    expect(logged.filter((event) => event.type === 'block.delta')).toHaveLength(DELTAS);
    await stalled?.cancel();
  }, 60_000);
});
