import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Agent, loadAgent } from '../../agent/index.ts';
import type { ChatModel } from '../../models/index.ts';
import { type StartedServer, startServer } from '../../node/start-server.ts';
import type { ToolPolicy } from '../../runtime/index.ts';

export const TEST_TOKEN = 'demo-token';

export interface TestServer {
  server: StartedServer;
  directory: string;
  databasePath: string;
  /** Start (again) on the same SQLite file, as `npm start` would after a restart. */
  restart(): Promise<StartedServer>;
  close(): Promise<void>;
}

export interface TestServerOptions {
  /** Serve a web UI from this folder, as `startServer`'s `webRoot`. */
  webRoot?: string;
  /** Where the server's log lines go (default: nowhere). */
  log?: (line: Record<string, unknown>) => void;
  /** Tool policies, as `startServer`'s. */
  policies?: readonly ToolPolicy[];
  /** A model instead of the agents' offline ones, e.g. a `ScriptedChatModel`. */
  model?: ChatModel;
  /**
   * The agent folders to serve (each loaded with the test's environment, so an agent that keeps
   * tables of its own uses the test's file). Default: the NovaShop example, as `npm start` serves it.
   */
  agentDirectories?: readonly string[];
  /** More environment (e.g. `RUNSTREAM_DEMO_LOGIN: 'off'`), over the test defaults. */
  env?: Readonly<Record<string, string | undefined>>;
}

/** The NovaShop example: what `npm start` serves. */
export const NOVASHOP_EXAMPLE = fileURLToPath(new URL('../../../examples/novashop/', import.meta.url));

/** What `npm start` runs, on an ephemeral port and a fresh SQLite file, with the offline model at full speed. */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const directory = mkdtempSync(join(tmpdir(), 'runstream-e2e-'));
  const databasePath = join(directory, 'runstream.db');
  const env = {
    RUNSTREAM_DB: databasePath,
    PORT: '0',
    RUNSTREAM_DEMO_TOKEN: TEST_TOKEN,
    RUNSTREAM_DEMO_DELAY_MS: '0',
    ...options.env,
  };
  const start = async () => {
    // Loaded afresh for each start, as a process that restarts loads its folders again.
    const agents: Agent[] = [];
    for (const folder of options.agentDirectories ?? [NOVASHOP_EXAMPLE])
      agents.push(await loadAgent(folder, { env }));
    return startServer(env, options.log ?? (() => undefined), {
      agents,
      ...(options.policies === undefined ? {} : { policies: options.policies }),
      ...(options.webRoot === undefined ? {} : { webRoot: options.webRoot }),
      ...(options.model === undefined ? {} : { model: options.model }),
    });
  };
  let first: StartedServer;
  try {
    first = await start();
  } catch (error) {
    rmSync(directory, { recursive: true, force: true });
    throw error;
  }
  const handle: TestServer = {
    server: first,
    directory,
    databasePath,
    async restart() {
      handle.server = await start();
      return handle.server;
    },
    async close() {
      await handle.server.close().catch(() => undefined);
      rmSync(directory, { recursive: true, force: true });
    },
  };
  return handle;
}
