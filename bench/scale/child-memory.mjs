/**
 * Preloaded into the scale bench's server processes (`NODE_OPTIONS=--import …`, see `cluster.ts`),
 * nothing else: on SIGUSR2 it runs two full garbage collections and writes one stderr line,
 * `{"benchMemory":{…}}`, with `process.memoryUsage()` and the young generation's size after them. So the bench can read a child's
 * memory after a GC without a change to the server. Plain JavaScript: it loads before tsx does.
 */
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
/** `gc` exists in contexts created after the flag is set. */
const gc = runInNewContext('gc');

process.on('SIGUSR2', () => {
  gc();
  setImmediate(() => {
    gc();
    const { rss, heapTotal, heapUsed, external, arrayBuffers } = process.memoryUsage();
    // The young generation: V8 sizes it by the allocation rate (up to --max-semi-space-size), not
    // by what the process holds, so the bench reports RSS with and without it.
    const youngGeneration = getHeapSpaceStatistics()
      .filter((space) => space.space_name === 'new_space' || space.space_name === 'new_large_object_space')
      .reduce((sum, space) => sum + space.space_size, 0);
    process.stderr.write(
      `${JSON.stringify({ benchMemory: { rss, heapTotal, heapUsed, external, arrayBuffers, youngGeneration } })}\n`,
    );
  });
});
