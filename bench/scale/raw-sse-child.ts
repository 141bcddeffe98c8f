import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The floor for the scale bench's memory section: a bare `node:http` server that holds every request
 * as an SSE stream: the `retry:` frame, then one event frame (about the size of a delta of the demo
 * answer, encoded once) written to every open stream each `RAW_SSE_INTERVAL_MS`, as the slow run does.
 * No framework, no run log, no auth: what an open SSE connection costs Node itself. Prints `{url}` on
 * its first stdout line and exits on SIGTERM.
 */
const intervalMs = Number(process.env.RAW_SSE_INTERVAL_MS ?? 500);
const frame = Buffer.from(
  `id: 42\nevent: block.delta\ndata: ${JSON.stringify({
    type: 'block.delta',
    runId: 'run_0123456789abcdef0123',
    seq: 42,
    at: Date.now(),
    blockId: 'blk_0123456789abcdef0123',
    delta: { text: '退货请在签收' },
  })}\n\n`,
);
const open = new Set<ServerResponse>();

const server = createServer((request, response) => {
  request.resume();
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    'x-accel-buffering': 'no',
  });
  response.write('retry: 1000\n\n');
  open.add(response);
  response.on('close', () => open.delete(response));
});
setInterval(() => {
  for (const response of open) response.write(frame);
}, intervalMs).unref();

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}`, token: '' })}\n`);
});
process.once('SIGTERM', () => {
  for (const response of open) response.destroy();
  server.close(() => process.exit(0));
});
