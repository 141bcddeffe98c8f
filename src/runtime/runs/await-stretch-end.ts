import type { RunRecord, RunStore } from '../../store/index.ts';
import type { RunLog } from '../log/run-log.ts';

/**
 * Until the run's current stretch has ended (finished or paused), as this process's copy of its log
 * hears it, or the store says it no longer runs; at most `limitMs`. Looks at the store every
 * `checkMs` too, in case the copy hears nothing more (its owner died and the takeover is elsewhere).
 */
export async function awaitStretchEnd(
  store: RunStore,
  run: RunRecord,
  logOf: (run: RunRecord) => Promise<RunLog>,
  options: { limitMs: number; checkMs: number; stopped?: () => boolean },
): Promise<void> {
  const deadline = Date.now() + options.limitMs;
  while (Date.now() < deadline && options.stopped?.() !== true) {
    const current = await store.getRun(run.id);
    if (current === undefined || current.status !== 'running') return;
    const log = await logOf(current);
    if (log.finished || log.paused) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, options.checkMs);
      const unsubscribe = log.subscribe((event) => {
        if (event.type === 'run.finished' || event.type === 'run.paused') done();
      }, done);
      function done() {
        clearTimeout(timer);
        unsubscribe();
        resolve();
      }
    });
  }
}
