import { hostname } from 'node:os';
import type { Agent } from '../agent/index.ts';
import { redisBus } from '../bus/redis/index.ts';
import { type ChatModel, createChatModelFromEnv, ModelConfigError } from '../models/index.ts';
import type { ToolPolicy } from '../runtime/index.ts';
import { buildRunstream, type RunstreamBus, type RunstreamStore } from '../server/create-runstream.ts';
import { mcpToolsFromEnv } from '../server/mcp-tools-from-env.ts';
import { frameAncestorsFromEnv, serveWeb } from '../server/serve-web.ts';
import { StartupError } from '../server/startup-error.ts';
import { denyToolsPolicyFromEnv } from '../server/tool-governance.ts';
import { type UserLimits, userLimitsFromEnv } from '../server/user-limits.ts';
import { databasePathFromEnv } from '../store/index.ts';
import { postgresStore } from '../store/postgres/index.ts';
import { serve } from './serve.ts';
import { sqliteStore } from './sqlite-store.ts';

export const DEMO_USER_ID = 'usr_demo';

export interface StartServerOptions {
  /**
   * The agents to serve (`defineAgent`, `loadAgent`), ids unique; the first is the default for
   * conversations that name none. At least one.
   */
  agents: readonly Agent[];
  /** Serve the built web UI from this folder (`dist/web`, see `serve-web.ts`); off when absent. */
  webRoot?: string;
  /**
   * The model of every agent that brings none, instead of the environment's (tests with a scripted
   * model, embedders).
   */
  model?: ChatModel;
  /** Governance: checked in order before every tool call, on every face (after `RUNSTREAM_DENY_TOOLS`). */
  policies?: readonly ToolPolicy[];
  /** Listen here instead of `PORT` / `HOST` (the CLI's `--port` and `--host`). */
  port?: number;
  host?: string;
}

export interface StartedServer {
  url: string;
  demoToken: string;
  /** The model of each agent, by agent id. */
  modelNames: Record<string, string>;
  close(): Promise<void>;
}

/**
 * The composition root: one SQLite file (runs, messages, each agent's knowledge) or, with
 * `RUNSTREAM_DATABASE_URL` and `RUNSTREAM_REDIS_URL`, PostgreSQL and Redis shared by N instances
 * (the SQLite file then holds this instance's knowledge bases only), the agents (see `openAgents`),
 * the run manager (runs a crash left running become interrupted) and the HTTP server, with the web
 * UI from `options.webRoot` and the demo session unless `RUNSTREAM_DEMO_LOGIN=off`.
 */
export async function startServer(
  env: Readonly<Record<string, string | undefined>>,
  log: (line: Record<string, unknown>) => void = (line) => process.stdout.write(`${JSON.stringify(line)}\n`),
  options: StartServerOptions,
): Promise<StartedServer> {
  const demoLogin = demoLoginFromEnv(env);
  const closers: (() => Promise<void> | void)[] = [];
  const closeAll = async () => {
    for (const close of closers.splice(0).reverse()) await Promise.resolve(close()).catch(() => undefined);
  };
  try {
    return await start(env, log, options, demoLogin, closers, closeAll);
  } catch (error) {
    await closeAll();
    throw error;
  }
}

async function start(
  env: Readonly<Record<string, string | undefined>>,
  log: (line: Record<string, unknown>) => void,
  options: StartServerOptions,
  demoLogin: boolean,
  closers: (() => Promise<void> | void)[],
  closeAll: () => Promise<void>,
): Promise<StartedServer> {
  if (options.agents.length === 0)
    throw new StartupError('no agent to serve: give at least one agent folder');
  // Read first: a misspelt setting should stop the server before it opens or seeds anything.
  const configuredModel = options.model ?? modelFromEnv(env);
  let limits: UserLimits;
  let frameAncestors: string[];
  try {
    limits = userLimitsFromEnv(env);
    frameAncestors = frameAncestorsFromEnv(env);
  } catch (error) {
    throw new StartupError((error as Error).message);
  }
  // The knowledge bases stay in this instance's SQLite file even beside PostgreSQL: read-only,
  // built from the same sources everywhere, so retrieval needs no network hop.
  const local = sqliteStore(databasePathFromEnv(env), { env });
  closers.push(() => local.close());
  const shared = await openSharedState(env, closers);
  const store: RunstreamStore = shared?.store ?? local;

  // The server-wide MCP servers' tools keep their names unless an agent has a tool of that name.
  const ownToolNames = options.agents.flatMap((agent) => [
    ...agent.tools.map((tool) => tool.name),
    ...(agent.knowledge === undefined ? [] : ['search_knowledge']),
  ]);
  const mcp = await mcpToolsFromEnv(env, log, ownToolNames);
  if (mcp !== undefined) closers.push(() => mcp.close());

  const demoUser =
    (await store.runs.getUser(DEMO_USER_ID)) ??
    (await store.runs.createUser(options.agents[0]?.language === 'en' ? 'Demo user' : '演示用户', {
      id: DEMO_USER_ID,
    }));
  const fixedToken = env.RUNSTREAM_DEMO_TOKEN?.trim();
  let demoToken: string;
  if (fixedToken) {
    await store.runs.addToken(demoUser.id, fixedToken, 'demo (RUNSTREAM_DEMO_TOKEN)');
    demoToken = fixedToken;
  } else {
    demoToken = await store.runs.issueToken(demoUser.id, 'demo');
  }

  const denyList = denyToolsPolicyFromEnv(env);
  const policies = [...(denyList ? [denyList] : []), ...(options.policies ?? [])];
  let modelNames: Record<string, string> = {};
  // Exactly what an embedding app builds (`createRunstream`), plus the demo session, the page and
  // the server-wide MCP tools.
  const runstream = buildRunstream(
    {
      agents: options.agents,
      store,
      ...(shared?.bus === undefined ? {} : { bus: shared.bus }),
      knowledge: local.knowledge,
      ...(configuredModel === undefined ? {} : { model: configuredModel }),
      ...(policies.length > 0 ? { policies } : {}),
      limits,
      log,
      env,
    },
    {
      ...(demoLogin ? { demoSession: { userId: demoUser.id } } : {}),
      ...(options.webRoot === undefined
        ? {}
        : { mountWeb: (app) => serveWeb(app, options.webRoot as string, { frameAncestors }) }),
      ...(mcp === undefined ? {} : { sharedTools: mcp }),
      ...(shared?.bus === undefined ? {} : { instanceId: instanceIdFromEnv(env) }),
      ...(env.RUNSTREAM_LEASE_MS !== undefined
        ? { leaseMs: positiveInteger(env, 'RUNSTREAM_LEASE_MS') }
        : {}),
      reportsStartFailure: true,
      onOpened: ({ agents }) => {
        modelNames = Object.fromEntries(agents.resolved.map((agent) => [agent.id, agent.model.name]));
      },
    },
  );
  closers.push(() => runstream.close());
  const server = await serve(runstream, {
    port: options.port ?? Number(env.PORT ?? 8787),
    host: options.host ?? env.HOST ?? '127.0.0.1',
  });
  return {
    url: server.url,
    demoToken,
    modelNames,
    async close() {
      await server.close();
      await closeAll();
    },
  };
}

interface SharedState {
  store: RunstreamStore;
  /** With Redis as well: the live logs and stop signals every instance shares. */
  bus?: RunstreamBus;
}

/**
 * `RUNSTREAM_DATABASE_URL` puts the state in PostgreSQL; `RUNSTREAM_REDIS_URL` (which needs it)
 * shares the runs' live logs and stop signals, so any number of instances serve any run. Either
 * one unreachable at start is a one-line `StartupError`, not a half-started server.
 */
async function openSharedState(
  env: Readonly<Record<string, string | undefined>>,
  closers: (() => Promise<void> | void)[],
): Promise<SharedState | undefined> {
  const databaseUrl = env.RUNSTREAM_DATABASE_URL?.trim();
  const redisUrl = env.RUNSTREAM_REDIS_URL?.trim();
  if (!databaseUrl) {
    if (redisUrl)
      throw new StartupError(
        'RUNSTREAM_REDIS_URL needs RUNSTREAM_DATABASE_URL too: instances that share live logs must share their state',
      );
    return undefined;
  }
  const store = await postgresStore(databaseUrl).catch((error: unknown) => {
    throw new StartupError((error as Error).message);
  });
  closers.push(() => store.close());
  if (!redisUrl) return { store };
  const bus = await redisBus(redisUrl, {
    keyPrefix: env.RUNSTREAM_REDIS_PREFIX?.trim() || 'runstream:',
  }).catch((error: unknown) => {
    throw new StartupError((error as Error).message);
  });
  closers.push(() => bus.close());
  return { store, bus };
}

/** `RUNSTREAM_INSTANCE_ID`, else host name, process id and a random suffix: unique per process. */
function instanceIdFromEnv(env: Readonly<Record<string, string | undefined>>): string {
  const given = env.RUNSTREAM_INSTANCE_ID?.trim();
  if (given) return given;
  return `${hostname()}-${process.pid}-${crypto.randomUUID().slice(0, 8)}`;
}

function positiveInteger(env: Readonly<Record<string, string | undefined>>, name: string): number {
  const value = Number(env[name]);
  if (!Number.isInteger(value) || value <= 0)
    throw new StartupError(`${name} must be a positive integer, got "${env[name]}"`);
  return value;
}

/** `RUNSTREAM_DEMO_LOGIN`: the demo session (`POST /auth/demo-session`) is on unless it is `off`/`0`/`false`. */
export function demoLoginFromEnv(env: Readonly<Record<string, string | undefined>>): boolean {
  const value = env.RUNSTREAM_DEMO_LOGIN?.trim().toLowerCase() ?? '';
  if (['', 'on', '1', 'true'].includes(value)) return true;
  if (['off', '0', 'false'].includes(value)) return false;
  throw new Error(`RUNSTREAM_DEMO_LOGIN must be "on" or "off", got "${env.RUNSTREAM_DEMO_LOGIN}"`);
}

/** The real model the environment configures, if any; a setting that cannot work is a `StartupError`. */
function modelFromEnv(env: Readonly<Record<string, string | undefined>>): ChatModel | undefined {
  try {
    return createChatModelFromEnv(env);
  } catch (error) {
    if (error instanceof ModelConfigError || error instanceof RangeError)
      throw new StartupError(error.message);
    throw error;
  }
}
