import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Authenticate,
  type ChatModel,
  createRunstream,
  defineAgent,
  loadAgent,
  type Runstream,
  type RunstreamStore,
} from '../../index.ts';
import { NOVASHOP_EXAMPLE } from '../../server/test-support/start-test-server.ts';
import { sqliteStore } from '../index.ts';

/** Where a host app mounts runstream in these tests, as `basePath`. */
export const BASE_PATH = '/support';

/** The host app's own sessions: what its login issued, and whom each one signs in. */
export const SESSIONS: Readonly<Record<string, { id: string; name: string }>> = {
  // NovaShop seeds its demo orders for `usr_demo`: the host's shopper is that user.
  'session-alice': { id: 'usr_demo', name: 'Alice' },
  'session-bob': { id: 'usr_bob', name: 'Bob' },
};
export const ALICE = 'session-alice';
export const BOB = 'session-bob';

/** The second agent's id: it writes one line, then waits until the run is stopped. */
export const WAITER_AGENT_ID = 'waiter';
export const WAITER_FIRST_WORDS = '让我想一想';

/**
 * A model that writes its first words, then waits for the run's stop signal: a run that is still
 * running, for as long as the test needs, with no timer involved.
 */
const waitsUntilStopped: ChatModel = {
  name: 'waits-until-stopped',
  async *stream(request) {
    yield { type: 'text-delta', text: WAITER_FIRST_WORDS };
    const signal = request.signal;
    if (signal !== undefined && !signal.aborted)
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    signal?.throwIfAborted();
  },
};

export interface SupportRunstream<Context> {
  runstream: Runstream<Context>;
  close(): Promise<void>;
}

export interface SupportRunstreamOptions {
  /** Wrap the store the runstream is given (to make one of its reads fail, say). */
  wrapStore?: (store: RunstreamStore) => RunstreamStore;
}

/**
 * What a host app mounts under `/support`: the NovaShop example (its offline model at full speed,
 * its orders in the test's SQLite file) and the waiting agent, on a fresh SQLite store, with the
 * host's `authenticate`. Open (agents loaded, knowledge ingested) when it resolves.
 */
export async function openSupportRunstream<Context>(
  authenticate: Authenticate<Context>,
  options: SupportRunstreamOptions = {},
): Promise<SupportRunstream<Context>> {
  const directory = mkdtempSync(join(tmpdir(), 'runstream-mount-'));
  const databasePath = join(directory, 'runstream.db');
  // The only environment the agents and the runstream see: no model key of this machine leaks in.
  const env = { RUNSTREAM_DB: databasePath, RUNSTREAM_DEMO_DELAY_MS: '0' };
  const store = sqliteStore(databasePath);
  try {
    const novaShop = await loadAgent(NOVASHOP_EXAMPLE, { env });
    const waiter = defineAgent({
      id: WAITER_AGENT_ID,
      name: 'Waiter',
      instructions: '你是一个慢慢想的助手。',
      model: waitsUntilStopped,
    });
    const runstream = createRunstream<Context>({
      agents: [novaShop, waiter],
      store: options.wrapStore ? options.wrapStore(store) : store,
      authenticate,
      basePath: BASE_PATH,
      env,
      log: () => undefined,
    });
    await runstream.ready;
    return {
      runstream,
      async close() {
        await runstream.close();
        store.close();
        rmSync(directory, { recursive: true, force: true });
      },
    };
  } catch (error) {
    store.close();
    rmSync(directory, { recursive: true, force: true });
    throw error;
  }
}

/** Who a session signs in, as `authenticate` returns it; `null` for none or an unknown one. */
export function userOfSession(session: string | undefined): { userId: string; name: string } | null {
  const user = session === undefined ? undefined : SESSIONS[session];
  return user === undefined ? null : { userId: user.id, name: user.name };
}
