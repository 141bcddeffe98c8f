import { ProtocolError, SseDecoderStream, type SseMessage } from '../protocol/index.ts';
import {
  backoffDelay,
  describeCause,
  describeEndpoint,
  errorObjectMessage,
  isRecord,
  redactSecrets,
  retryAfterFromHeaders,
  serverMessage,
  sleep,
  truncate,
} from '../shared/index.ts';
import { type ChatStreamPart, ModelError } from './chat-model.ts';
import { classifyStatus } from './http-helpers.ts';

/** Reads one attempt's SSE messages into parts; a fresh one per attempt. */
export interface TurnStreamReader {
  /** The parts of one SSE message; throws ModelError for an error event (retryable where a retry may help). */
  read(message: SseMessage): ChatStreamPart[];
  /** True once the turn is complete (`[DONE]`, Anthropic's `message_stop`): the transport stops reading. */
  readonly complete: boolean;
  /**
   * Called once, when the turn is complete or the body ended: the closing parts (pending tool-call
   * ends, `finish`). Throws ModelError('model_stream_broken', retryable: true) when the body ended
   * before the turn was complete (no `[DONE]` and no finish reason / no `message_stop`).
   */
  end(): ChatStreamPart[];
}

/**
 * How an adapter's calls are retried and timed: options every adapter takes, with the same defaults,
 * so one setting means one thing whichever protocol the model speaks.
 */
export interface ModelRequestPolicyOptions {
  fetch?: typeof fetch;
  /** Retries of a turn that failed before its first part (429, 408, 5xx, 529, network, a cut). Default 3. */
  maxRetries?: number;
  /** Ceiling of the first jittered retry delay; it doubles per retry. Default 500 ms. */
  initialDelayMs?: number;
  /**
   * Ceiling of any jittered retry delay, and the longest `Retry-After` honoured: a server asking for
   * more fails the turn at once instead of stalling a person's run. Default 20 000 ms.
   */
  maxDelayMs?: number;
  /**
   * From sending the request to the first event of the answer. Generous, because reasoning models
   * that do not stream their thinking (OpenAI's) and requests queued at a busy provider (which sends
   * only keep-alive comments meanwhile) say nothing for a long time. Default 180 000 ms.
   */
  firstTokenTimeoutMs?: number;
  /**
   * The longest silence between two chunks once the answer streams (keep-alive comments and pings
   * count). Not a budget for the whole turn: a long answer may stream for minutes. Default 60 000 ms.
   */
  idleTimeoutMs?: number;
  /** The jitter's source of randomness, a stand-in for `Math.random` in tests. */
  random?: () => number;
}

export const MODEL_REQUEST_DEFAULTS = {
  maxRetries: 3,
  initialDelayMs: 500,
  maxDelayMs: 20_000,
  firstTokenTimeoutMs: 180_000,
  idleTimeoutMs: 60_000,
} as const;

export type ModelRequestPolicy = Required<Omit<ModelRequestPolicyOptions, 'fetch' | 'random'>> &
  Pick<ModelRequestPolicyOptions, 'fetch' | 'random'>;

/** The policy with its defaults filled in, checked: a `RangeError` names the first option out of range. */
export function resolveRequestPolicy(options: ModelRequestPolicyOptions): ModelRequestPolicy {
  const policy: Record<keyof typeof MODEL_REQUEST_DEFAULTS, number> = { ...MODEL_REQUEST_DEFAULTS };
  for (const name of Object.keys(MODEL_REQUEST_DEFAULTS) as (keyof typeof MODEL_REQUEST_DEFAULTS)[]) {
    const value = options[name];
    if (value === undefined) continue;
    // Retries count; delays may be zero; a timeout of zero would fail every call.
    const valid =
      name === 'maxRetries'
        ? Number.isInteger(value) && value >= 0
        : name === 'initialDelayMs' || name === 'maxDelayMs'
          ? value >= 0
          : value > 0;
    if (!valid) throw new RangeError(`${name} must be ${RANGE_OF[name]}, got ${value}`);
    policy[name] = value;
  }
  return {
    ...policy,
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    ...(options.random === undefined ? {} : { random: options.random }),
  };
}

const RANGE_OF: Record<keyof typeof MODEL_REQUEST_DEFAULTS, string> = {
  maxRetries: 'a non-negative integer',
  initialDelayMs: 'a number of milliseconds, not negative',
  maxDelayMs: 'a number of milliseconds, not negative',
  firstTokenTimeoutMs: 'a positive number of milliseconds',
  idleTimeoutMs: 'a positive number of milliseconds',
};

export interface ModelStreamRequestOptions extends ModelRequestPolicy {
  /** The full endpoint, e.g. `https://api.deepseek.com/chat/completions`, `https://api.anthropic.com/v1/messages`. */
  url: string;
  /** Every header to send (content-type, accept, auth, `anthropic-version` …). */
  headers: Readonly<Record<string, string>>;
  /** Values to remove from every error message (API keys); see `redactSecrets`. */
  secrets: readonly string[];
  /** Added to the message of a 401/403 (e.g. "check OPENAI_API_KEY"). */
  authHint?: string;
}

/**
 * The longest delay a timer takes: Node fires a longer one after 1 ms instead (TimeoutOverflowWarning),
 * so a timeout set very high to mean "practically never" would end every stream at once.
 */
const LONGEST_TIMER_MS = 2_147_483_647;

/** `Retry-After` of a failed attempt, kept beside the error without widening `ModelError`. */
const retryAfterByError = new WeakMap<ModelError, number>();

/**
 * One streamed model turn: POST `body`, read SSE through a fresh `createReader()` per attempt, yield
 * its parts. Failures before the first part is yielded (429, 408, 5xx, 529, network errors, timeouts,
 * a body cut before the turn completed, a retryable error event) are retried; after the first part,
 * nothing is retried and the failure is `model_stream_broken`. Honours `signal` (throws its reason).
 * Every ModelError message names the endpoint (without query string or credentials) and the
 * provider's own explanation, with secrets redacted.
 *
 * Retries wait with exponential backoff and full jitter, never less than the server's `Retry-After`;
 * a server asking for more than `maxDelayMs` fails the turn at once rather than stalling a person's
 * run. After the first part the consumer already has output, and a second answer would be a
 * different one, so it is never retried.
 */
export async function* streamModelRequest(
  options: ModelStreamRequestOptions,
  body: string,
  signal: AbortSignal | undefined,
  createReader: () => TurnStreamReader,
): AsyncGenerator<ChatStreamPart, void, undefined> {
  signal?.throwIfAborted();
  let delivered = 0;
  for (let attempt = 1; ; attempt++) {
    try {
      for await (const part of streamAttempt(options, body, signal, createReader())) {
        // Parts parsed from the same bytes as an abort must not reach the consumer after it.
        signal?.throwIfAborted();
        delivered++;
        yield part;
      }
      return;
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      const failure = redactError(
        error instanceof ModelError
          ? error
          : new ModelError('model_failed', describeCause(error), { cause: error }),
        options.secrets,
      );
      if (delivered > 0) throw brokenAfter(delivered, failure);
      if (!failure.retryable) throw failure;
      if (attempt > options.maxRetries) throw withNote(failure, `gave up after ${attempt} attempts`);
      const retryAfterMs = retryAfterByError.get(failure);
      if (retryAfterMs !== undefined && retryAfterMs > options.maxDelayMs) {
        const wait = Math.ceil(retryAfterMs / 1000);
        throw withNote(
          failure,
          `the server asked to wait ${wait} s, more than the ${options.maxDelayMs} ms allowed`,
        );
      }
      const delay = backoffDelay({
        attempt,
        baseMs: options.initialDelayMs,
        capMs: options.maxDelayMs,
        random: options.random ?? Math.random,
        floorMs: retryAfterMs,
      });
      await sleep(delay, signal);
    }
  }
}

/** One request and its stream. Throws `ModelError`, or the signal's reason once it aborts. */
async function* streamAttempt(
  options: ModelStreamRequestOptions,
  body: string,
  signal: AbortSignal | undefined,
  turn: TurnStreamReader,
): AsyncGenerator<ChatStreamPart> {
  const endpoint = describeEndpoint(options.url);
  const connection = new AbortController();
  const onAbort = () => connection.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  const firstTokenTimeout = new ModelError(
    'model_unavailable',
    `POST ${endpoint} sent no event within ${options.firstTokenTimeoutMs} ms of the request (first-token timeout)`,
    { retryable: true },
  );
  const idleTimeout = new ModelError(
    'model_unavailable',
    `the stream from POST ${endpoint} was silent for ${options.idleTimeoutMs} ms (idle timeout)`,
    { retryable: true },
  );
  // Until the first SSE message the first-token budget runs, untouched by keep-alive comments (a
  // queued or silently thinking model). After it, the idle clock restarts on every byte and runs only
  // while this transport waits for the server, not while the consumer is busy with a part (the
  // generator is suspended then, and the body is not being pulled).
  let timer: ReturnType<typeof setTimeout> | undefined;
  let started = false;
  let waiting = false;
  const startWaiting = () => {
    waiting = true;
    clearTimeout(timer);
    timer = setTimeout(
      () => connection.abort(idleTimeout),
      Math.min(options.idleTimeoutMs, LONGEST_TIMER_MS),
    );
  };
  const stopWaiting = () => {
    waiting = false;
    clearTimeout(timer);
  };
  let reader: ReadableStreamDefaultReader<SseMessage> | undefined;
  try {
    timer = setTimeout(
      () => connection.abort(firstTokenTimeout),
      Math.min(options.firstTokenTimeoutMs, LONGEST_TIMER_MS),
    );
    const response = await (options.fetch ?? globalThis.fetch)(options.url, {
      method: 'POST',
      headers: options.headers,
      body,
      signal: connection.signal,
    });
    if (!response.ok) throw await httpError(response, endpoint, options.authHint);
    const contentType = response.headers.get('content-type') ?? '';
    if (contentType.includes('application/json')) throw await notAStream(response, endpoint);
    if (response.body === null) throw new ModelError('model_failed', `POST ${endpoint} sent no body`);
    const bytesSeen = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (waiting) startWaiting();
        controller.enqueue(chunk);
      },
    });
    reader = response.body.pipeThrough(bytesSeen).pipeThrough(new SseDecoderStream()).getReader();
    for (;;) {
      if (started) startWaiting();
      const next = await reader.read();
      if (started) stopWaiting();
      if (next.done) break;
      if (!started) {
        started = true;
        clearTimeout(timer);
      }
      yield* readerStep(() => turn.read(next.value));
      if (turn.complete) break;
    }
    yield* readerStep(() => turn.end());
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    if (connection.signal.reason === firstTokenTimeout) throw firstTokenTimeout;
    if (connection.signal.reason === idleTimeout) throw idleTimeout;
    if (error instanceof ModelError) throw error;
    if (error instanceof ProtocolError) {
      // Framing the decoder refused (a frame past its size limit): the same request would repeat it.
      throw new ModelError(
        'model_failed',
        `the stream from POST ${endpoint} is unreadable: ${error.message}`,
        {
          cause: error,
        },
      );
    }
    throw new ModelError('model_unavailable', `POST ${endpoint} failed: ${describeCause(error)}`, {
      retryable: true,
      cause: error,
    });
  } finally {
    stopWaiting();
    signal?.removeEventListener('abort', onAbort);
    // Stops reading: closes the connection when the body was not read to its end.
    connection.abort();
    // Cancelling a stream the abort already errored rejects; there is nothing left to release.
    reader?.cancel().catch(() => undefined);
  }
}

/**
 * A reader's step. A reader reports the provider's failures as `ModelError`s; anything else it throws
 * is a defect in reading, which the same bytes would repeat, so it is not retried (unlike the network
 * errors this transport's own catch-all is for).
 */
function readerStep(step: () => ChatStreamPart[]): ChatStreamPart[] {
  try {
    return step();
  } catch (error) {
    if (error instanceof ModelError) throw error;
    throw new ModelError('model_failed', `the stream could not be read: ${describeCause(error)}`, {
      cause: error,
    });
  }
}

async function httpError(
  response: Response,
  endpoint: string,
  authHint: string | undefined,
): Promise<ModelError> {
  const text = await response.text();
  const { code, retryable } = classifyStatus(response.status);
  const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
  const hint = code === 'model_auth' && authHint !== undefined ? ` (${authHint})` : '';
  const error = new ModelError(code, `POST ${endpoint} answered ${status}: ${serverMessage(text)}${hint}`, {
    status: response.status,
    retryable,
  });
  // Some providers send fractional seconds (`Retry-After: 1.5`); they are taken as meant.
  const retryAfterMs = retryAfterFromHeaders(response.headers, { fractionalSeconds: true });
  if (retryAfterMs !== undefined) retryAfterByError.set(error, retryAfterMs);
  return error;
}

/** A 200 with a JSON body: a gateway's error, or a server that ignored `stream: true`. */
async function notAStream(response: Response, endpoint: string): Promise<ModelError> {
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const reported = isRecord(body) && body.error ? errorObjectMessage(body) : undefined;
  const problem =
    reported ?? `JSON instead of an event stream; does this server support stream: true? ${truncate(text)}`;
  return new ModelError('model_failed', `POST ${endpoint} answered ${problem}`, { status: response.status });
}

function brokenAfter(delivered: number, failure: ModelError): ModelError {
  return new ModelError(
    'model_stream_broken',
    `the model stream broke after ${delivered} part${delivered === 1 ? '' : 's'} had been delivered, ` +
      `so it was not retried: ${failure.message}`,
    { ...(failure.status === undefined ? {} : { status: failure.status }), cause: failure },
  );
}

function withNote(error: ModelError, note: string): ModelError {
  return new ModelError(error.code, `${error.message} (${note})`, {
    ...(error.status === undefined ? {} : { status: error.status }),
    retryable: error.retryable,
    cause: error.cause,
  });
}

/** Servers sometimes quote the key they refused; it must not reach logs through our messages. */
function redactError(error: ModelError, secrets: readonly string[]): ModelError {
  const message = redactSecrets(error.message, secrets);
  if (message === error.message) return error;
  // The cause is dropped: it is where the unredacted text came from.
  const redacted = new ModelError(error.code, message, {
    ...(error.status === undefined ? {} : { status: error.status }),
    retryable: error.retryable,
  });
  const retryAfterMs = retryAfterByError.get(error);
  if (retryAfterMs !== undefined) retryAfterByError.set(redacted, retryAfterMs);
  return redacted;
}
