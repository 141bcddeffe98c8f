import { ProtocolError, SseDecoderStream, type SseMessage } from '../protocol/index.ts';
import {
  backoffDelay,
  describeCause,
  describeEndpoint,
  errorObjectMessage,
  isHttpUrl,
  isRecord,
  retryAfterFromHeaders,
  serverMessage,
  sleep,
  truncate,
} from '../shared/index.ts';
import { type ChatModel, type ChatRequest, type ChatStreamPart, ModelError } from './chat-model.ts';
import { classifyStatus } from './http-helpers.ts';
import { OpenAiChunkParser } from './openai-chunk-parser.ts';
import { buildRequestBody, type ReasoningField } from './openai-request-body.ts';

export interface OpenAiChatModelOptions {
  /**
   * The API root that `/chat/completions` is appended to, e.g. `https://api.openai.com/v1`,
   * `https://api.deepseek.com/v1`, `https://dashscope.aliyuncs.com/compatible-mode/v1`, or a local
   * `http://localhost:11434/v1` (Ollama) or `http://localhost:8000/v1` (vLLM).
   */
  baseUrl: string;
  /** Sent as `Authorization: Bearer …`; omit it for servers without keys. */
  apiKey?: string;
  /** The provider's model name, e.g. `gpt-4.1-mini`, `deepseek-chat`, `qwen-plus`. */
  model: string;
  fetch?: typeof fetch;
  /** Retries of a turn that failed before its first part (429, 408, 5xx, network). Default 3. */
  maxRetries?: number;
  /** Ceiling of the first jittered retry delay; it doubles per retry. Default 500 ms. */
  initialDelayMs?: number;
  /**
   * Ceiling of any jittered retry delay, and the longest `Retry-After` honoured: a server asking for
   * more fails the turn at once instead of stalling a person's run. Default 20 000 ms.
   */
  maxDelayMs?: number;
  /**
   * The longest silence tolerated: waiting for the response headers, or between bytes of the stream.
   * Not a budget for the whole turn, since a long answer may stream for minutes. Models that think
   * without streaming their reasoning (OpenAI's o-series) may need more. Default 120 000 ms.
   */
  timeoutMs?: number;
  /** The jitter's source of randomness, a stand-in for `Math.random` in tests. */
  random?: () => number;
  /**
   * Provider-specific body fields, e.g. `{ enable_thinking: true }` (DashScope),
   * `{ reasoning: { effort: 'low' } }` (OpenRouter), `{ max_completion_tokens: 4096 }` (OpenAI o-series).
   */
  extraBody?: Readonly<Record<string, unknown>>;
  /**
   * Send an assistant's earlier `reasoning` back under this field. Off by default: DeepSeek rejects
   * `reasoning_content` in input messages, and other providers ignore it or bill it as input.
   */
  sendReasoningAs?: ReasoningField;
}

const DEFAULT_MAX_RETRIES = 3;
const DEFAULT_INITIAL_DELAY_MS = 500;
const DEFAULT_MAX_DELAY_MS = 20_000;
const DEFAULT_TIMEOUT_MS = 120_000;

/** `Retry-After` of a failed attempt, kept beside the error without widening `ModelError`. */
const retryAfterByError = new WeakMap<ModelError, number>();

/**
 * A `ChatModel` over any server that speaks OpenAI's streamed Chat Completions: OpenAI, DeepSeek,
 * DashScope (Qwen), OpenRouter, vLLM, Ollama …
 *
 * One `stream()` call is one `POST {baseUrl}/chat/completions` with `stream: true`. Failures before
 * the first part (429, 408, 5xx, a network error, a stream cut before anything was said) are retried
 * with exponential backoff and full jitter, never sooner than `Retry-After`, with the same body.
 * After the first part nothing is retried: the consumer already has output, and a second answer
 * would be a different one. Such a failure is `model_stream_broken`. Every error message names the
 * endpoint and the provider's own explanation, but never the API key.
 */
export class OpenAiChatModel implements ChatModel {
  readonly name: string;
  readonly #model: string;
  readonly #endpoint: string;
  readonly #apiKey: string | undefined;
  readonly #fetch: typeof fetch;
  readonly #maxRetries: number;
  readonly #initialDelayMs: number;
  readonly #maxDelayMs: number;
  readonly #timeoutMs: number;
  readonly #random: () => number;
  readonly #extraBody: Readonly<Record<string, unknown>> | undefined;
  readonly #sendReasoningAs: ReasoningField | undefined;

  constructor(options: OpenAiChatModelOptions) {
    if (options.model.trim() === '') throw new RangeError('model must not be empty');
    this.#endpoint = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
    if (!isHttpUrl(this.#endpoint)) {
      throw new RangeError(`baseUrl is not an http(s) URL: ${JSON.stringify(options.baseUrl)}`);
    }
    assertNonNegativeInteger('maxRetries', options.maxRetries);
    assertNonNegative('initialDelayMs', options.initialDelayMs);
    assertNonNegative('maxDelayMs', options.maxDelayMs);
    assertPositive('timeoutMs', options.timeoutMs);
    this.#model = options.model;
    this.name = `openai:${options.model}`;
    this.#apiKey = options.apiKey === '' ? undefined : options.apiKey;
    this.#fetch = options.fetch ?? globalThis.fetch;
    this.#maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    this.#initialDelayMs = options.initialDelayMs ?? DEFAULT_INITIAL_DELAY_MS;
    this.#maxDelayMs = options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#random = options.random ?? Math.random;
    this.#extraBody = options.extraBody;
    this.#sendReasoningAs = options.sendReasoningAs;
  }

  async *stream(request: ChatRequest): AsyncGenerator<ChatStreamPart, void, undefined> {
    const signal = request.signal;
    signal?.throwIfAborted();
    // Serialised once: a retry sends exactly the same bytes.
    const body = JSON.stringify(
      buildRequestBody(request, {
        model: this.#model,
        sendReasoningAs: this.#sendReasoningAs,
        extraBody: this.#extraBody,
      }),
    );
    let delivered = 0;
    for (let attempt = 1; ; attempt++) {
      try {
        for await (const part of this.#attempt(body, signal)) {
          // Parts parsed from the same bytes as an abort must not reach the consumer after it.
          signal?.throwIfAborted();
          delivered++;
          yield part;
        }
        return;
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        const failure = this.#redact(
          error instanceof ModelError
            ? error
            : new ModelError('model_failed', describeCause(error), { cause: error }),
        );
        if (delivered > 0) throw this.#brokenAfter(delivered, failure);
        if (!failure.retryable) throw failure;
        if (attempt > this.#maxRetries) throw withNote(failure, `gave up after ${attempt} attempts`);
        const retryAfterMs = retryAfterByError.get(failure);
        if (retryAfterMs !== undefined && retryAfterMs > this.#maxDelayMs) {
          const wait = Math.ceil(retryAfterMs / 1000);
          throw withNote(
            failure,
            `the server asked to wait ${wait} s, more than the ${this.#maxDelayMs} ms allowed`,
          );
        }
        await sleep(this.#retryDelay(attempt, retryAfterMs), signal);
      }
    }
  }

  /** One request and its stream. Throws `ModelError`, or the signal's reason once it aborts. */
  async *#attempt(body: string, signal: AbortSignal | undefined): AsyncGenerator<ChatStreamPart> {
    const connection = new AbortController();
    const onAbort = () => connection.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    const timeout = new ModelError(
      'model_unavailable',
      `POST ${describeEndpoint(this.#endpoint)} sent nothing for ${this.#timeoutMs} ms`,
      { retryable: true },
    );
    // The clock runs only while this adapter waits for the server, not while the consumer is busy
    // with a part (the generator is suspended then, and the body is not being pulled).
    let timer: ReturnType<typeof setTimeout> | undefined;
    let waiting = false;
    const startWaiting = () => {
      waiting = true;
      clearTimeout(timer);
      timer = setTimeout(() => connection.abort(timeout), this.#timeoutMs);
    };
    const stopWaiting = () => {
      waiting = false;
      clearTimeout(timer);
    };
    let reader: ReadableStreamDefaultReader<SseMessage> | undefined;
    try {
      startWaiting();
      const response = await this.#fetch(this.#endpoint, {
        method: 'POST',
        headers: this.#headers(),
        body,
        signal: connection.signal,
      });
      if (!response.ok) throw await this.#httpError(response);
      const contentType = response.headers.get('content-type') ?? '';
      if (contentType.includes('application/json')) throw await this.#notAStream(response);
      if (response.body === null)
        throw new ModelError('model_failed', `POST ${describeEndpoint(this.#endpoint)} sent no body`);
      const bytesSeen = new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          if (waiting) startWaiting();
          controller.enqueue(chunk);
        },
      });
      reader = response.body.pipeThrough(bytesSeen).pipeThrough(new SseDecoderStream()).getReader();
      const parser = new OpenAiChunkParser();
      for (;;) {
        startWaiting();
        const next = await reader.read();
        stopWaiting();
        if (next.done) break;
        const data = next.value.data;
        if (data.trim() === '[DONE]') {
          yield* parser.done();
          return;
        }
        if (data.trim() === '') continue;
        const json = parseFrame(data);
        const isErrorEvent = next.value.event === 'error' && !(isRecord(json) && 'error' in json);
        yield* parser.push(isErrorEvent ? { error: json } : json);
      }
      // Some servers close after the finish_reason (and usage) without `[DONE]`: the turn is whole.
      if (parser.finished) {
        yield* parser.done();
        return;
      }
      throw new ModelError(
        'model_stream_broken',
        `the stream from POST ${describeEndpoint(this.#endpoint)} ended without [DONE] or a finish_reason`,
        // Harmless to retry while nothing was delivered; `stream()` never retries after that.
        { retryable: true },
      );
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (connection.signal.reason === timeout) throw timeout;
      if (error instanceof ModelError) throw error;
      if (error instanceof ProtocolError) {
        // Framing the decoder refused (a frame past its size limit): the same request would repeat it.
        throw new ModelError(
          'model_failed',
          `the stream from POST ${describeEndpoint(this.#endpoint)} is unreadable: ${error.message}`,
          { cause: error },
        );
      }
      throw new ModelError(
        'model_unavailable',
        `POST ${describeEndpoint(this.#endpoint)} failed: ${describeCause(error)}`,
        { retryable: true, cause: error },
      );
    } finally {
      stopWaiting();
      signal?.removeEventListener('abort', onAbort);
      // Stops reading: closes the connection when the body was not read to its end.
      connection.abort();
      // Cancelling a stream the abort already errored rejects; there is nothing left to release.
      reader?.cancel().catch(() => undefined);
    }
  }

  #headers(): Record<string, string> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'text/event-stream',
    };
    if (this.#apiKey !== undefined) headers.authorization = `Bearer ${this.#apiKey}`;
    return headers;
  }

  async #httpError(response: Response): Promise<ModelError> {
    const text = await response.text();
    const { code, retryable } = classifyStatus(response.status);
    const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
    const hint = code === 'model_auth' ? ' (check the API key, OPENAI_API_KEY)' : '';
    const error = new ModelError(
      code,
      `POST ${describeEndpoint(this.#endpoint)} answered ${status}: ${serverMessage(text)}${hint}`,
      { status: response.status, retryable },
    );
    // Some providers send fractional seconds (`Retry-After: 1.5`); this adapter has always taken them.
    const retryAfterMs = retryAfterFromHeaders(response.headers, { fractionalSeconds: true });
    if (retryAfterMs !== undefined) retryAfterByError.set(error, retryAfterMs);
    return error;
  }

  /** A 200 with a JSON body: a gateway's error, or a server that ignored `stream: true`. */
  async #notAStream(response: Response): Promise<ModelError> {
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
    return new ModelError('model_failed', `POST ${describeEndpoint(this.#endpoint)} answered ${problem}`, {
      status: response.status,
    });
  }

  #brokenAfter(delivered: number, failure: ModelError): ModelError {
    return new ModelError(
      'model_stream_broken',
      `the model stream broke after ${delivered} part${delivered === 1 ? '' : 's'} had been delivered, ` +
        `so it was not retried: ${failure.message}`,
      { ...(failure.status === undefined ? {} : { status: failure.status }), cause: failure },
    );
  }

  /** Exponential backoff with full jitter on top of `Retry-After`: spreads clients throttled together. */
  #retryDelay(attempt: number, retryAfterMs: number | undefined): number {
    return backoffDelay({
      attempt,
      baseMs: this.#initialDelayMs,
      capMs: this.#maxDelayMs,
      random: this.#random,
      floorMs: retryAfterMs,
    });
  }

  /** Servers sometimes quote the key they refused; it must not reach logs through our messages. */
  #redact(error: ModelError): ModelError {
    if (this.#apiKey === undefined || !error.message.includes(this.#apiKey)) return error;
    const redacted = new ModelError(error.code, error.message.replaceAll(this.#apiKey, '[redacted]'), {
      ...(error.status === undefined ? {} : { status: error.status }),
      retryable: error.retryable,
    });
    const retryAfterMs = retryAfterByError.get(error);
    if (retryAfterMs !== undefined) retryAfterByError.set(redacted, retryAfterMs);
    return redacted;
  }
}

function parseFrame(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch (error) {
    throw new ModelError('model_failed', `the provider sent a frame that is not JSON: ${truncate(data)}`, {
      cause: error,
    });
  }
}

function withNote(error: ModelError, note: string): ModelError {
  return new ModelError(error.code, `${error.message} (${note})`, {
    ...(error.status === undefined ? {} : { status: error.status }),
    retryable: error.retryable,
    cause: error.cause,
  });
}

function assertNonNegativeInteger(name: string, value: number | undefined): void {
  if (value !== undefined && (!Number.isInteger(value) || value < 0)) {
    throw new RangeError(`${name} must be a non-negative integer, got ${value}`);
  }
}

function assertNonNegative(name: string, value: number | undefined): void {
  if (value !== undefined && !(value >= 0))
    throw new RangeError(`${name} must not be negative, got ${value}`);
}

function assertPositive(name: string, value: number | undefined): void {
  if (value !== undefined && !(value > 0)) throw new RangeError(`${name} must be positive, got ${value}`);
}
