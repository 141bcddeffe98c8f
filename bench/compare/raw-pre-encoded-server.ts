/**
 * Contender `raw pre-encoded`: the run's SSE frames encoded once, when the workload arrives, with
 * `encodeRunEventSse`; every request writes the same Buffers. The floor for "bytes onto sockets".
 */
import { encodeRunEventSse } from '../../src/protocol/index.ts';
import { runRawChild } from './raw-server.ts';

await runRawChild((workload) => {
  const frames = workload.events.map((event, index) =>
    Buffer.from(encodeRunEventSse(event, index === 0 ? { retry: workload.retryMs } : {})),
  );
  const encoded = { count: frames.length, frameAt: (index: number) => frames[index] as Buffer };
  return () => encoded;
});
