import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * What the Node adapter (`runstream/node`: `serve`, `toNodeHandler`) passes beside each Web request,
 * as `@hono/node-server` does: Node's own request and response, so a run stream can be written
 * straight into the socket and a body read without a Web stream over it, and the host app's `next`
 * (Express, Connect) for failures that are its error handler's business.
 *
 * Recognised by shape, not by `instanceof`: the Web-standard core imports nothing from Node.
 */
export interface NodeBinding {
  incoming: IncomingMessage;
  outgoing: ServerResponse;
  next?: (error?: unknown) => void;
}

/** Node's response for this request when it came through the Node adapter over HTTP/1; else `undefined`. */
export function nodeResponseOf(context: { env: unknown }): ServerResponse | undefined {
  const outgoing = (context.env as { outgoing?: unknown } | undefined)?.outgoing;
  return isNodeResponse(outgoing) ? outgoing : undefined;
}

/** Node's request under this context's Web request, in the same cases as `nodeResponseOf`. */
export function nodeRequestOf(context: { env: unknown }): IncomingMessage | undefined {
  const env = context.env as { incoming?: unknown; outgoing?: unknown } | undefined;
  const incoming = env?.incoming;
  return isNodeResponse(env?.outgoing) && isNodeRequest(incoming) ? incoming : undefined;
}

/** What `readJsonBody` reads a request's body from. */
export function bodyOf(context: { env: unknown; req: { raw: Request } }): {
  request: Request;
  incoming: IncomingMessage | undefined;
} {
  return { request: context.req.raw, incoming: nodeRequestOf(context) };
}

function isNodeResponse(value: unknown): value is ServerResponse {
  const candidate = value as Partial<ServerResponse> | null | undefined;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    typeof candidate.writeHead === 'function' &&
    typeof candidate.setHeader === 'function' &&
    typeof candidate.headersSent === 'boolean'
  );
}

function isNodeRequest(value: unknown): value is IncomingMessage {
  const candidate = value as Partial<IncomingMessage> | null | undefined;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    typeof candidate.on === 'function' &&
    typeof candidate.headers === 'object' &&
    typeof candidate.method === 'string'
  );
}
