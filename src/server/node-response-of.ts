import { ServerResponse } from 'node:http';

/**
 * Node's response for this request when the app runs on `@hono/node-server` over HTTP/1 (it passes
 * `{ incoming, outgoing }` as the context's env); `undefined` elsewhere (`app.request` in tests,
 * HTTP/2, other runtimes), where streams go through Web Streams instead.
 */
export function nodeResponseOf(context: { env: unknown }): ServerResponse | undefined {
  const outgoing = (context.env as { outgoing?: unknown } | undefined)?.outgoing;
  return outgoing instanceof ServerResponse ? outgoing : undefined;
}
