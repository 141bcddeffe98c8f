import type { Agent } from '../agent/agent.ts';
import type { ControlChannel } from '../bus/control-channel.ts';
import type { EventLog } from '../bus/event-log.ts';
import type { McpToolSource } from '../mcp/mcp-tool-source.ts';
import type { ChatModel } from '../models/chat-model.ts';
import { wireError } from '../protocol/wire-error.ts';
import { RunManager } from '../runtime/runs/run-manager.ts';
import type { ToolPolicy } from '../runtime/tools/tool-policy.ts';
import type { ResponseRecords } from '../store/response-records.ts';
import type { RunStore } from '../store/run-store.ts';
import type { ToolAuditLog } from '../store/tool-audit-log.ts';
import { type Authenticate, createApp, type Env } from './create-app.ts';
import type { KnowledgeHost } from './knowledge-host.ts';
import { type OpenedAgents, openAgents } from './open-agents.ts';
import { loggingAuditLog } from './tool-governance.ts';
import type { UserLimits } from './user-limits.ts';

/**
 * Where a runstream keeps its state: users, conversations, messages, runs and their tool calls
 * (`runs`), the Responses API's records, the tool audit log, and optionally agents' knowledge
 * bases. `sqliteStore(file)` from `runstream/node` (one file, knowledge included) or
 * `postgresStore(url)` from `runstream/postgres` (shared by N instances).
 */
export interface RunstreamStore {
  runs: RunStore;
  responses: ResponseRecords;
  toolAudit: ToolAuditLog;
  /** Where agents with `knowledge` keep their indexes; the SQLite store has one. */
  knowledge?: KnowledgeHost;
  close(): Promise<void> | void;
}

/**
 * What N instances of one runstream share besides the store: the runs' live logs and their stop
 * signals (`redisBus(url)` from `runstream/redis`). Without one, runs live in this process.
 */
export interface RunstreamBus {
  eventLog: EventLog;
  control: ControlChannel;
  close(): Promise<void> | void;
}

export interface CreateRunstreamOptions<Context = unknown> {
  /**
   * The agents to run (`defineAgent`, `loadAgent`), ids unique; the first is the default for
   * conversations that name none. At least one.
   */
  agents: readonly Agent[];
  store: RunstreamStore;
  /** Share live logs and stops with other instances (with a shared store, e.g. PostgreSQL). */
  bus?: RunstreamBus;
  /**
   * Who is asking, from your app's own login: `{ userId }` or `null` (401). Each user sees only
   * their own conversations and runs. Default: the store's bearer tokens (`runstream users`).
   */
  authenticate?: Authenticate<Context>;
  /** Mount every route under this path, e.g. `/support` → `/support/v1/conversations`. */
  basePath?: string;
  /** The model of every agent that brings none (else the environment's, else the offline model). */
  model?: ChatModel;
  /** Governance checked before every tool call, on every face (docs/agents.md). */
  policies?: readonly ToolPolicy[];
  /** Agents' knowledge bases, when the store keeps none (a PostgreSQL store, say). */
  knowledge?: KnowledgeHost;
  /** Per-user request rate and running runs (429 with Retry-After); none when absent. */
  limits?: UserLimits;
  /** One JSON-able line per request and per notable event; secrets never reach it. Default: warnings and errors to the console. */
  log?: (line: Record<string, unknown>) => void;
  /**
   * Where model settings are read from (`OPENAI_API_KEY`, `RUNSTREAM_MODEL`, see docs/models.md).
   * Default: `process.env` where there is one.
   */
  env?: Readonly<Record<string, string | undefined>>;
  /** Comment frames on idle streams, so proxies keep them open. Default 15 s. */
  heartbeatMs?: number;
}

/** A runstream: one Web-standard handler for every route and every dialect. */
export interface Runstream<Context = unknown> {
  /**
   * Answer one request (`Request` → `Response`), as `fetch` handlers do in Hono, Next.js route
   * handlers, Deno, Bun and Workers. `context` reaches `authenticate` (in `runstream/node`, Node's
   * `{ incoming, outgoing }`).
   */
  fetch(request: Request, context?: Context): Promise<Response>;
  /**
   * `fetch` under each HTTP method's name, for frameworks that route by export name, e.g. a Next.js
   * App Router catch-all `app/support/[...path]/route.ts`: `export const { GET, POST } = runstream.handlers;`
   */
  readonly handlers: RouteHandlers<Context>;
  /** Settles when the agents are open (knowledge ingested, MCP servers connected); rejects with why not. */
  readonly ready: Promise<void>;
  /** Stop driving runs and close the agents' connections. The store and bus stay open: they are yours. */
  close(): Promise<void>;
}

/** One handler per HTTP method, each `fetch` itself. */
export interface RouteHandlers<Context = unknown> {
  GET(request: Request, context?: Context): Promise<Response>;
  POST(request: Request, context?: Context): Promise<Response>;
  PUT(request: Request, context?: Context): Promise<Response>;
  PATCH(request: Request, context?: Context): Promise<Response>;
  DELETE(request: Request, context?: Context): Promise<Response>;
  HEAD(request: Request, context?: Context): Promise<Response>;
  OPTIONS(request: Request, context?: Context): Promise<Response>;
}

/**
 * What only the standalone server (`runstream serve`, `startServer`) adds: the demo session, its
 * web page, the server-wide MCP tools, and this instance's name and lease in a shared deployment.
 */
export interface StandaloneExtras {
  demoSession?: { userId: string };
  mountWeb?: (app: import('hono').Hono<Env>) => void;
  sharedTools?: McpToolSource;
  instanceId?: string;
  leaseMs?: number;
  onOpened?: (opened: { runs: RunManager; agents: OpenedAgents }) => void | Promise<void>;
  /** The caller reports a failed start itself (the CLI prints one line), so the log need not. */
  reportsStartFailure?: boolean;
}

/**
 * The runstream API as one Web-standard `fetch` handler: conversations and runs over POST + SSE
 * (or NDJSON), resume with `Last-Event-ID`, stop, approvals, and the Responses, AI SDK and AG-UI
 * dialects, mounted at `basePath` in any app (docs/embedding.md). Nothing on this path imports
 * Node: the Node adapter (`runstream/node`) and the stores sit at the edge.
 *
 * Returns at once; the agents open in the background (`ready`), and requests wait for them.
 */
export function createRunstream<Context = unknown>(
  options: CreateRunstreamOptions<Context>,
): Runstream<Context> {
  return buildRunstream(options, {});
}

/** `createRunstream` with what the standalone server adds; not part of the public API. */
export function buildRunstream<Context = unknown>(
  options: CreateRunstreamOptions<Context>,
  extras: StandaloneExtras,
): Runstream<Context> {
  if (options.agents.length === 0) throw new TypeError('createRunstream: give at least one agent');
  const log = options.log ?? consoleLog;
  let closed = false;
  let opened: { runs: RunManager; agents: OpenedAgents; app: ReturnType<typeof createApp> } | undefined;

  const open = async () => {
    const knowledge = options.knowledge ?? options.store.knowledge;
    const agents = await openAgents(options.agents, {
      env: options.env ?? processEnv(),
      log,
      ...(knowledge === undefined ? {} : { knowledge }),
      ...(options.model === undefined ? {} : { model: options.model }),
      ...(extras.sharedTools === undefined ? {} : { sharedTools: extras.sharedTools }),
    });
    const audit = loggingAuditLog(options.store.toolAudit, log);
    const runs = new RunManager({
      agents: agents.resolved,
      store: options.store.runs,
      audit,
      ...(options.policies !== undefined && options.policies.length > 0
        ? { policies: options.policies }
        : {}),
      ...(options.bus === undefined
        ? {}
        : {
            eventLog: options.bus.eventLog,
            control: options.bus.control,
            ...(extras.instanceId === undefined ? {} : { instanceId: extras.instanceId }),
          }),
      ...(extras.leaseMs === undefined ? {} : { leaseMs: extras.leaseMs }),
      onPersistenceError: (runId, error) =>
        log({ level: 'error', message: 'a run state write failed', runId, error: String(error) }),
    });
    try {
      const interrupted = await runs.recoverInterruptedRuns();
      if (interrupted > 0)
        log({
          level: 'warn',
          message:
            options.bus !== undefined
              ? `${interrupted} run(s) whose instance stopped renewing its lease are now interrupted`
              : `${interrupted} run(s) left running by a crash are now interrupted`,
        });
      const app = createApp({
        store: options.store.runs,
        runs,
        log,
        agents: agents.cards,
        sources: (agentId) => agents.sources.get(agentId),
        responses: { records: options.store.responses },
        audit,
        ...(options.limits === undefined ? {} : { limits: options.limits }),
        ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
        ...(options.authenticate === undefined ? {} : { authenticate: options.authenticate as Authenticate }),
        ...(options.basePath === undefined ? {} : { basePath: options.basePath }),
        ...(extras.demoSession === undefined ? {} : { demoSession: extras.demoSession }),
        ...(extras.mountWeb === undefined ? {} : { mountWeb: extras.mountWeb }),
      });
      opened = { runs, agents, app };
      await extras.onOpened?.({ runs, agents });
    } catch (error) {
      await runs.close().catch(() => undefined);
      await agents.close().catch(() => undefined);
      throw error;
    }
    if (closed) await closeOpened();
  };

  const closeOpened = async () => {
    const current = opened;
    opened = undefined;
    if (current === undefined) return;
    await current.runs.close();
    await current.agents.close();
  };

  const ready = open();
  // Whoever never awaits `ready` still hears why the runstream did not start, once, in the log;
  // requests answer 503 meanwhile.
  ready.catch((error: unknown) => {
    if (!extras.reportsStartFailure)
      log({ level: 'error', message: 'runstream failed to start', error: errorMessage(error) });
  });

  const fetch = async (request: Request, context?: Context): Promise<Response> => {
    if (opened === undefined) {
      try {
        await ready;
      } catch {
        return unavailable('runstream failed to start: see the server log');
      }
    }
    if (opened === undefined) return unavailable('runstream is closed');
    return opened.app.fetch(request, context);
  };
  return {
    ready,
    fetch,
    handlers: {
      GET: fetch,
      POST: fetch,
      PUT: fetch,
      PATCH: fetch,
      DELETE: fetch,
      HEAD: fetch,
      OPTIONS: fetch,
    },
    async close() {
      closed = true;
      await ready.catch(() => undefined);
      await closeOpened();
    },
  };
}

function unavailable(message: string): Response {
  return new Response(JSON.stringify(wireError('unavailable', message)), {
    status: 503,
    headers: { 'content-type': 'application/json', 'retry-after': '5' },
  });
}

function processEnv(): Readonly<Record<string, string | undefined>> {
  // Web runtimes without `process` read no environment; the caller passes `env` there.
  const candidate = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  return candidate?.env ?? {};
}

function consoleLog(line: Record<string, unknown>): void {
  if (line.level === 'error' || line.level === 'warn') console.error(JSON.stringify(line));
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
