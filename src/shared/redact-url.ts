/**
 * A connection URL without its password, for messages and logs: a database or Redis URL that fails
 * at start is named, never its secret.
 */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(an unparsable URL)';
  }
}
