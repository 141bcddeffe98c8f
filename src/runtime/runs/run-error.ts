/** Codes of refusals the run manager gives; the server maps each to an HTTP status. */
export type RunErrorCode =
  | 'not_found'
  | 'confirmation_pending'
  | 'run_in_progress'
  | 'decision_conflict'
  | 'run_finished'
  | 'not_paused'
  | 'invalid_request'
  /** A new message while the conversation's run waits for host tool results. */
  | 'tool_results_pending'
  /** Tool results for a run that is running, or paused for a confirmation. */
  | 'not_waiting_for_tool_results'
  /** A tool result for a call id that is not a host tool call of the run. */
  | 'unknown_tool_call'
  /** A tool result for a call already answered with a different result. */
  | 'tool_result_conflict'
  /** A conversation or request names an agent this server does not run. */
  | 'unknown_agent';

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
