/**
 * The runstream contenders: the full pipeline, one runstream (`createRunstream`'s options, a
 * `sqliteStore` on a file, one agent on a `ScriptedChatModel` at full speed) served one of three ways:
 *
 * - `standalone` (contenders `runstream`, `runstream Responses`): `serve(runstream)` from
 *   `runstream/node`, what `runstream serve` runs; the store's bearer tokens, routes at `/v1/…`, the
 *   Node fast path (run streams written straight into Node's response).
 * - `embedded` (`runstream embedded`): `toNodeHandler(runstream)` inside a plain `node:http` server,
 *   as a host app mounts it: `basePath: '/support'` and an `authenticate` that reads the host's
 *   session header. The fast path is on (the handler passes `{ incoming, outgoing }`).
 * - `web-standard` (`runstream web-standard`): the same embedded runstream's `fetch` behind
 *   `@hono/node-server`'s `getRequestListener((request) => runstream.fetch(request))` on `node:http`:
 *   no `{ incoming, outgoing }` reaches runstream, so its streams are Web `ReadableStream`s piped
 *   into the socket, as under any Web-standard host (Hono, Next.js) or runtime.
 *
 * Every stream is a real `POST …/v1/conversations/{id}/messages` on a fresh conversation (face
 * `chat`), or a `POST /v1/responses` with `stream: true` (face `responses`), run, streamed and
 * persisted.
 *
 * argv[2]: JSON `RunstreamChildConfig`.
 */
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { getRequestListener } from '@hono/node-server';
import { defineAgent } from '../../src/index.ts';
import { ScriptedChatModel, textTurn } from '../../src/models/index.ts';
import { type NodeContext, serve, sqliteStore, toNodeHandler } from '../../src/node/index.ts';
import type { RunEvent } from '../../src/protocol/index.ts';
import type { RunManager } from '../../src/runtime/index.ts';
import { buildRunstream, type CreateRunstreamOptions } from '../../src/server/create-runstream.ts';
import type { ClientRequest } from '../server-bench-client.ts';
import { runChild } from './child-protocol.ts';

/** How the runstream is served (see the file's comment). */
export type RunstreamMount = 'standalone' | 'embedded' | 'web-standard';

export interface RunstreamChildConfig {
  /** A directory the parent removes afterwards; the SQLite file goes there. */
  dataDir: string;
  /** How many runs the child will serve at most (the scripted model needs one turn per run). */
  turns: number;
  deltas: number;
  /** Characters per `text-delta`. */
  chunkSize: number;
  /** Which face the streams use. Default `chat`. */
  face?: 'chat' | 'responses';
  /** Default `standalone`. */
  mount?: RunstreamMount;
}

/** Where the host app mounts runstream, and the header its login sets (embedded, web-standard). */
const BASE_PATH = '/support';
const SESSION_HEADER = 'x-shop-session';
const SESSION = 'session-bench';
const USER_ID = 'usr_bench';

const config = JSON.parse(process.argv[2] ?? '') as RunstreamChildConfig;
const mount = config.mount ?? 'standalone';
const hosted = mount !== 'standalone';

const answerText = (() => {
  const phrase = '您好，订单已发货，预计明天送达。';
  const length = config.deltas * config.chunkSize;
  return phrase.repeat(Math.ceil(length / phrase.length)).slice(0, length);
})();

// One turn per run; the same part list for every turn (the model copies each part it streams).
const turn = textTurn(answerText, { chunkSize: config.chunkSize });
mkdirSync(config.dataDir, { recursive: true });
const store = sqliteStore(join(config.dataDir, 'runstream.db'));

const options: CreateRunstreamOptions<NodeContext | undefined> = {
  agents: [
    defineAgent({
      id: 'bench',
      name: '客服',
      instructions: '你是客服。',
      model: new ScriptedChatModel(new Array(config.turns).fill(turn)),
    }),
  ],
  store,
  // No model settings of this machine leak in; the same (silent) log for every mount.
  env: {},
  log: () => undefined,
  ...(hosted
    ? {
        basePath: BASE_PATH,
        // The host's login, as a host app would read it: its session header names the user.
        authenticate: (request: Request) =>
          request.headers.get(SESSION_HEADER) === SESSION ? { userId: USER_ID, name: 'bench' } : null,
      }
    : {}),
};
// `createRunstream(options)` is `buildRunstream(options, {})`; the one extra here hands the bench
// the run manager, to wait until a run is persisted (`settle`) and to read its log (`events`).
let runs: RunManager | undefined;
const runstream = buildRunstream(options, {
  onOpened: (opened) => {
    runs = opened.runs;
  },
});
await runstream.ready;
const openedRuns = (): RunManager => {
  if (runs === undefined) throw new Error('the runstream is not open');
  return runs;
};

const user = await store.runs.createUser('bench', { id: USER_ID });
const headers: Record<string, string> = hosted
  ? { [SESSION_HEADER]: SESSION }
  : { authorization: `Bearer ${await store.runs.issueToken(user.id)}` };

let url: string;
let stopServing: () => Promise<void>;
if (mount === 'standalone') {
  const running = await serve(runstream, { port: 0, host: '127.0.0.1' });
  url = running.url;
  stopServing = () => running.close();
} else {
  const handle =
    mount === 'embedded'
      ? toNodeHandler(runstream)
      : getRequestListener((request) => runstream.fetch(request));
  const server = createServer((request, response) => {
    void handle(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  stopServing = () => closeServer(server);
}
const apiUrl = hosted ? `${url}${BASE_PATH}` : url;

async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

runChild(url, {
  async prepare(n) {
    const requests: ClientRequest[] = [];
    const json = { ...headers, 'content-type': 'application/json' };
    if (config.face === 'responses') {
      // A response makes its own conversation.
      for (let index = 0; index < n; index += 1)
        requests.push({
          url: `${apiUrl}/v1/responses`,
          method: 'POST',
          headers: json,
          body: JSON.stringify({ input: '我的订单发货了吗？', stream: true }),
        });
      return requests;
    }
    for (let index = 0; index < n; index += 1) {
      const conversation = await store.runs.createConversation(user.id, '新对话');
      requests.push({
        url: `${apiUrl}/v1/conversations/${conversation.id}/messages`,
        method: 'POST',
        headers: json,
        body: JSON.stringify({ text: '我的订单发货了吗？' }),
      });
    }
    return requests;
  },
  async settle(runIds) {
    for (const runId of runIds) await openedRuns().settled(runId);
  },
  async events(runId): Promise<RunEvent[]> {
    await openedRuns().settled(runId);
    const logged = (await openedRuns().logOf(user.id, runId)).since(0);
    if ('snapshot' in logged) throw new Error('the run log no longer holds the run');
    return [...logged.events, { type: 'done', runId, at: Date.now() }];
  },
  async close() {
    // Closing twice is harmless: the standalone server's `close` closes the runstream too.
    await runstream.close();
    await stopServing();
    store.close();
  },
});
