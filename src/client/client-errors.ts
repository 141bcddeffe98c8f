import { WireErrorBodySchema } from '../protocol/index.ts';
import { parseRetryAfter } from '../shared/index.ts';

/** Part of the client's public API; the parser itself lives in `src/shared/`. */
export { parseRetryAfter };

/**
 * Typed client errors. Every error has a string `code` to branch on. HTTP statuses are always
 * reported as `HttpError` subclasses, never as network errors: a 401 means "log in", a 429 means
 * "wait", a 5xx means "alert", and a caller must be able to tell them apart.
 */
export class RunstreamError extends Error {
  override readonly name: string = 'RunstreamError';
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

export interface HttpErrorInit {
  status: number;
  code: string;
  message: string;
  details?: Record<string, unknown>;
  retryAfterMs?: number;
}

/** The server answered with a non-success status before any event was streamed. */
export class HttpError extends RunstreamError {
  override readonly name: string = 'HttpError';
  readonly status: number;
  /** Everything in the server's `error` object besides `code` and `message`. */
  readonly details: Record<string, unknown>;
  /** From `Retry-After`, when the server sent one (429 and 503 usually do). */
  readonly retryAfterMs: number | undefined;

  constructor(init: HttpErrorInit) {
    super(init.code, init.message);
    this.status = init.status;
    this.details = init.details ?? {};
    this.retryAfterMs = init.retryAfterMs;
  }
}

export class UnauthorizedError extends HttpError {
  override readonly name = 'UnauthorizedError';
}
export class ForbiddenError extends HttpError {
  override readonly name = 'ForbiddenError';
}
export class NotFoundError extends HttpError {
  override readonly name = 'NotFoundError';
}
/** 409: the server's `code` says which conflict, e.g. `confirmation_pending` or `decision_conflict`. */
export class ConflictError extends HttpError {
  override readonly name = 'ConflictError';
}
export class PayloadTooLargeError extends HttpError {
  override readonly name = 'PayloadTooLargeError';
}
export class RateLimitedError extends HttpError {
  override readonly name = 'RateLimitedError';
}
export class ServerError extends HttpError {
  override readonly name = 'ServerError';
}

/** No HTTP response at all: DNS, refused connection, reset before the status line. */
export class NetworkError extends RunstreamError {
  override readonly name = 'NetworkError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('network_error', message, options);
  }
}

/**
 * The stream broke and could not be resumed: either the run's id was never learned (the connection
 * died before the first event) or reconnecting failed too many times in a row.
 */
export class StreamInterruptedError extends RunstreamError {
  override readonly name = 'StreamInterruptedError';
  readonly lastSeq: number;
  constructor(
    code: 'unresumable' | 'reconnect_exhausted',
    message: string,
    lastSeq: number,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
    this.lastSeq = lastSeq;
  }
}

/** Whether a following read may try again after this error (used between reconnect attempts). */
export function isRetryableHttpError(error: HttpError): boolean {
  return error.status === 408 || error.status === 429 || error.status >= 500;
}

/** Build the typed error for a non-success response, reading the server's `{"error": {...}}` body. */
export async function errorFromResponse(response: Response): Promise<HttpError> {
  let code = `http_${response.status}`;
  let message = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
  let details: Record<string, unknown> = {};
  const text = await response.text().catch(() => '');
  if (text.length > 0) {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      // A proxy's HTML error page is still an HTTP error: keep the status-derived code and message.
      body = undefined;
    }
    const parsed = WireErrorBodySchema.safeParse(body);
    if (parsed.success) {
      const { code: wireCode, message: wireMessage, ...rest } = parsed.data.error;
      code = wireCode;
      message = wireMessage;
      details = rest;
    }
  }
  const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
  const init: HttpErrorInit = {
    status: response.status,
    code,
    message,
    details,
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  };
  switch (response.status) {
    case 401:
      return new UnauthorizedError(init);
    case 403:
      return new ForbiddenError(init);
    case 404:
      return new NotFoundError(init);
    case 409:
      return new ConflictError(init);
    case 413:
      return new PayloadTooLargeError(init);
    case 429:
      return new RateLimitedError(init);
    default:
      return response.status >= 500 ? new ServerError(init) : new HttpError(init);
  }
}
