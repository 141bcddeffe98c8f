import type { RunPatch, RunStore } from '../../store/index.ts';
import type { RunLog } from '../log/run-log.ts';
import type { RunOutcome } from './drive-run.ts';
import type { StoredRunOptions } from './run-options.ts';
import { saveStretchEnd } from './save-stretch-end.ts';

/** How often a stretch's ending is written before the store is given up on (backoff 0.2 s … 3.2 s). */
export const STRETCH_END_ATTEMPTS = 5;
/**
 * After that, how many more rounds (one every 3.2 s, about half a minute) the store is offered the
 * whole ending again, or at least the run's `failed`, when it refuses even that (a lock another
 * process holds, an outage).
 */
export const GIVE_UP_ROUNDS = 10;

export interface SettleStretchOptions {
  store: RunStore;
  log: RunLog;
  conversationId: string;
  outcome: RunOutcome;
  runOptions: StoredRunOptions;
  /** Writes the run's status; in shared mode only while this instance holds the run's lease. */
  finishRun: (patch: RunPatch) => Promise<void>;
  /** The lastSeq the boundary writes already stored the message at (see `saveStretchEnd`). */
  persistedThrough: number;
  /** False when another instance took the run over while this one hung: the ending is theirs. */
  stillOwned: () => Promise<boolean>;
  onError?: ((runId: string, error: unknown) => void) | undefined;
  /** Waits between attempts; the default doubles from 200 ms. */
  backoffMs?: (attempt: number) => number;
}

/**
 * Persist how a stretch of a run ended, once its own writes have drained. A database that blinks (a
 * failover, a restart) must not cost the ending the shopper saw: the writes are idempotent, so they
 * are retried a few times. If the store still refuses, the run is marked `failed` so the conversation
 * is free, rather than left `running` until the next start-up's recovery interrupts it; a store that
 * refuses that too is offered the ending, or `failed`, for about half a minute more.
 *
 * Resolves to false when the run was not this instance's to finish any more.
 */
export async function settleStretch(options: SettleStretchOptions): Promise<boolean> {
  const { store, log, onError } = options;
  const runId = log.runId;
  const backoffMs = options.backoffMs ?? ((attempt: number) => 100 * 2 ** attempt);
  const wait = (attempt: number) => new Promise((resolve) => setTimeout(resolve, backoffMs(attempt)));
  const saveEnding = () =>
    saveStretchEnd(
      store,
      log,
      options.conversationId,
      options.outcome,
      options.runOptions,
      options.finishRun,
      options.persistedThrough,
    );
  try {
    if (!(await options.stillOwned())) return false;
    for (let attempt = 1; ; attempt += 1) {
      try {
        await saveEnding();
        return true;
      } catch (error) {
        if (attempt >= STRETCH_END_ATTEMPTS) throw error;
        onError?.(runId, error);
        await wait(attempt);
      }
    }
  } catch (error) {
    onError?.(runId, error);
  }
  // Tried once only, a refused `failed` left the run `running` for good once the store was back (a
  // lock held through the ending, SQLITE_BUSY): every later message of the conversation was refused
  // as run_in_progress until a restart. So the store is offered it for a while longer, and first the
  // whole ending again, which is what the run's readers saw.
  for (let round = 0; ; round += 1) {
    if (round > 0) {
      await wait(STRETCH_END_ATTEMPTS);
      const ended = await saveEnding().then(
        () => true,
        () => false,
      );
      if (ended) return true;
    }
    try {
      await store.updateRun(runId, { status: 'failed', lastSeq: log.lastSeq, leaseOwner: null });
      return true;
    } catch (error) {
      if (round >= GIVE_UP_ROUNDS) {
        onError?.(runId, error);
        return true;
      }
    }
  }
}
