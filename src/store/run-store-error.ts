export type RunStoreErrorCode =
  /** The user, conversation, run or tool call named does not exist. */
  | 'not_found'
  /** An id (user, run) or a token is already taken. */
  | 'already_exists'
  /** A retried POST: this conversation already has a message with that `clientMessageId`. */
  | 'duplicate_client_message'
  /** The conversation already has a run that is `running` or `paused`. */
  | 'active_run_exists'
  /** The write contradicts what is stored (a message id of another conversation, run or role). */
  | 'conflict'
  | 'invalid_argument'
  /** The file was migrated by a newer runstream; writing to it could corrupt it. */
  | 'schema_too_new';

/**
 * A typed local error of the store: branch on `code`. `existingId` names what was already there
 * (the first message for `duplicate_client_message`, the active run for `active_run_exists`), so a
 * caller can answer a retry or a 409 without a second query.
 */
export class RunStoreError extends Error {
  override readonly name = 'RunStoreError';
  readonly code: RunStoreErrorCode;
  readonly existingId: string | undefined;

  constructor(
    code: RunStoreErrorCode,
    message: string,
    options: { existingId?: string; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.existingId = options.existingId;
  }
}

export function isRunStoreError(error: unknown, code?: RunStoreErrorCode): error is RunStoreError {
  return error instanceof RunStoreError && (code === undefined || error.code === code);
}
