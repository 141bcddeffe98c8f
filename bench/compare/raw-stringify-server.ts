/**
 * Contender `raw stringify`: every stream serialises every event itself (`encodeRunEventSse`, that is
 * `JSON.stringify` into an `id:`/`event:`/`data:` frame) as it writes it. What a naive server pays.
 */
import { encodeRunEventSse } from '../../src/protocol/index.ts';
import { runRawChild } from './raw-server.ts';

await runRawChild((workload) => () => ({
  count: workload.events.length,
  frameAt: (index: number) =>
    encodeRunEventSse(
      workload.events[index] as (typeof workload.events)[number],
      index === 0 ? { retry: workload.retryMs } : {},
    ),
}));
