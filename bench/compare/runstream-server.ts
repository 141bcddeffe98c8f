/**
 * Contenders `runstream` and `runstream Responses`: the full pipeline. `createApp` on `@hono/node-server`, a `RunManager` driving
 * a `ScriptedChatModel` at full speed (no delay), a `SqliteRunStore` on a file; every stream is a real
 * `POST /v1/conversations/{id}/messages` on a fresh conversation (face `chat`), or a
 * `POST /v1/responses` with `stream: true` (face `responses`, the OpenAI-style face), run, streamed
 * and persisted.
 *
 * argv[2]: JSON `RunstreamChildConfig`.
 */
import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { ScriptedChatModel, textTurn } from '../../src/models/index.ts';
import type { RunEvent } from '../../src/protocol/index.ts';
import { RunManager } from '../../src/runtime/index.ts';
import { testAgent } from '../../src/runtime/test-support/test-agent.ts';
import { createApp } from '../../src/server/index.ts';
import { openDatabase, SqliteResponseRecords, SqliteRunStore } from '../../src/store/index.ts';
import type { ClientRequest } from '../server-bench-client.ts';
import { runChild } from './child-protocol.ts';

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
}

const config = JSON.parse(process.argv[2] ?? '') as RunstreamChildConfig;

const answerText = (() => {
  const phrase = '您好，订单已发货，预计明天送达。';
  const length = config.deltas * config.chunkSize;
  return phrase.repeat(Math.ceil(length / phrase.length)).slice(0, length);
})();

// One turn per run; the same part list for every turn (the model copies each part it streams).
const turn = textTurn(answerText, { chunkSize: config.chunkSize });
mkdirSync(config.dataDir, { recursive: true });
const database = openDatabase(join(config.dataDir, 'runstream.db'));
const store = new SqliteRunStore(database);
const runs = new RunManager({
  agents: [
    testAgent({
      model: new ScriptedChatModel(new Array(config.turns).fill(turn)),
      tools: [],
      skills: [],
      instructions: '你是客服。',
    }),
  ],
  store,
});
const app = createApp({
  store,
  runs,
  responses: { records: new SqliteResponseRecords(database) },
});
const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
await new Promise((resolve) => server.once('listening', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const user = await store.createUser('bench');
const token = await store.issueToken(user.id);

runChild(url, {
  async prepare(n) {
    const requests: ClientRequest[] = [];
    if (config.face === 'responses') {
      // A response makes its own conversation.
      for (let index = 0; index < n; index += 1)
        requests.push({
          url: `${url}/v1/responses`,
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ input: '我的订单发货了吗？', stream: true }),
        });
      return requests;
    }
    for (let index = 0; index < n; index += 1) {
      const conversation = await store.createConversation(user.id, '新对话');
      requests.push({
        url: `${url}/v1/conversations/${conversation.id}/messages`,
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ text: '我的订单发货了吗？' }),
      });
    }
    return requests;
  },
  async settle(runIds) {
    for (const runId of runIds) await runs.settled(runId);
  },
  async events(runId): Promise<RunEvent[]> {
    await runs.settled(runId);
    const logged = (await runs.logOf(user.id, runId)).since(0);
    if ('snapshot' in logged) throw new Error('the run log no longer holds the run');
    return [...logged.events, { type: 'done', runId, at: Date.now() }];
  },
  async close() {
    await runs.close();
    const closing = server as unknown as { closeAllConnections?: () => void; close(cb: () => void): void };
    closing.closeAllConnections?.();
    await new Promise<void>((resolve) => closing.close(() => resolve()));
    database.close();
  },
});
