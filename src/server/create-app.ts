import { type Context, Hono } from 'hono';
import { z } from 'zod';
import { wireError } from '../protocol/index.ts';
import type { KnowledgeSources } from '../retrieval/index.ts';
import type { RunManager, ToolAuditLog } from '../runtime/index.ts';
import type { ResponseRecords } from '../store/response-records.ts';
import type { RunStatus, RunStore, StoredMessage, User } from '../store/run-store.ts';
import { agUiFace } from './ag-ui/index.ts';
import type { AgentCard } from './agent-card.ts';
import { aiSdkFace } from './ai-sdk/index.ts';
import { HttpError, toHttpError } from './http-error.ts';
import { bodyOf, nodeResponseOf } from './node-response-of.ts';
import { readJsonBody } from './read-json-body.ts';
import { responsesFace } from './responses/responses-face.ts';
import { RunInputService } from './run-input/index.ts';
import type { FaceContext, ServerFace } from './server-face.ts';
import { type StreamLogOptions, streamLogOptionsOf, streamRun } from './stream-run.ts';
import { traceIdOf } from './trace-context.ts';
import { startRunWithin, type UserLimits } from './user-limits.ts';

export interface AppOptions {
  store: RunStore;
  runs: RunManager;
  /** One line per request; secrets (tokens) never reach it. */
  log?: (line: Record<string, unknown>) => void;
  heartbeatMs?: number;
  /**
   * Routes outside the API, added last (the standalone server's web UI: `serveWeb`, which reads
   * files from disk and so stays off the Web-standard core).
   */
  mountWeb?: (app: Hono<Env>) => void;
  /**
   * Who is asking, from the host app's own login (a session cookie, its JWT, what its middleware
   * put beside the request): `{ userId }`, or `null` for 401. Replaces the built-in bearer tokens.
   * `context` is what the adapter passes beside the request (`runstream/node`: `{ incoming,
   * outgoing }`; a Hono host: whatever it hands to `fetch`).
   */
  authenticate?: Authenticate;
  /** Every route under this prefix (`/support` → `/support/v1/runs/…`); none when absent. */
  basePath?: string;
  /**
   * `POST /auth/demo-session` issues a fresh token for this user to anyone who asks: for the demo
   * only. Absent, the route is 404; a real deployment issues tokens behind its own login.
   */
  demoSession?: { userId: string };
  /**
   * What `GET /v1/agents` lists: the agents `runs` runs, the first the default. Default: their ids
   * and names only.
   */
  agents?: readonly AgentCard[];
  /**
   * The documents behind an agent's knowledge citations, for `GET /v1/knowledge/sources` (within
   * the conversation's agent); 404 when absent or when the agent has none.
   */
  sources?: (agentId: string) => KnowledgeSources | undefined;
  /** Every tool call with its policy decision and outcome, for `GET /v1/tool-audit`; 404 when absent. */
  audit?: ToolAuditLog;
  /** The Responses API (`/v1/responses`, docs/responses-api.md); off when absent. */
  responses?: { records: ResponseRecords };
  /** Per-user request rate and running runs, answered with 429 and `Retry-After`; none when absent. */
  limits?: UserLimits;
}

/** Who a request is from, as the host app's login says; `null` is a 401. */
export type Authenticate<Context = unknown> = (
  request: Request,
  context: Context,
) => AuthenticatedUser | null | undefined | Promise<AuthenticatedUser | null | undefined>;

export interface AuthenticatedUser {
  /** The host app's own id of the user: their conversations and runs are theirs alone. */
  userId: string;
  /** Shown nowhere but the store's user row; the id when absent. */
  name?: string;
}

export type Env = { Variables: { user: User; traceId: string } };

const NewConversation = z.object({
  title: z.string().trim().min(1).max(200).optional(),
  agentId: z.string().min(1).max(64).optional(),
});
const NewMessage = z.object({
  text: z.string().trim().min(1).max(8000),
  clientMessageId: z.string().min(1).max(100).optional(),
});
const Cancel = z.object({ reason: z.string().min(1).max(100).optional() });
const Decision = z.object({ decision: z.enum(['approve', 'reject']), note: z.string().max(500).optional() });

/**
 * The HTTP API (docs/api.md): a small web-standard Hono app under `basePath`, behind
 * `createRunstream`; the Node adapter sits at the edge (`runstream/node`, `src/node/`). Every /v1
 * route is authenticated (the host's `authenticate`, else a bearer token), and a user sees only
 * their own conversations and runs: anything else is 404. Outside /v1, `/health`, the demo session
 * (when enabled) and the web UI's static files (when `mountWeb` adds them) need no token.
 */
export function createApp(options: AppOptions): Hono<Env> {
  const { store, runs } = options;
  const app = new Hono<Env>().basePath(normaliseBasePath(options.basePath));
  const identify = options.authenticate === undefined ? undefined : knownUsers(store, options.authenticate);

  app.use('*', async (context, next) => {
    const started = performance.now();
    // One id per request, from traceparent / x-request-id or new: logged, echoed, given to runs.
    const traceId = traceIdOf(context.req.raw.headers);
    context.set('traceId', traceId);
    await next();
    if (!context.res.headers.has('x-request-id')) context.header('x-request-id', traceId);
    // Every response, JSON and streams included: a browser must never sniff an API body (a model's
    // text in an error message, say) into HTML.
    context.header('x-content-type-options', 'nosniff');
    options.log?.({
      method: context.req.method,
      path: new URL(context.req.url).pathname,
      status: context.res.status,
      ms: Math.round(performance.now() - started),
      traceId,
    });
  });

  app.onError((error, context) => {
    const http = toHttpError(error);
    if (http) {
      // A 5xx the API documents (the store busy or full) is still the operator's business.
      if (http.status >= 500)
        options.log?.({ level: 'error', message: error instanceof Error ? error.message : String(error) });
      return context.json(wireError(http.code, http.message, http.details), http.status as 400, http.headers);
    }
    options.log?.({ level: 'error', message: error instanceof Error ? error.message : String(error) });
    // Mounted in a Node app (Express, Connect): a failure nobody planned for is its error handler's
    // business, as every other route's is. The API's own errors above keep their documented shape.
    const next = (context.env as { next?: unknown } | undefined)?.next;
    if (typeof next === 'function' && !nodeResponseOf(context)?.headersSent) {
      next(error);
      return new Response(null, { headers: { 'x-hono-already-sent': '1' } });
    }
    return context.json(wireError('internal_error', 'something went wrong on our side'), 500);
  });

  app.notFound((context) => context.json(wireError('not_found', 'no such route'), 404));

  app.get('/health', (context) => context.json({ status: 'ok' }));

  const { demoSession } = options;
  if (demoSession) {
    app.post('/auth/demo-session', async (context) => {
      const user = await store.getUser(demoSession.userId);
      if (user === undefined) throw new Error(`the demo user ${demoSession.userId} does not exist`);
      const token = await store.issueToken(user.id, 'web demo session');
      return context.json({ token, user: { id: user.id, name: user.name } }, 201, {
        'cache-control': 'no-store',
      });
    });
  }

  app.use('/v1/*', async (context, next) => {
    if (identify !== undefined) {
      const user = await identify(context.req.raw, context.env);
      if (user === undefined)
        throw new HttpError(401, 'unauthorized', 'sign in first: this request carries no known user');
      context.set('user', user);
      options.limits?.takeRequest(user.id);
      await next();
      return;
    }
    const header = context.req.header('authorization');
    // EventSource cannot set headers; ?access_token= is the documented alternative for GET streams.
    const token = header?.startsWith('Bearer ')
      ? header.slice(7).trim()
      : context.req.method === 'GET'
        ? context.req.query('access_token')
        : undefined;
    const user = token ? await store.findUserByToken(token) : undefined;
    if (user === undefined)
      throw new HttpError(
        401,
        'unauthorized',
        'a valid bearer token is required',
        {},
        { 'www-authenticate': 'Bearer' },
      );
    context.set('user', user);
    options.limits?.takeRequest(user.id);
    await next();
  });

  const agentCards: readonly AgentCard[] =
    options.agents ??
    runs.agents.map((agent) => ({
      id: agent.id,
      name: agent.name,
      language: 'zh-CN',
      ui: { title: agent.name, examples: [] },
    }));

  app.get('/v1/agents', (context) => context.json({ agents: agentCards }));

  app.post('/v1/conversations', async (context) => {
    const body = await readJsonBody(bodyOf(context), NewConversation);
    // An unknown agent is refused before anything is stored (`unknown_agent`, 400).
    const agent = runs.agent(body.agentId);
    const conversation = await store.createConversation(
      context.get('user').id,
      body.title ?? agent.messages.newConversationTitle,
      { agentId: agent.id },
    );
    return context.json(
      {
        id: conversation.id,
        title: conversation.title,
        agentId: conversation.agentId,
        createdAt: conversation.createdAt,
      },
      201,
    );
  });

  app.get('/v1/conversations', async (context) => {
    const agentId = context.req.query('agent_id');
    const conversations = await store.listConversations(
      context.get('user').id,
      agentId === undefined ? {} : { agentId: agentId === runs.agent().id ? '' : agentId },
    );
    // Conversations of the default agent made before agents had ids say `''`: listed as that agent.
    const defaultId = runs.agent().id;
    const listed =
      agentId === runs.agent().id
        ? [
            ...conversations,
            ...(await store.listConversations(context.get('user').id, { agentId: defaultId })),
          ].sort((a, b) => b.updatedAt - a.updatedAt)
        : conversations;
    return context.json({
      data: listed.map(({ id, title, agentId: owner, createdAt, updatedAt }) => ({
        id,
        title,
        agentId: owner === '' ? defaultId : owner,
        createdAt,
        updatedAt,
      })),
    });
  });

  app.get('/v1/conversations/:id', async (context) => {
    const conversation = await ownedConversation(store, context.get('user').id, context.req.param('id'));
    await runs.settleConversation(conversation.id);
    const messages = await store.listMessages(conversation.id);
    // A message the store could not finish (its ending met a full disk) still says running; its run
    // record says how it ended, and the page must not wait for it.
    const endedRuns = new Map<string, RunStatus>();
    for (const message of messages) {
      if (message.role !== 'assistant' || !LIVE_MESSAGE.has(message.message.status)) continue;
      const run = await store.getRun(message.runId);
      if (run !== undefined && !LIVE_MESSAGE.has(run.status)) endedRuns.set(message.runId, run.status);
    }
    return context.json({
      id: conversation.id,
      title: conversation.title,
      agentId: conversation.agentId === '' ? runs.agent().id : conversation.agentId,
      createdAt: conversation.createdAt,
      messages: messages.map((message) => toMessageView(message, endedRuns)),
    });
  });

  app.post('/v1/conversations/:id/messages', async (context) => {
    const user = context.get('user');
    const conversation = await ownedConversation(store, user.id, context.req.param('id'));
    const body = await readJsonBody(bodyOf(context), NewMessage);
    const log = await startRunWithin(options.limits, store, user.id, () =>
      runs.startRun(user.id, conversation.id, body.text, body.clientMessageId, {
        traceId: context.get('traceId'),
        face: 'chat',
      }),
    );
    if (conversation.title === newConversationTitle(runs, conversation.agentId))
      await store.renameConversation(conversation.id, body.text.slice(0, 30));
    return streamRun(log, 0, context.req.header('accept'), streaming(context, options));
  });

  app.get('/v1/runs/:id', async (context) => {
    const run = await runs.getRun(context.get('user').id, context.req.param('id'));
    // What the run's model calls cost, as its persisted message sums them (messages stored before
    // usage was recorded have no such field); absent while no step reported any.
    const usage = (await store.getAssistantMessage(run.messageId))?.usage ?? undefined;
    return context.json({
      id: run.id,
      conversationId: run.conversationId,
      messageId: run.messageId,
      status: run.status,
      ...(run.cancelReason ? { cancelReason: run.cancelReason } : {}),
      lastSeq: run.lastSeq,
      ...(usage === undefined ? {} : { usage }),
    });
  });

  app.get('/v1/runs/:id/events', async (context) => {
    const log = await runs.logOf(context.get('user').id, context.req.param('id'));
    const after = parseSeq(context.req.header('last-event-id') ?? context.req.query('after'));
    return streamRun(log, after, context.req.header('accept'), streaming(context, options));
  });

  app.post('/v1/runs/:id/cancel', async (context) => {
    const body = await readJsonBody(bodyOf(context), Cancel);
    const run = await runs.cancel(
      context.get('user').id,
      context.req.param('id'),
      body.reason ?? 'user_stop',
    );
    return context.json({
      id: run.id,
      status: run.status,
      ...(run.cancelReason ? { cancelReason: run.cancelReason } : {}),
    });
  });

  app.post('/v1/runs/:id/confirmations/:toolCallId', async (context) => {
    const user = context.get('user');
    const runId = context.req.param('id');
    const body = await readJsonBody(bodyOf(context), Decision);
    const before = (await runs.logOf(user.id, runId)).lastSeq;
    const log = await runs.decide(user.id, runId, context.req.param('toolCallId'), body.decision, body.note);
    const after =
      context.req.header('last-event-id') === undefined
        ? before
        : parseSeq(context.req.header('last-event-id'));
    return streamRun(log, after, context.req.header('accept'), streaming(context, options));
  });

  const { sources: sourcesOf } = options;
  if (sourcesOf) {
    app.get('/v1/knowledge/sources', async (context) => {
      // Within the conversation's agent (`conversation_id`), else the named or the default agent.
      const conversationId = context.req.query('conversation_id');
      const agentId =
        conversationId !== undefined
          ? (await ownedConversation(store, context.get('user').id, conversationId)).agentId
          : context.req.query('agent_id');
      const sources = sourcesOf(runs.agent(agentId).id);
      if (sources === undefined)
        throw new HttpError(404, 'not_found', 'this agent has no knowledge documents');
      // A citation's `#L21` may come along; the document is the part before it.
      const path = context.req.query('path')?.split('#')[0]?.trim();
      if (!path)
        throw new HttpError(
          400,
          'invalid_request',
          'path: name a source document, e.g. ?path=knowledge/policies/order-changes.md',
        );
      const document = await sources.read(path);
      if (document === undefined) throw new HttpError(404, 'not_found', 'no such source document');
      return context.json({ path: document.path, title: document.title, text: document.text });
    });
  }

  const { audit } = options;
  if (audit !== undefined)
    app.get('/v1/tool-audit', async (context) => {
      const runId = context.req.query('run_id');
      const limit = context.req.query('limit');
      if (limit !== undefined && !/^\d{1,4}$/.test(limit))
        throw new HttpError(400, 'invalid_request', 'limit must be a number from 1 to 1000');
      const entries = await audit.list({
        userId: context.get('user').id,
        ...(runId ? { runId } : {}),
        ...(limit ? { limit: Number(limit) } : {}),
      });
      return context.json({ data: entries });
    });

  // The dialects: each mounts its own routes on the same store, runs and input service.
  const faces: ServerFace[] = [
    ...(options.responses === undefined ? [] : [responsesFace(options.responses.records)]),
    agUiFace,
    aiSdkFace,
  ];
  const faceContext: FaceContext = {
    store,
    runs,
    input: new RunInputService({ store, runs, limits: options.limits }),
    heartbeatMs: options.heartbeatMs,
  };
  for (const face of faces) face.mount(app, faceContext);

  // Last: `/health`, `/auth` and `/v1` keep their routes, and an unknown one stays a 404 JSON.
  options.mountWeb?.(app);

  return app;
}

/**
 * `/support`, `support/` and `/support/` all mean `/support`; `''` and `/` mean none. A prefix
 * with a query, a fragment or `..` is a mistake, not a path.
 */
export function normaliseBasePath(basePath: string | undefined): string {
  const trimmed = (basePath ?? '').trim().replace(/\/+$/, '');
  if (trimmed === '') return '/';
  const path = trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
  if (!/^(\/[A-Za-z0-9._~!$&'()*+,;=:@%-]+)+$/.test(path) || path.split('/').includes('..'))
    throw new TypeError(`basePath must be a plain path such as "/support", got "${basePath}"`);
  return path;
}

/**
 * The host's `authenticate` with the user rows it implies: a user the host names for the first
 * time gets one (conversations and runs refer to it), and later requests find it in memory.
 */
function knownUsers(
  store: RunStore,
  authenticate: Authenticate,
): (request: Request, context: unknown) => Promise<User | undefined> {
  const known = new Map<string, User>();
  return async (request, context) => {
    const identity = await authenticate(request, context);
    if (identity === null || identity === undefined) return undefined;
    const id = identity.userId;
    if (typeof id !== 'string' || id === '' || id.length > 200)
      throw new TypeError(
        'authenticate() must return { userId } with a non-empty string id of at most 200 characters',
      );
    const cached = known.get(id);
    if (cached !== undefined) return cached;
    let user = await store.getUser(id);
    if (user === undefined) {
      // Two first requests of one user may race: the loser reads the winner's row.
      user = await store.createUser(identity.name ?? id, { id }).catch(async (error: unknown) => {
        const existing = await store.getUser(id);
        if (existing === undefined) throw error;
        return existing;
      });
    }
    if (known.size >= 10_000) known.delete(known.keys().next().value as string);
    known.set(id, user);
    return user;
  };
}

async function ownedConversation(store: RunStore, userId: string, id: string) {
  const conversation = await store.getConversation(id);
  if (conversation === undefined || conversation.userId !== userId)
    throw new HttpError(404, 'not_found', 'no such conversation');
  return conversation;
}

/** Statuses of a message or run that has not ended. */
const LIVE_MESSAGE: ReadonlySet<string> = new Set(['idle', 'running', 'paused']);

function toMessageView(message: StoredMessage, endedRuns: ReadonlyMap<string, RunStatus>) {
  if (message.role === 'user')
    return {
      id: message.id,
      role: 'user',
      status: 'completed',
      text: message.text,
      createdAt: message.createdAt,
    };
  return {
    id: message.id,
    role: 'assistant',
    status: endedRuns.get(message.runId) ?? message.message.status,
    runId: message.runId,
    lastSeq: message.message.lastSeq,
    blocks: message.message.blocks,
    message: message.message,
    createdAt: message.createdAt,
  };
}

function parseSeq(value: string | undefined): number {
  if (value === undefined || value === '') return 0;
  if (!/^\d+$/.test(value))
    throw new HttpError(400, 'invalid_request', 'Last-Event-ID / after must be a non-negative integer');
  return Number(value);
}

function streaming(context: Context<Env>, options: AppOptions): StreamLogOptions {
  return streamLogOptionsOf(context, options.heartbeatMs);
}

/** The title a conversation of that agent starts with (renamed after its first message). */
function newConversationTitle(runs: RunManager, agentId: string): string | undefined {
  try {
    return runs.agent(agentId).messages.newConversationTitle;
  } catch {
    return undefined;
  }
}
