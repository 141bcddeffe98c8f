/**
 * Preloaded into the load bench's server process (`NODE_OPTIONS=--import …`, see load-bench.ts),
 * nothing else: it watches the event loop's delay, and on SIGUSR2 writes one stderr line,
 * `{"benchLoad":{…}}`, with RSS and the delay's percentiles since the last line, then starts over.
 * So the bench reads the server's own event-loop delay without a change to the server. Plain
 * JavaScript: it loads before tsx does.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

const histogram = monitorEventLoopDelay({ resolution: 1 });
histogram.enable();

process.on('SIGUSR2', () => {
  const toMs = (nanoseconds) => Math.round((nanoseconds / 1e6) * 10) / 10;
  const line = {
    benchLoad: {
      rss: process.memoryUsage().rss,
      loopDelayP50Ms: toMs(histogram.percentile(50)),
      loopDelayP99Ms: toMs(histogram.percentile(99)),
      loopDelayMaxMs: toMs(histogram.max),
    },
  };
  histogram.reset();
  process.stderr.write(`${JSON.stringify(line)}\n`);
});
