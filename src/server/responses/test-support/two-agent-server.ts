import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { z } from 'zod';
import { ScriptedChatModel, textTurn } from '../../../models/index.ts';
import { RunManager, type Tool } from '../../../runtime/index.ts';
import { testAgent } from '../../../runtime/test-support/test-agent.ts';
import { openDatabase, SqliteResponseRecords, SqliteRunStore } from '../../../store/index.ts';
import { createApp } from '../../create-app.ts';

/** What each agent of `startTwoAgentServer` answers, every turn. */
export const ALPHA_ANSWER = '我是阿尔法，默认客服。';
export const BETA_ANSWER = '我是贝塔，维修助手。';
export const ALPHA_INSTRUCTIONS = '你是阿尔法。';
export const BETA_INSTRUCTIONS = '你是贝塔。';

/** A tool only `beta` has: a host tool of that name is refused for `beta`, fine for `alpha`. */
const LOOKUP: Tool<{ serial: string }, unknown> = {
  name: 'lookup',
  title: '查询序列号',
  description: 'Look up a serial number.',
  parameters: z.object({ serial: z.string() }),
  effect: 'read',
  async execute(args) {
    return { serial: args.serial };
  },
};

export interface TwoAgentServer {
  url: string;
  token: string;
  /** The agents' models, to read what each was asked. */
  alpha: ScriptedChatModel;
  beta: ScriptedChatModel;
  /** `fetch` with the user's bearer token and a JSON body. */
  post(path: string, body: unknown): Promise<Response>;
  close(): Promise<void>;
}

/**
 * The real app (every face, the Responses API on) over HTTP on an ephemeral port and a fresh SQLite
 * file, with two agents: `alpha` (the default) and `beta`, each answering its own fixed text.
 */
export async function startTwoAgentServer(): Promise<TwoAgentServer> {
  const directory = mkdtempSync(join(tmpdir(), 'runstream-agents-'));
  const database = openDatabase(join(directory, 'runstream.db'));
  const store = new SqliteRunStore(database);
  const user = await store.createUser('ada');
  const token = await store.issueToken(user.id);
  const turns = (text: string) => Array.from({ length: 20 }, () => textTurn(text));
  const alpha = new ScriptedChatModel(turns(ALPHA_ANSWER), { name: 'alpha-model' });
  const beta = new ScriptedChatModel(turns(BETA_ANSWER), { name: 'beta-model' });
  const runs = new RunManager({
    agents: [
      testAgent({ id: 'alpha', model: alpha, instructions: ALPHA_INSTRUCTIONS }),
      testAgent({ id: 'beta', model: beta, instructions: BETA_INSTRUCTIONS, tools: [LOOKUP] }),
    ],
    store,
  });
  const app = createApp({ store, runs, responses: { records: new SqliteResponseRecords(database) } });
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    token,
    alpha,
    beta,
    post: (path, body) =>
      fetch(`${url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    async close() {
      await runs.close();
      await new Promise((resolve) => server.close(resolve));
      database.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
