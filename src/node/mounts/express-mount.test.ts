import { once } from 'node:events';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import compression from 'compression';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunstreamClient } from '../../client/index.ts';
import type { RunstreamStore } from '../../index.ts';
import { type NodeContext, toNodeHandler } from '../index.ts';
import {
  itRunsTheMountScenario,
  type MountedApp,
  postJson,
  readEvents,
} from '../test-support/mount-scenario.ts';
import {
  ALICE,
  BASE_PATH,
  openSupportRunstream,
  SESSIONS,
  WAITER_AGENT_ID,
} from '../test-support/support-runstream.ts';

/**
 * runstream in a real Express 5 app, as docs/embedding.md shows it: the host's compression, its
 * headers, its body parser and its login in front, `toNodeHandler` under `/support`, and the host's
 * own JSON error handler behind.
 */

/** What the host's login middleware puts on the request. */
interface SignedInRequest extends IncomingMessage {
  user?: { id: string; name: string };
}

/** A conversation id the store fails to read with a plain `Error`: a failure the API never planned for. */
const BROKEN_CONVERSATION = 'conv_broken';
const BROKEN_MESSAGE = 'the disk is on fire';

/** The store, except that reading `BROKEN_CONVERSATION` throws a plain `Error`. */
function withBrokenConversation(store: RunstreamStore): RunstreamStore {
  const runs = new Proxy(store.runs, {
    get(target, property) {
      if (property === 'getConversation')
        return async (id: string) => {
          if (id === BROKEN_CONVERSATION) throw new Error(BROKEN_MESSAGE);
          return target.getConversation(id);
        };
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { ...store, runs };
}

interface ExpressMount extends MountedApp {
  /** What reached the host's error handler. */
  hostErrors: unknown[];
  /** The bodies `express.json()` had parsed when a POST reached the mount. */
  parsedBodies: unknown[];
}

async function openExpressApp(): Promise<ExpressMount> {
  const hostErrors: unknown[] = [];
  const parsedBodies: unknown[] = [];
  const support = await openSupportRunstream<NodeContext>(
    (_request, { incoming }) => {
      const user = (incoming as SignedInRequest).user;
      return user ? { userId: user.id, name: user.name } : null;
    },
    { wrapStore: withBrokenConversation },
  );

  const app = express();
  // Every body it may compress, however small: event streams must still come through uncompressed.
  app.use(compression({ threshold: 0 }));
  app.use((_request, response, next) => {
    response.setHeader('x-host', 'yes');
    next();
  });
  app.use(express.json());
  // The host's login: its own sessions, by bearer header.
  const signIn: RequestHandler = (request, _response, next) => {
    const header = request.headers.authorization;
    const session = header?.startsWith('Bearer ') ? header.slice(7) : undefined;
    const user = session === undefined ? undefined : SESSIONS[session];
    if (user !== undefined) (request as SignedInRequest).user = user;
    next();
  };
  app.use(signIn);
  const noteParsedBody: RequestHandler = (request, _response, next) => {
    if (request.method === 'POST') parsedBodies.push(request.body);
    next();
  };
  app.use(BASE_PATH, noteParsedBody, toNodeHandler(support.runstream));
  const hostErrorHandler: ErrorRequestHandler = (error, _request, response, _next) => {
    hostErrors.push(error);
    response.status(500).json({ hostError: error instanceof Error ? error.message : String(error) });
  };
  app.use(hostErrorHandler);

  const server: Server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const fetchAs =
    (session?: string): typeof fetch =>
    (input, init) => {
      const headers = new Headers(init?.headers);
      if (session !== undefined) headers.set('authorization', `Bearer ${session}`);
      return fetch(input, { ...init, headers });
    };
  return {
    origin,
    hostErrors,
    parsedBodies,
    fetchAs,
    openai: (session) => new OpenAI({ baseURL: `${origin}${BASE_PATH}/v1`, apiKey: session, maxRetries: 0 }),
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await support.close();
    },
  };
}

let mount: ExpressMount | undefined;

beforeAll(async () => {
  mount = await openExpressApp();
});

afterAll(async () => {
  await mount?.close();
});

function opened(): ExpressMount {
  if (mount === undefined) throw new Error('the Express app did not open');
  return mount;
}

describe('runstream in an Express 5 app under /support (toNodeHandler)', () => {
  itRunsTheMountScenario(opened);

  it('streams past the host’s compression with its headers, and takes the body its parser read', async () => {
    const { origin, fetchAs, parsedBodies } = opened();
    const api = `${origin}${BASE_PATH}`;
    const asAlice = fetchAs(ALICE);
    const alice = createRunstreamClient({ baseUrl: api, fetch: asAlice });
    const conversation = await alice.createConversation({ agentId: WAITER_AGENT_ID });

    const sent = await asAlice(`${api}/v1/conversations/${conversation.id}/messages`, {
      ...postJson({ text: '压缩也挡不住' }),
      headers: { 'content-type': 'application/json', 'accept-encoding': 'gzip' },
    });
    expect(sent.status).toBe(200);
    expect(sent.headers.get('x-host')).toBe('yes');
    expect(sent.headers.get('content-encoding')).toBeNull();
    expect(sent.headers.get('cache-control')).toContain('no-transform');
    // The run waits until it is stopped: its first words arrive while it runs, so nothing buffered them.
    const beforeStop = await readEvents(sent, (events) =>
      events.some((event) => event.type === 'block.delta'),
    );
    expect(beforeStop.map((event) => event.type)).toContain('run.started');
    const runId = sent.headers.get('x-runstream-run-id') ?? '';
    expect((await alice.getRun(runId)).status).toBe('running');
    // The host's parser read the body; runstream took it as parsed.
    expect(parsedBodies).toContainEqual({ text: '压缩也挡不住' });
    await alice.cancel(runId, 'test_over');

    // JSON answers are the host's to compress, and carry its header too.
    const detail = await asAlice(`${api}/v1/conversations/${conversation.id}`, {
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(detail.status).toBe(200);
    expect(detail.headers.get('x-host')).toBe('yes');
    expect(detail.headers.get('content-encoding')).toBe('gzip');
    expect(((await detail.json()) as { messages: { text?: string }[] }).messages[0]?.text).toBe(
      '压缩也挡不住',
    );
  });

  it('hands a failure nobody planned for to the host’s error handler; the API’s own errors keep their shape', async () => {
    const { origin, fetchAs, hostErrors } = opened();
    const api = `${origin}${BASE_PATH}`;
    const asAlice = fetchAs(ALICE);
    hostErrors.length = 0;

    const broken = await asAlice(`${api}/v1/conversations/${BROKEN_CONVERSATION}`);
    expect(broken.status).toBe(500);
    expect(broken.headers.get('x-host')).toBe('yes');
    expect(await broken.json()).toEqual({ hostError: BROKEN_MESSAGE });
    expect(hostErrors).toEqual([new Error(BROKEN_MESSAGE)]);

    const missing = await asAlice(`${api}/v1/conversations/conv_missing`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-host')).toBe('yes');
    expect(await missing.json()).toEqual({
      error: { code: 'not_found', message: expect.any(String) },
    });

    // A second message while a run runs: 409 in the API's shape.
    const alice = createRunstreamClient({ baseUrl: api, fetch: asAlice });
    const conversation = await alice.createConversation({ agentId: WAITER_AGENT_ID });
    const sent = await asAlice(
      `${api}/v1/conversations/${conversation.id}/messages`,
      postJson({ text: '第一条' }),
    );
    const runId = sent.headers.get('x-runstream-run-id') ?? '';
    await readEvents(sent, (events) => events.some((event) => event.type === 'block.delta'));
    const second = await asAlice(
      `${api}/v1/conversations/${conversation.id}/messages`,
      postJson({ text: '第二条' }),
    );
    expect(second.status).toBe(409);
    expect(await second.json()).toMatchObject({ error: { code: 'run_in_progress', runId } });
    await alice.cancel(runId, 'test_over');

    const anonymous = await fetchAs()(`${api}/v1/conversations`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ error: { code: 'unauthorized' } });

    // Only the unplanned failure reached the host's handler.
    expect(hostErrors).toHaveLength(1);
  });
});
