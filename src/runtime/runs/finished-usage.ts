import type { TokenUsage } from '../../protocol/index.ts';
import type { RunLog } from '../log/run-log.ts';

/**
 * `run.finished`'s `usage`: the run's total so far, as the log reduced it from every `step.finished`
 * of every stretch (a log continued after a pause or a restart starts from the persisted message,
 * which holds the earlier stretches' sum). Absent when no step reported usage, never zeros; a step
 * cut short by a stop or a failure reported none, so it is not in it.
 */
export function finishedUsage(log: RunLog): { usage?: TokenUsage } {
  const usage = log.state.usage;
  return usage === null ? {} : { usage };
}
