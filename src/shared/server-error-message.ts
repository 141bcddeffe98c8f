/**
 * Reading a server's explanation of an error: its `{ error: { message, code } }` body, or enough of
 * its text to explain it, without pasting a whole HTML error page into a message.
 */

/** Enough of a server's error text to explain it, without pasting a whole HTML error page. */
const MAX_SERVER_MESSAGE_LENGTH = 300;

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The text trimmed, and cut to 300 characters with an ellipsis when longer. */
export function truncate(text: string): string {
  const trimmed = text.trim();
  return trimmed.length <= MAX_SERVER_MESSAGE_LENGTH
    ? trimmed
    : `${trimmed.slice(0, MAX_SERVER_MESSAGE_LENGTH)}…`;
}

/** An error's message, with its cause's message when it has one. */
export function describeCause(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // fetch wraps the socket error ("ECONNREFUSED", "other side closed") in its `cause`.
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}

/**
 * The server's own explanation in a response body: OpenAI, DeepSeek and DashScope send
 * `{ error: { message, code } }`; others send `{ message }`, `{ detail }` (FastAPI-based servers) or
 * plain text.
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
