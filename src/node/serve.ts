import type { AddressInfo } from 'node:net';
import { serve as serveNode } from '@hono/node-server';
import type { Runstream } from '../server/create-runstream.ts';
import type { NodeContext } from './to-node-handler.ts';

export interface ServeOptions {
  /** Default `PORT` or 8787; 0 picks a free one. */
  port?: number;
  /** Default `HOST` or 127.0.0.1 (this machine only); `0.0.0.0` to listen on every interface. */
  host?: string;
}

export interface RunningServer {
  /** `http://127.0.0.1:8787`, with the port actually taken. */
  url: string;
  /** Stop taking connections, then close the runstream (the store and bus stay open: they are yours). */
  close(): Promise<void>;
}

/**
 * Serve a runstream on its own port with Node's HTTP server, after its agents are open (a
 * definition that cannot start rejects here, before anything listens).
 */
export async function serve(
  runstream: Pick<Runstream<NodeContext>, 'fetch' | 'ready' | 'close'>,
  options: ServeOptions = {},
): Promise<RunningServer> {
  await runstream.ready;
  const server = serveNode({
    fetch: (request, env) => runstream.fetch(request, env as NodeContext),
    port: options.port ?? Number(process.env.PORT ?? 8787),
    hostname: options.host ?? process.env.HOST ?? '127.0.0.1',
  });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${address.address.includes(':') ? `[${address.address}]` : address.address}:${address.port}`,
    async close() {
      await runstream.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
