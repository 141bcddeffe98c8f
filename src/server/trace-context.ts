/**
 * A request's trace id, from W3C `traceparent` (its 32-hex trace id) or `x-request-id`, else a new
 * one. It goes into the request log line, the run it starts (`run.started.traceId`), tool-call audit
 * entries and the response headers, so one id follows a request through every log.
 */
export function traceIdOf(headers: { get(name: string): string | null | undefined }): string {
  const traceparent = headers.get('traceparent')?.trim().toLowerCase();
  const match = traceparent ? /^[\da-f]{2}-([\da-f]{32})-[\da-f]{16}-[\da-f]{2}$/.exec(traceparent) : null;
  if (match?.[1] && !/^0+$/.test(match[1])) return match[1];
  const requestId = headers.get('x-request-id')?.trim();
  // Echoed into logs and headers: keep it to a safe, bounded alphabet.
  if (requestId && /^[\w.:@-]{1,128}$/.test(requestId)) return requestId;
  return newTraceId();
}

export function newTraceId(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}
