import { RUN_MESSAGES, RunError } from '../runtime/index.ts';
import { RunStoreError } from '../store/run-store-error.ts';

/** An error that becomes `{"error": {"code", "message", …}}` with an HTTP status, before any stream. */
export class HttpError extends Error {
  override readonly name = 'HttpError';
  readonly status: number;
  readonly code: string;
  readonly details: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    code: string,
    message: string,
    details: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
    this.headers = headers;
  }
}

const RUN_ERROR_STATUS: Record<RunError['code'], number> = {
  not_found: 404,
  confirmation_pending: 409,
  run_in_progress: 409,
  decision_conflict: 409,
  run_finished: 409,
  not_paused: 409,
  invalid_request: 400,
  tool_results_pending: 409,
  not_waiting_for_tool_results: 409,
  unknown_tool_call: 409,
  tool_result_conflict: 409,
  unknown_agent: 400,
};

/** Typed errors of the layers below, as the HTTP errors the API documents. */
export function toHttpError(error: unknown): HttpError | undefined {
  if (error instanceof HttpError) return error;
  if (error instanceof RunError)
    return new HttpError(RUN_ERROR_STATUS[error.code], error.code, error.message, error.details);
  if (error instanceof RunStoreError) {
    if (error.code === 'not_found') return new HttpError(404, 'not_found', 'not found');
    if (error.code === 'duplicate_client_message') {
      return new HttpError(409, 'duplicate_message', 'this message was already sent', {
        messageId: error.existingId,
      });
    }
    if (error.code === 'active_run_exists')
      // Outside a run manager's start (which answers in the agent's language): the default table.
      return new HttpError(409, 'run_in_progress', RUN_MESSAGES['zh-CN'].runInProgress);
  }
  if (isStoreUnavailable(error))
    return new HttpError(
      503,
      'store_unavailable',
      'the store cannot take this now (busy or full); nothing was saved, try again shortly',
      {},
      { 'retry-after': '1' },
    );
  return undefined;
}

/**
 * SQLite refusing a write it may take later: another connection holds the lock past the busy
 * timeout, or the disk is full or failing. Nothing of the request was saved, so the client may retry:
 * a 503 with `Retry-After`, not a 500 that says the server is broken.
 */
function isStoreUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^SQLITE_(BUSY|LOCKED|FULL|IOERR)/.test(code);
}
