import type { ModelErrorCode } from './chat-model.ts';

/**
 * Small HTTP helpers for model adapters: reading a provider's error text, `Retry-After`, and waiting
 * with an abort signal. (The retrieval layer has its own copies: layers do not import sideways.)
 */

/** Enough of a server's error text to explain it, without pasting a whole HTML error page. */
const MAX_SERVER_MESSAGE_LENGTH = 300;

/** `localhost:11434/v1` parses as a URL with the scheme `localhost:`; only http(s) can be fetched. */
export function isHttpUrl(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const { protocol } = new URL(text);
  return protocol === 'http:' || protocol === 'https:';
}

/** `retry-after-ms` (sent by OpenAI), else `Retry-After` in seconds or as an HTTP date. */
export function retryAfterOf(headers: Headers): number | undefined {
  const milliseconds = headers.get('retry-after-ms')?.trim();
  if (milliseconds !== undefined && /^\d+(\.\d+)?$/.test(milliseconds)) return Number(milliseconds);
  const value = headers.get('retry-after')?.trim();
  if (value === undefined) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/**
 * The provider's own explanation: OpenAI, DeepSeek and DashScope send `{ error: { message, code } }`;
 * others send `{ message }`, `{ detail }` (FastAPI-based servers) or plain text.
 */
export function serverMessage(text: string): string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: an HTML error page from a proxy, or plain text. Show its start as it is.
    return text.trim() === '' ? '(empty body)' : truncate(text);
  }
  return errorObjectMessage(body) ?? truncate(text);
}

/** The message of an error object (`{error: {message, code}}`, `{message}`, `{detail}`), if any. */
export function errorObjectMessage(body: unknown): string | undefined {
  const record = isRecord(body) ? body : {};
  const error = record.error;
  const candidates = [
    isRecord(error) ? error.message : error,
    record.message,
    record.detail,
    isRecord(error) ? error.code : record.code,
  ];
  const message = candidates.find((candidate) => typeof candidate === 'string' && candidate !== '');
  if (typeof message !== 'string') return undefined;
  const code = isRecord(error) ? error.code : record.code;
  return truncate(typeof code === 'string' && code !== message ? `${message} [${code}]` : message);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function truncate(text: string): string {
  const trimmed = text.trim();
  return trimmed.length <= MAX_SERVER_MESSAGE_LENGTH
    ? trimmed
    : `${trimmed.slice(0, MAX_SERVER_MESSAGE_LENGTH)}…`;
}

export function describeCause(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // fetch wraps the socket error ("ECONNREFUSED", "other side closed") in its `cause`.
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}

/** Resolves after `milliseconds`, or rejects with the signal's reason once it aborts. */
export function sleep(milliseconds: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    // Longer timers than 2^31 - 1 ms fire after 1 ms in Node and browsers.
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.min(Math.max(0, milliseconds), 2 ** 31 - 1),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * How an HTTP status (or a status a provider puts in an in-stream error) is reported: a bad key is
 * `model_auth`, a bad request `model_bad_request`; throttling and server trouble may pass if retried.
 */
export function classifyStatus(status: number): { code: ModelErrorCode; retryable: boolean } {
  if (status === 401 || status === 403) return { code: 'model_auth', retryable: false };
  if (status === 400 || status === 404 || status === 413 || status === 422) {
    return { code: 'model_bad_request', retryable: false };
  }
  if (status === 429) return { code: 'model_rate_limited', retryable: true };
  if (status === 408 || status >= 500) return { code: 'model_unavailable', retryable: true };
  return { code: 'model_failed', retryable: false };
}
