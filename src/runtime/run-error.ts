/** Codes of refusals the run manager gives; the server maps each to an HTTP status. */
export type RunErrorCode =
  | 'not_found'
  | 'confirmation_pending'
  | 'run_in_progress'
  | 'decision_conflict'
  | 'run_finished'
  | 'not_paused'
  | 'invalid_request';

export const CONFIRMATION_PENDING_MESSAGE = '上一步操作还在等你确认，请先确认或取消';

/** A typed refusal: a stable `code`, a message for people, and details (e.g. the first decision). */
export class RunError extends Error {
  override readonly name = 'RunError';
  readonly code: RunErrorCode;
  readonly details: Record<string, unknown>;

  constructor(code: RunErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.code = code;
    this.details = details;
  }
}
