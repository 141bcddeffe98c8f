import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createOrderService, type JournalEntry, OrderBook } from './order-service.ts';

export interface OrderServiceHttp {
  /** The MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
  url: string;
  book: OrderBook;
  /** Requests' `authorization` headers, as the service received them. */
  authorizations: (string | undefined)[];
  /** Requests refused with 404 because their session is unknown (e.g. from before a restart). */
  sessionsRefused: number;
  close(): Promise<void>;
  /** Forget every session, as a server restarted behind a load balancer would (404 for them). */
  forgetSessions(): void;
  /** Go away as a crashed process would: every connection cut, no session closed cleanly. */
  crash(): Promise<void>;
}

/**
 * The order service over Streamable HTTP, stateful: each session (one `initialize`) gets its own
 * `McpServer` and transport, so a `notifications/cancelled` reaches the handler of its request.
 */
export async function startOrderServiceHttp(
  journal: (entry: JournalEntry) => void,
  options: {
    port?: number;
    book?: OrderBook;
    /** Offer the standalone GET event stream (default true); without it a client sees no restart. */
    standaloneSse?: boolean;
  } = {},
): Promise<OrderServiceHttp> {
  const book = options.book ?? new OrderBook();
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const authorizations: (string | undefined)[] = [];
  const server: Server = createServer((request, response) => {
    void (async () => {
      if (new URL(request.url ?? '/', 'http://localhost').pathname !== '/mcp') {
        response.writeHead(404).end();
        return;
      }
      authorizations.push(request.headers.authorization);
      // No idle keep-alive sockets: after a simulated crash the client's next request opens a new
      // socket (refused, or answered by the revived service) instead of failing on a stale one.
      response.setHeader('connection', 'close');
      if (request.method === 'GET' && options.standaloneSse === false) {
        response.writeHead(405, { allow: 'POST, DELETE' }).end();
        return;
      }
      const sessionId = request.headers['mcp-session-id'];
      let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
      if (transport === undefined) {
        if (sessionId !== undefined || request.method !== 'POST') {
          if (sessionId !== undefined) handle.sessionsRefused += 1;
          response.writeHead(404, { 'content-type': 'application/json' }).end(
            JSON.stringify({
              jsonrpc: '2.0',
              error: { code: -32001, message: 'Session not found' },
              id: null,
            }),
          );
          return;
        }
        const created = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => {
            sessions.set(id, created);
          },
        });
        created.onclose = () => {
          if (created.sessionId !== undefined) sessions.delete(created.sessionId);
        };
        await createOrderService(book, journal).connect(created);
        transport = created;
      }
      await transport.handleRequest(request, response);
    })().catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  const handle: OrderServiceHttp = {
    url: `http://127.0.0.1:${port}/mcp`,
    book,
    authorizations,
    sessionsRefused: 0,
    async close() {
      await Promise.all([...sessions.values()].map((transport) => transport.close().catch(() => undefined)));
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
    forgetSessions() {
      sessions.clear();
    },
    async crash() {
      const closed = new Promise((resolve) => server.close(resolve));
      server.closeAllConnections();
      await closed;
    },
  };
  return handle;
}
