import type { IncomingMessage, ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import type { Runstream } from '../server/create-runstream.ts';

/** What `toNodeHandler` hands to `authenticate` beside the Web request. */
export interface NodeContext {
  /** Node's request: whatever your middleware put on it (`req.user`, `req.session`) is here. */
  incoming: IncomingMessage;
  outgoing: ServerResponse;
}

/** A Node request handler, for `node:http`, Express and Connect (`next`), and Fastify's raw objects. */
export type NodeHandler = (
  request: IncomingMessage,
  response: ServerResponse,
  next?: (error?: unknown) => void,
) => Promise<void>;

/**
 * runstream as a Node request handler, behind your app's own middleware:
 *
 * ```js
 * app.use('/support', requireLogin, toNodeHandler(runstream)); // Express 5
 * ```
 *
 * It answers from the full URL (Express's `req.originalUrl`), so give `createRunstream` the same
 * `basePath`. Headers your middleware set stay on every response; run streams go straight into
 * Node's response (no Web stream per follower) and carry `Cache-Control: no-transform`, which
 * `compression` and proxies honour, so no event waits in a compressor. A body your body parser
 * already read (`req.body`) is taken as parsed. A failure runstream did not plan for goes to `next`
 * (your error handler); the API's own errors (400, 401, 404, 409, 429) answer in its documented
 * JSON shape, since its clients rely on it.
 */
export function toNodeHandler(runstream: Pick<Runstream<NodeContext>, 'fetch'>): NodeHandler {
  const listen = (next: ((error?: unknown) => void) | undefined) =>
    getRequestListener(
      (request, env) => runstream.fetch(request, { ...env, ...(next ? { next } : {}) } as NodeContext),
      {
        // Another app's process: leave its global Request and Response alone.
        overrideGlobalObjects: false,
        ...(next === undefined ? {} : { errorHandler: (error: unknown) => next(error) }),
      },
    );
  const plain = listen(undefined);
  return (incoming, outgoing, next) => {
    const listener = next === undefined ? plain : listen(next);
    // Express strips the mount path from `req.url`; the Web request is made from the full one.
    const original = (incoming as IncomingMessage & { originalUrl?: string }).originalUrl;
    if (original === undefined || original === incoming.url) return listener(incoming, outgoing);
    const mounted = incoming.url;
    incoming.url = original;
    try {
      // The Web request reads the URL synchronously, before the first await.
      return listener(incoming, outgoing);
    } finally {
      incoming.url = mounted;
    }
  };
}
