import {
  createRunEventDecoderStream,
  type LoggedRunEvent,
  type MessageState,
  ProtocolError,
  type RunEvent,
  reduce,
  type WireFormat,
} from '../protocol/index.ts';
import { backoffDelay, sleep } from './backoff.ts';
import {
  errorFromResponse,
  HttpError,
  isRetryableHttpError,
  NetworkError,
  RunstreamError,
  StreamInterruptedError,
} from './client-errors.ts';

/** One applied event and the message state right after it. */
export interface RunStreamUpdate {
  event: LoggedRunEvent;
  state: MessageState;
}

export type ConnectionStatus = 'connecting' | 'open' | 'reconnecting' | 'closed';

export interface ConnectionChange {
  status: ConnectionStatus;
  /** For `reconnecting`: the attempt number (1, 2 …), the wait before it, and what broke. */
  attempt?: number;
  delayMs?: number;
  error?: unknown;
}

/** Why a stream ended normally: the server's `done` frame, or 204 (finished run, nothing to replay). */
export type StreamEndReason = 'done' | 'no_content';

/** The header a server sets on a run stream so a client can resume even before the first event. */
export const RUN_ID_HEADER = 'x-runstream-run-id';

export interface RunStreamRequest {
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
}

export interface RunStreamConfig {
  baseUrl: string;
  fetch: typeof fetch;
  headers: () => Promise<Record<string, string>>;
  format: WireFormat;
  initialDelayMs: number;
  maxDelayMs: number;
  maxAttempts: number;
  idleTimeoutMs: number;
  random: () => number;
}

export interface RunStreamInit {
  /** The first request: a POST that starts or resumes a run, or a GET that follows one. */
  request: RunStreamRequest;
  /** Start from a known state (a persisted message after a refresh); events up to its lastSeq are skipped. */
  state: MessageState;
  runId?: string;
  signal?: AbortSignal;
  onConnectionChange?: (change: ConnectionChange) => void;
}

/** Node (and browsers) treat a timer longer than 2^31 - 1 ms as 1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

class IdleTimeoutError extends RunstreamError {
  override readonly name = 'IdleTimeoutError';
}

/**
 * Follows one run across connections. Iterate it for `{ event, state }` updates; each event arrives
 * exactly once, in `seq` order, however often the connection drops. When a connection ends before
 * `done`, the stream reconnects to `GET /v1/runs/{id}/events` with `Last-Event-ID` after an
 * exponential, fully jittered delay, and drops events it has already seen.
 *
 * Aborting `signal` (or breaking out of the loop) only closes the connection: the run goes on and
 * can be followed again. To stop the run itself, call `RunstreamClient.cancel()`.
 */
export class RunStream implements AsyncIterable<RunStreamUpdate> {
  readonly #config: RunStreamConfig;
  readonly #init: RunStreamInit;
  #state: MessageState;
  #runId: string | undefined;
  #serverRetryMs: number | undefined;
  #endReason: StreamEndReason | undefined;
  #consumed = false;

  constructor(config: RunStreamConfig, init: RunStreamInit) {
    this.#config = config;
    this.#init = init;
    this.#state = init.state;
    this.#runId = init.runId ?? init.state.runId ?? undefined;
  }

  /** The message as of the last applied event. */
  get state(): MessageState {
    return this.#state;
  }

  get runId(): string | undefined {
    return this.#runId;
  }

  get lastSeq(): number {
    return this.#state.lastSeq;
  }

  /** Set once the stream ended normally. */
  get endReason(): StreamEndReason | undefined {
    return this.#endReason;
  }

  [Symbol.asyncIterator](): AsyncIterator<RunStreamUpdate> {
    if (this.#consumed) throw new RunstreamError('already_consumed', 'a RunStream can be iterated once');
    this.#consumed = true;
    return this.#follow();
  }

  /** Just the events, for callers that keep their own state. */
  async *events(): AsyncGenerator<LoggedRunEvent> {
    for await (const update of this) yield update.event;
  }

  /** Read to the end of the stream and return the final state. */
  async result(): Promise<MessageState> {
    for await (const _update of this) {
      // Each update is already applied to this.state.
    }
    return this.#state;
  }

  async *#follow(): AsyncGenerator<RunStreamUpdate> {
    let closed: ConnectionChange | undefined = { status: 'closed' };
    try {
      yield* this.#followConnections();
    } catch (error) {
      closed = { status: 'closed', error };
      throw error;
    } finally {
      // Every exit says `closed`: done, 204, an error, an abort, or a consumer that stopped reading.
      this.#notify(closed);
    }
  }

  async *#followConnections(): AsyncGenerator<RunStreamUpdate> {
    const { signal } = this.#init;
    let request = this.#init.request;
    // A GET only reads the log, so it may be repeated from the start; the first POST may not.
    let resumable = request.method === 'GET';
    let failures = 0;
    this.#notify({ status: 'connecting' });
    while (true) {
      signal?.throwIfAborted();
      let failure: unknown;
      let retryAfterMs = 0;
      let progressed = false;
      try {
        for await (const event of this.#connect(request)) {
          // Events already buffered when the caller aborted must not reach it afterwards.
          signal?.throwIfAborted();
          if (event.type === 'done') {
            this.#endReason = 'done';
            return;
          }
          // A replay after a reconnect may overlap what was already applied.
          if (event.seq <= this.#state.lastSeq) continue;
          this.#state = reduce(this.#state, event);
          if (event.type === 'run.started') this.#runId = event.runId;
          progressed = true;
          yield { event, state: this.#state };
        }
        if (this.#endReason === 'no_content') return;
        failure = new RunstreamError('stream_ended_early', 'the stream ended before its done frame');
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        if (!isResumableFailure(error, resumable)) throw error;
        failure = error;
        if (error instanceof HttpError && error.retryAfterMs !== undefined) {
          retryAfterMs = error.retryAfterMs;
        }
      }
      if (this.#runId === undefined) {
        throw new StreamInterruptedError(
          'unresumable',
          'the connection ended before the run id was known, so the run cannot be resumed',
          this.#state.lastSeq,
          { cause: failure },
        );
      }
      // A connection that delivered new events proves the path works: start the backoff over.
      failures = progressed ? 1 : failures + 1;
      if (failures > this.#config.maxAttempts) {
        throw new StreamInterruptedError(
          'reconnect_exhausted',
          `gave up after ${this.#config.maxAttempts} reconnect attempts`,
          this.#state.lastSeq,
          { cause: failure },
        );
      }
      const delayMs = backoffDelay({
        attempt: failures,
        baseMs: this.#config.initialDelayMs,
        capMs: this.#config.maxDelayMs,
        random: this.#config.random,
        // The SSE `retry:` may have arrived on the connection that just broke, so read it now.
        floorMs: Math.max(this.#serverRetryMs ?? 0, retryAfterMs),
      });
      this.#notify({ status: 'reconnecting', attempt: failures, delayMs, error: failure });
      await sleep(delayMs, signal);
      request = { method: 'GET', path: `/v1/runs/${encodeURIComponent(this.#runId)}/events` };
      resumable = true;
    }
  }

  /** One connection: yields decoded events until the body ends; throws what broke it. */
  async *#connect(request: RunStreamRequest): AsyncGenerator<RunEvent> {
    const { signal } = this.#init;
    const connection = new AbortController();
    const onAbort = () => connection.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    const { idleTimeoutMs } = this.#config;
    const watchdogEnabled = Number.isFinite(idleTimeoutMs) && idleTimeoutMs > 0;
    let idleTimer: ReturnType<typeof setTimeout> | undefined;
    const stopIdleTimer = () => clearTimeout(idleTimer);
    const resetIdleTimer = () => {
      clearTimeout(idleTimer);
      if (!watchdogEnabled) return;
      idleTimer = setTimeout(
        () =>
          connection.abort(new IdleTimeoutError('idle_timeout', 'no bytes (not even a heartbeat) in time')),
        Math.min(idleTimeoutMs, MAX_TIMER_MS),
      );
    };
    let reader: ReadableStreamDefaultReader<RunEvent> | undefined;
    try {
      // The watchdog covers waiting for the headers too: a server that accepts and then says nothing.
      resetIdleTimer();
      const response = await this.#fetch(request, connection.signal);
      const runIdHeader = response.headers.get(RUN_ID_HEADER);
      if (runIdHeader) this.#runId ??= runIdHeader;
      if (response.status === 204) {
        await response.body?.cancel();
        this.#endReason = 'no_content';
        return;
      }
      if (!response.ok) throw await errorFromResponse(response);
      const format = formatOf(response.headers.get('content-type'));
      if (format === undefined || response.body === null) {
        await response.body?.cancel();
        throw new RunstreamError(
          'unexpected_content_type',
          `expected a text/event-stream or application/x-ndjson body, got ${response.headers.get('content-type')}`,
        );
      }
      this.#notify({ status: 'open' });
      const decoder = createRunEventDecoderStream(format, {
        onRetry: (milliseconds) => {
          this.#serverRetryMs = milliseconds;
        },
      });
      // Every chunk, heartbeats included, proves the connection is alive. Only while the caller waits
      // for an event, though: while it holds one, the pipe still fills its queues and then stops on
      // backpressure, and that silence is a slow reader, not a dead server.
      let waiting = false;
      const watchdog = new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          if (waiting) resetIdleTimer();
          controller.enqueue(chunk);
        },
      });
      reader = response.body.pipeThrough(watchdog).pipeThrough(decoder).getReader();
      while (true) {
        let next: ReadableStreamReadResult<RunEvent>;
        waiting = true;
        resetIdleTimer();
        try {
          next = await reader.read();
        } catch (error) {
          if (error instanceof ProtocolError || signal?.aborted) throw error;
          const reason = connection.signal.reason;
          if (reason instanceof IdleTimeoutError) throw reason;
          throw new RunstreamError('connection_lost', `the connection broke mid-stream: ${describe(error)}`, {
            cause: error,
          });
        }
        waiting = false;
        stopIdleTimer();
        if (next.done) return;
        yield next.value;
      }
    } catch (error) {
      const reason = connection.signal.reason;
      if (reason instanceof IdleTimeoutError && !signal?.aborted) throw reason;
      throw error;
    } finally {
      stopIdleTimer();
      signal?.removeEventListener('abort', onAbort);
      // Closing the connection on every exit (done, break, error) releases the socket promptly.
      connection.abort();
      reader?.cancel().catch(() => undefined);
    }
  }

  async #fetch(request: RunStreamRequest, signal: AbortSignal): Promise<Response> {
    const headers: Record<string, string> = {
      ...(await this.#config.headers()),
      accept: this.#config.format === 'ndjson' ? 'application/x-ndjson' : 'text/event-stream',
      'cache-control': 'no-cache',
    };
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    if (this.#state.lastSeq > 0) headers['last-event-id'] = String(this.#state.lastSeq);
    try {
      return await this.#config.fetch(`${this.#config.baseUrl}${request.path}`, {
        method: request.method,
        headers,
        ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
        signal,
      });
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      throw new NetworkError(`could not reach ${this.#config.baseUrl}: ${describe(error)}`, { cause: error });
    }
  }

  #notify(change: ConnectionChange): void {
    this.#init.onConnectionChange?.(change);
  }
}

function formatOf(contentType: string | null): WireFormat | undefined {
  const type = contentType?.split(';')[0]?.trim().toLowerCase();
  if (type === 'text/event-stream') return 'sse';
  if (type === 'application/x-ndjson') return 'ndjson';
  return undefined;
}

/**
 * Which failures a reconnect may cure: a broken or silent connection, a refused or failed attempt,
 * and the statuses that say "try again" (408, 429, 5xx). The first POST is never repeated once sent
 * (it would start a second run), so its failures before the run id is known go to the caller. Local
 * errors (a token function that throws, a corrupt frame) are never retried.
 */
function isResumableFailure(error: unknown, resumable: boolean): boolean {
  if (error instanceof HttpError) return resumable && isRetryableHttpError(error);
  if (error instanceof NetworkError) return resumable;
  if (error instanceof RunstreamError) {
    return (
      error.code === 'idle_timeout' || error.code === 'stream_ended_early' || error.code === 'connection_lost'
    );
  }
  return false;
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
  }
  return String(error);
}
