/** Codes of errors raised by the protocol layer itself (framing and event validation). */
export type ProtocolErrorCode =
  | 'invalid_sse_field'
  | 'invalid_json'
  | 'invalid_event'
  | 'ndjson_line_too_long'
  | 'sse_frame_too_long';

/** A typed local error: a stable string `code` to branch on, and a message for people. */
export class ProtocolError extends Error {
  override readonly name = 'ProtocolError';
  readonly code: ProtocolErrorCode;

  constructor(code: ProtocolErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}
