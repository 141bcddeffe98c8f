/**
 * Preloaded into the scale bench's server processes (`NODE_OPTIONS=--import …`, see `cluster.ts`),
 * nothing else: on SIGUSR2 it runs two full garbage collections and writes one stderr line,
 * `{"benchMemory":{…}}`, with `process.memoryUsage()` after them. So the bench can read a child's
 * memory after a GC without a change to the server. Plain JavaScript: it loads before tsx does.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
/** `gc` exists in contexts created after the flag is set. */
const gc = runInNewContext('gc');

process.on('SIGUSR2', () => {
  gc();
  setImmediate(() => {
    gc();
    const { rss, heapTotal, heapUsed, external, arrayBuffers } = process.memoryUsage();
    process.stderr.write(
      `${JSON.stringify({ benchMemory: { rss, heapTotal, heapUsed, external, arrayBuffers } })}\n`,
    );
  });
});
