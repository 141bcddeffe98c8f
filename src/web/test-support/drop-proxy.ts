import { connect, createServer, type Server, type Socket } from 'node:net';

export interface DropProxy {
  /** The proxy's origin; point the browser here instead of at the server. */
  url: string;
  /** Cut every open connection at once, as a lost network or a restarted load balancer would. */
  dropAll(): number;
  close(): Promise<void>;
}

/**
 * A TCP proxy in front of a real server, so a test can drop the browser's connections mid-stream
 * without touching the server (the run must go on there, and the page must resume by itself).
 */
export async function startDropProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<DropProxy> {
  const pairs = new Set<[Socket, Socket]>();
  const server: Server = createServer((client) => {
    const upstream = connect(targetPort, targetHost);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy has no TCP address');
  return {
    url: `http://127.0.0.1:${address.port}`,
    dropAll() {
      const count = pairs.size;
      for (const [client, upstream] of [...pairs]) {
        // A reset, not a polite FIN: the browser sees the response body fail mid-frame.
        client.resetAndDestroy();
        upstream.destroy();
      }
      pairs.clear();
      return count;
    },
    async close() {
      for (const [client, upstream] of pairs) {
        client.destroy();
        upstream.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
