/**
 * The two raw baselines' common part: a bare `node:http` server that answers every request with one
 * run's SSE frames, writing as fast as the socket takes them and waiting for 'drain' whenever
 * `write()` returns false. Only how a frame is produced differs (`frameAt`).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SSE_CONTENT_TYPE } from '../../src/protocol/index.ts';
import type { ClientRequest } from '../server-bench-client.ts';
import { type ChildHandlers, runChild, type Workload } from './child-protocol.ts';

export interface RawFrames {
  count: number;
  /** The frame at `index`, produced however the baseline does it (per request, or once up front). */
  frameAt(index: number): Buffer | string;
}

function rawServer(framesOf: () => RawFrames): Server {
  return createServer((request, response) => {
    request.resume();
    const frames = framesOf();
    response.writeHead(200, {
      'content-type': `${SSE_CONTENT_TYPE}; charset=utf-8`,
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
    });
    response.flushHeaders();
    let index = 0;
    let closed = false;
    response.on('close', () => {
      closed = true;
    });
    const writeSome = () => {
      while (index < frames.count && !closed) {
        const ok = response.write(frames.frameAt(index));
        index += 1;
        if (!ok) {
          response.once('drain', writeSome);
          return;
        }
      }
      if (!closed) response.end();
    };
    writeSome();
  });
}

/** Runs a raw baseline child: `prepare` is given the workload once, before any request is timed. */
export async function runRawChild(makeFrames: (workload: Workload) => () => RawFrames): Promise<void> {
  let framesOf: (() => RawFrames) | undefined;
  const server = rawServer(() => {
    if (!framesOf) throw new Error('no workload yet');
    return framesOf();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const handlers: ChildHandlers = {
    workload(workload) {
      framesOf = makeFrames(workload);
    },
    prepare(n): ClientRequest[] {
      return Array.from({ length: n }, () => ({
        url: `${url}/stream`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: '我的订单发货了吗？' }),
      }));
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  runChild(url, handlers);
}
