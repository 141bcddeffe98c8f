import { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Node's response for this request when the app runs on `@hono/node-server` over HTTP/1 (it passes
 * `{ incoming, outgoing }` as the context's env); `undefined` elsewhere (`app.request` in tests,
 * HTTP/2, other runtimes), where streams go through Web Streams instead.
 */
export function nodeResponseOf(context: { env: unknown }): ServerResponse | undefined {
  const outgoing = (context.env as { outgoing?: unknown } | undefined)?.outgoing;
  return outgoing instanceof ServerResponse ? outgoing : undefined;
}

/** Node's request under this context's Web request, in the same cases as `nodeResponseOf`. */
export function nodeRequestOf(context: { env: unknown }): IncomingMessage | undefined {
  const incoming = (context.env as { incoming?: unknown } | undefined)?.incoming;
  return incoming instanceof IncomingMessage ? incoming : undefined;
}

/** What `readJsonBody` reads a request's body from. */
export function bodyOf(context: { env: unknown; req: { raw: Request } }): {
  request: Request;
  incoming: IncomingMessage | undefined;
} {
  return { request: context.req.raw, incoming: nodeRequestOf(context) };
}
