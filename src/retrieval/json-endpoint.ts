import {
  backoffDelay,
  describeCause,
  describeEndpoint,
  redactSecrets,
  retryAfterFromHeaders,
  serverMessage,
  sleep,
  truncate,
} from '../shared/index.ts';
import { RetrievalError, type RetrievalErrorCode } from './retrieval-error.ts';

/** How an adapter's requests are retried and timed; each adapter sets its own defaults. */
export interface RequestPolicyOptions {
  /** Retries of one request after a 408, 429, 5xx, timeout or network error. */
  maxRetries?: number;
  /** Ceiling of the first jittered retry delay; it doubles per retry. */
  initialDelayMs?: number;
  /**
   * Ceiling of any jittered retry delay, and the longest `Retry-After` waited for: a server asking
   * for more fails the call at once instead of stalling the caller.
   */
  maxDelayMs?: number;
  /** One request's budget, body included; a timed-out request is retried. */
  timeoutMs?: number;
  fetch?: typeof fetch;
  /** The jitter's source of randomness, a stand-in for `Math.random` in tests. */
  random?: () => number;
}

/** A request policy with every value set: an adapter's defaults. */
export type RequestPolicy = Required<
  Pick<RequestPolicyOptions, 'maxRetries' | 'initialDelayMs' | 'maxDelayMs' | 'timeoutMs'>
>;

export interface JsonEndpointOptions {
  /** The full URL the JSON bodies are POSTed to. */
  url: string;
  /** Sent as `Authorization: Bearer …`; omit it for servers without keys (a local Ollama or vLLM). */
  apiKey?: string | undefined;
  /** What the requests are, for error messages: `embedding`, `rerank`. */
  purpose: string;
  /** The `RetrievalError` code of every failure. */
  errorCode: RetrievalErrorCode;
  /** The caller's policy, each value checked; what it leaves out comes from `defaults`. */
  policy: RequestPolicyOptions;
  defaults: RequestPolicy;
}

type AttemptOutcome =
  | { kind: 'answer'; body: unknown }
  | { kind: 'failure'; description: string; retryable: boolean; retryAfterMs?: number };

/**
 * One model API endpoint that takes a JSON body and answers JSON: the embeddings and rerank
 * adapters' shared client.
 *
 * 408, 429, 5xx, timeouts and network errors are retried with exponential backoff and full jitter,
 * never sooner than the server's `Retry-After`; other statuses (400, 401, 403, 404 …) fail at once,
 * because repeating the same request cannot fix a bad key or a bad model name. Every failure is a
 * `RetrievalError` naming the endpoint, the status and the server's own message; the API key never
 * appears in one, even when a server echoes it back.
 */
export class JsonEndpoint {
  readonly url: string;
  readonly #purpose: string;
  readonly #errorCode: RetrievalErrorCode;
  readonly #policy: RequestPolicy;
  readonly #apiKey: string | undefined;
  readonly #fetch: typeof fetch;
  readonly #random: () => number;

  /** Throws a `RangeError` for a policy value that is not a whole number in range. */
  constructor(options: JsonEndpointOptions) {
    const { policy, defaults } = options;
    for (const name of ['maxRetries', 'initialDelayMs', 'maxDelayMs', 'timeoutMs'] as const) {
      const value = policy[name];
      const least = name === 'maxRetries' ? 0 : 1;
      if (value !== undefined && !(Number.isInteger(value) && value >= least))
        throw new RangeError(`${name} must be an integer of at least ${least}, got ${value}`);
    }
    this.url = options.url;
    this.#purpose = options.purpose;
    this.#errorCode = options.errorCode;
    this.#policy = {
      maxRetries: policy.maxRetries ?? defaults.maxRetries,
      initialDelayMs: policy.initialDelayMs ?? defaults.initialDelayMs,
      maxDelayMs: policy.maxDelayMs ?? defaults.maxDelayMs,
      timeoutMs: policy.timeoutMs ?? defaults.timeoutMs,
    };
    this.#apiKey = options.apiKey === '' ? undefined : options.apiKey;
    this.#fetch = policy.fetch ?? globalThis.fetch;
    this.#random = policy.random ?? Math.random;
  }

  /** POST `body` as JSON and resolve to the parsed answer; rejects with the caller's abort reason. */
  async post(body: unknown, signal?: AbortSignal): Promise<unknown> {
    const text = JSON.stringify(body);
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.#attempt(text, signal);
      if (outcome.kind === 'answer') return outcome.body;
      const gaveUpAfterRetries = outcome.retryable && attempt > this.#policy.maxRetries;
      if (!outcome.retryable || gaveUpAfterRetries) {
        const attempts = attempt === 1 ? '' : ` (gave up after ${attempt} attempts)`;
        throw this.error(`failed: ${outcome.description}${attempts}`);
      }
      await sleep(this.#retryDelay(attempt, outcome.retryAfterMs), signal);
    }
  }

  /** A failure of this endpoint's requests: `<purpose> request POST <endpoint> <problem>`, redacted. */
  error(problem: string): RetrievalError {
    return new RetrievalError(
      this.#errorCode,
      this.#redact(`${this.#purpose} request POST ${describeEndpoint(this.url)} ${problem}`),
    );
  }

  /** One request. Resolves to an answer or a classified failure; rejects only when `signal` aborts. */
  async #attempt(body: string, signal?: AbortSignal): Promise<AttemptOutcome> {
    const { timeoutMs, maxDelayMs } = this.#policy;
    const timeout = AbortSignal.timeout(timeoutMs);
    const requestSignal = signal === undefined ? timeout : AbortSignal.any([signal, timeout]);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
    };
    if (this.#apiKey !== undefined) headers.authorization = `Bearer ${this.#apiKey}`;
    let response: Response;
    let text: string;
    try {
      response = await this.#fetch(this.url, { method: 'POST', headers, body, signal: requestSignal });
      text = await response.text();
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (timeout.aborted) {
        return { kind: 'failure', description: `no answer within ${timeoutMs} ms`, retryable: true };
      }
      return { kind: 'failure', description: `network error: ${describeCause(error)}`, retryable: true };
    }
    if (response.ok) {
      try {
        return { kind: 'answer', body: JSON.parse(text) };
      } catch {
        const description = `HTTP ${response.status} with a body that is not JSON: ${truncate(text)}`;
        return { kind: 'failure', description, retryable: false };
      }
    }
    const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
    const description = `${status}: ${serverMessage(text)}`;
    if (!isRetryableStatus(response.status)) return { kind: 'failure', description, retryable: false };
    const retryAfterMs = retryAfterFromHeaders(response.headers);
    if (retryAfterMs !== undefined && retryAfterMs > maxDelayMs) {
      const wait = `the server asked to wait ${Math.ceil(retryAfterMs / 1000)} s, more than the ${maxDelayMs} ms allowed`;
      return { kind: 'failure', description: `${description} (${wait})`, retryable: false };
    }
    return {
      kind: 'failure',
      description,
      retryable: true,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    };
  }

  /**
   * Exponential backoff with full jitter on top of the server's `Retry-After`: the jitter spreads
   * many clients throttled at the same moment instead of sending them back together.
   */
  #retryDelay(attempt: number, retryAfterMs: number | undefined): number {
    return backoffDelay({
      attempt,
      baseMs: this.#policy.initialDelayMs,
      capMs: this.#policy.maxDelayMs,
      random: this.#random,
      floorMs: retryAfterMs,
      // `maxDelayMs` bounds the jitter and the Retry-After accepted (#attempt refuses a longer one),
      // not their sum: the whole jitter stays above the server's wait.
      capTotal: false,
    });
  }

  /** Servers sometimes quote the key they refused; it must not reach logs through our messages. */
  #redact(message: string): string {
    return this.#apiKey === undefined ? message : redactSecrets(message, [this.#apiKey]);
  }
}

function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}
