import type { ControlChannel } from '../../bus/index.ts';
import type { RunRecord, RunStore } from '../../store/index.ts';
import { ownedRun } from './owned-run.ts';
import type { RunDriver } from './run-driver.ts';

/**
 * A stop (`RunManager.cancel`, under the run's lock): a run driven here is aborted; one another
 * instance drives gets a stop request in the store and a signal to its owner, and is awaited; a
 * paused one is ended here. Resolves with the run as the store then has it.
 */
export class RunStopper {
  readonly #store: RunStore;
  readonly #control: ControlChannel;
  readonly #driver: RunDriver;
  readonly #onError: ((runId: string, error: unknown) => void) | undefined;

  constructor(
    store: RunStore,
    control: ControlChannel,
    driver: RunDriver,
    onError: ((runId: string, error: unknown) => void) | undefined,
  ) {
    this.#store = store;
    this.#control = control;
    this.#driver = driver;
    this.#onError = onError;
  }

  async cancel(userId: string, runId: string, reason: string): Promise<RunRecord> {
    const store = this.#store;
    await this.#driver.stopAndSettle(runId, reason);
    let run = await ownedRun(store, userId, runId);
    if (run.status === 'running' && this.#driver.live(runId) === undefined) {
      await store.transitionRun(
        runId,
        { status: ['running'], noStopRequested: true },
        { stopRequested: reason },
      );
      // A lost signal only delays the stop until the owner's next lease renewal reads the store.
      await this.#control.publish({ runId, kind: 'stop' }).catch((error: unknown) => {
        this.#onError?.(runId, error);
      });
      await this.#driver.awaitStretchEnd(run);
      run = await ownedRun(store, userId, runId);
    }
    // A paused run has no owner: the instance that receives the stop ends it.
    if (run.status === 'paused') await this.#driver.cancelPaused(run, reason);
    await this.#driver.auditIdle(runId);
    return (await store.getRun(runId)) as RunRecord;
  }
}
