import type { z } from 'zod';
import { createMessageState, type MessageState, type WireFormat } from '../protocol/index.ts';
import { AgentListSchema, type AgentSummary } from './agent-views.ts';
import type { BackoffOptions } from './backoff.ts';
import { errorFromResponse, NetworkError, RunstreamError } from './client-errors.ts';
import {
  type ConversationDetail,
  ConversationDetailSchema,
  ConversationListSchema,
  type ConversationSummary,
  ConversationSummarySchema,
  type RunView,
  RunViewSchema,
} from './conversation-views.ts';
import {
  type ConnectionChange,
  RunStream,
  type RunStreamConfig,
  type RunStreamRequest,
} from './run-stream.ts';

export interface RunstreamClientOptions extends BackoffOptions {
  /**
   * Where the API is: the server's origin (`http://127.0.0.1:8787`), or with the path runstream is
   * mounted at (`https://shop.example.com/support`, see docs/embedding.md).
   */
  baseUrl: string;
  /** A bearer token, or a function returning a fresh one for each request. */
  token?: string | (() => string | Promise<string>);
  /** Defaults to the global `fetch`; pass one for tests, proxies or custom agents. */
  fetch?: typeof fetch;
  /** `sse` (default) or `ndjson`; sent as `Accept`. */
  format?: WireFormat;
  /**
   * Reconnect when no bytes, not even a `: ping` heartbeat, arrive for this long. A half-open TCP
   * connection would otherwise look alive forever. Default 45 000 (three missed 15 s heartbeats).
   */
  idleTimeoutMs?: number;
  /** Source of jitter; replace it to make backoff deterministic in tests. */
  random?: () => number;
}

export interface FollowOptions {
  signal?: AbortSignal;
  /** Start from a known message state (e.g. the persisted message after a page refresh). */
  state?: MessageState;
  onConnectionChange?: (change: ConnectionChange) => void;
}

export interface SendMessageInput {
  text: string;
  [field: string]: unknown;
}

/** What `createConversation` sends; both optional. */
export interface NewConversationInput {
  title?: string;
  /** One of `listAgents()`'s ids; absent, the server's default agent. */
  agentId?: string;
}

export type ConfirmationDecision = 'approve' | 'reject';

/** What the server answers to an explicit stop: the run's id and status after it. */
export interface CancelResult {
  id: string;
  status: string;
  cancelReason?: string;
}

/**
 * The runstream client: `fetch` + `ReadableStream`, so it runs in browsers, Node and CLIs alike.
 * Streaming calls return a `RunStream` that resumes itself across dropped connections.
 */
export class RunstreamClient {
  readonly #options: RunstreamClientOptions;
  readonly #config: RunStreamConfig;

  constructor(options: RunstreamClientOptions) {
    this.#options = options;
    const fetchImplementation = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.#config = {
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      fetch: fetchImplementation,
      headers: () => this.#authHeaders(),
      format: options.format ?? 'sse',
      initialDelayMs: options.initialDelayMs ?? 500,
      maxDelayMs: options.maxDelayMs ?? 30_000,
      maxAttempts: options.maxAttempts ?? 10,
      idleTimeoutMs: options.idleTimeoutMs ?? 45_000,
      random: options.random ?? Math.random,
    };
  }

  /** `POST /v1/conversations/{id}/messages`: send a message and stream the run it starts. */
  sendMessage(conversationId: string, input: SendMessageInput, options: FollowOptions = {}): RunStream {
    return this.#stream(
      {
        method: 'POST',
        path: `/v1/conversations/${encodeURIComponent(conversationId)}/messages`,
        body: input,
      },
      options,
    );
  }

  /** `GET /v1/runs/{id}/events`: follow a run from `options.state.lastSeq` (or from the start). */
  followRun(runId: string, options: FollowOptions = {}): RunStream {
    return this.#stream(
      { method: 'GET', path: `/v1/runs/${encodeURIComponent(runId)}/events` },
      options,
      runId,
    );
  }

  /**
   * `POST /v1/runs/{id}/confirmations/{toolCallId}`: approve or reject a paused write and stream
   * the resumed run. Decisions are single-use; a second one is a `ConflictError`. `note` (at most
   * 500 characters) is kept with the decision, e.g. why the customer said no.
   */
  decide(
    runId: string,
    toolCallId: string,
    decision: ConfirmationDecision,
    options: FollowOptions & { note?: string } = {},
  ): RunStream {
    const path = `/v1/runs/${encodeURIComponent(runId)}/confirmations/${encodeURIComponent(toolCallId)}`;
    const body = options.note === undefined ? { decision } : { decision, note: options.note };
    return this.#stream({ method: 'POST', path, body }, options, runId);
  }

  /**
   * `POST /v1/runs/{id}/cancel`: the explicit stop. Unlike aborting a read (a disconnect, after which
   * the run goes on), this ends the run as `cancelled` with `reason`; the server keeps the partial
   * blocks and is idempotent about repeated stops.
   */
  async cancel(
    runId: string,
    reason = 'user_stop',
    options: { signal?: AbortSignal } = {},
  ): Promise<CancelResult> {
    return (await this.#json(
      'POST',
      `/v1/runs/${encodeURIComponent(runId)}/cancel`,
      { reason },
      options.signal,
    )) as CancelResult;
  }

  /**
   * `GET /v1/agents`: the agents this server runs, the default first. A page reads each one's title,
   * greeting and example prompts from here, and offers a choice when there is more than one.
   */
  async listAgents(options: { signal?: AbortSignal } = {}): Promise<AgentSummary[]> {
    return parseResponse(AgentListSchema, await this.#json('GET', '/v1/agents', undefined, options.signal))
      .agents;
  }

  /**
   * `POST /v1/conversations`: a conversation with `agentId`'s agent (the server's default when
   * absent; an id the server does not run is a 400 `unknown_agent`).
   */
  async createConversation(
    input: NewConversationInput = {},
    options: { signal?: AbortSignal } = {},
  ): Promise<ConversationSummary> {
    // Only the fields the server knows, and none that are undefined, so `{}` stays `{}` on the wire.
    const body = {
      ...(input.title === undefined ? {} : { title: input.title }),
      ...(input.agentId === undefined ? {} : { agentId: input.agentId }),
    };
    return parseResponse(
      ConversationSummarySchema,
      await this.#json('POST', '/v1/conversations', body, options.signal),
    );
  }

  /**
   * `GET /v1/conversations`: the caller's conversations, most recent first; with `agentId`, only
   * those of that agent (`?agent_id=`).
   */
  async listConversations(
    options: { signal?: AbortSignal; agentId?: string } = {},
  ): Promise<ConversationSummary[]> {
    const query = options.agentId === undefined ? '' : `?agent_id=${encodeURIComponent(options.agentId)}`;
    return parseResponse(
      ConversationListSchema,
      await this.#json('GET', `/v1/conversations${query}`, undefined, options.signal),
    ).data;
  }

  /**
   * `GET /v1/conversations/{id}`: every message, assistant messages as persisted protocol messages.
   * This is the refresh path: `fromMessage(view.message)` and, for a running run, `followRun`.
   */
  async getConversation(id: string, options: { signal?: AbortSignal } = {}): Promise<ConversationDetail> {
    return parseResponse(
      ConversationDetailSchema,
      await this.#json('GET', `/v1/conversations/${encodeURIComponent(id)}`, undefined, options.signal),
    );
  }

  /** `GET /v1/runs/{id}`: the run's status without its events. */
  async getRun(id: string, options: { signal?: AbortSignal } = {}): Promise<RunView> {
    return parseResponse(
      RunViewSchema,
      await this.#json('GET', `/v1/runs/${encodeURIComponent(id)}`, undefined, options.signal),
    );
  }

  /** Any other authenticated JSON GET of the API (e.g. a domain's `/v1/knowledge/sources`). */
  async getJson(path: string, options: { signal?: AbortSignal } = {}): Promise<unknown> {
    return this.#json('GET', path, undefined, options.signal);
  }

  #stream(request: RunStreamRequest, options: FollowOptions, runId?: string): RunStream {
    return new RunStream(this.#config, {
      request,
      state: options.state ?? createMessageState(),
      ...(runId !== undefined ? { runId } : {}),
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
      ...(options.onConnectionChange !== undefined ? { onConnectionChange: options.onConnectionChange } : {}),
    });
  }

  async #json(method: string, path: string, body: unknown, signal?: AbortSignal): Promise<unknown> {
    // Outside the try: a token function that fails is its own error, not an unreachable server.
    const headers: Record<string, string> = {
      ...(await this.#authHeaders()),
      accept: 'application/json',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    };
    let response: Response;
    try {
      response = await this.#config.fetch(`${this.#config.baseUrl}${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        ...(signal !== undefined ? { signal } : {}),
      });
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw new NetworkError(`could not reach ${this.#config.baseUrl}`, { cause: error });
    }
    if (!response.ok) throw await errorFromResponse(response);
    return response.status === 204 ? undefined : response.json();
  }

  async #authHeaders(): Promise<Record<string, string>> {
    const { token } = this.#options;
    if (token === undefined) return {};
    const value = typeof token === 'function' ? await token() : token;
    return { authorization: `Bearer ${value}` };
  }
}

function parseResponse<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (!parsed.success)
    throw new RunstreamError(
      'unexpected_response',
      `the server's answer does not fit this client: ${parsed.error.issues[0]?.message ?? 'invalid'}`,
    );
  return parsed.data;
}

export function createRunstreamClient(options: RunstreamClientOptions): RunstreamClient {
  return new RunstreamClient(options);
}
