import type { RunRecord, RunStore } from '../../store/index.ts';

export interface RunLeaseKeeperOptions {
  store: RunStore;
  instanceId: string;
  /** How long a lease lasts without renewal. */
  leaseMs: number;
  /** The runs this instance drives now. */
  liveRunIds: () => Iterable<string>;
  /** A renewal found a stop requested elsewhere (`reason`), or found the lease gone (`undefined`). */
  onStopRequested: (runId: string, reason: string) => void;
  onLeaseLost: (runId: string) => void;
  /** A run whose lease lapsed and that this instance now holds: finish it as interrupted. */
  onTakenOver: (run: RunRecord) => Promise<void>;
  onError?: (runId: string, error: unknown) => void;
  now?: () => number;
}

/**
 * Run ownership between instances. Each running run carries a lease (holder, expiry) in the store;
 * the holder renews its leases every third of the lease time, and every instance looks for leases
 * that lapsed (their holder died or hangs) and takes such a run over with a compare-and-set, so
 * exactly one instance finishes it. The renewal is also where a stop requested on another
 * instance is seen when its signal was lost.
 */
export class RunLeaseKeeper {
  readonly #options: RunLeaseKeeperOptions;
  readonly #now: () => number;
  #renewTimer: ReturnType<typeof setInterval> | undefined;
  #sweepTimer: ReturnType<typeof setInterval> | undefined;
  #sweeping: Promise<void> | undefined;

  constructor(options: RunLeaseKeeperOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** The expiry a lease taken or renewed now gets. */
  expiresAt(): number {
    return this.#now() + this.#options.leaseMs;
  }

  start(): void {
    if (this.#renewTimer !== undefined) return;
    const { leaseMs } = this.#options;
    this.#renewTimer = setInterval(() => void this.renew(), Math.max(50, Math.floor(leaseMs / 3)));
    this.#sweepTimer = setInterval(() => void this.sweep(), Math.max(50, Math.floor(leaseMs / 2)));
    this.#renewTimer.unref?.();
    this.#sweepTimer.unref?.();
  }

  stop(): void {
    clearInterval(this.#renewTimer);
    clearInterval(this.#sweepTimer);
    this.#renewTimer = undefined;
    this.#sweepTimer = undefined;
  }

  /** Renew the lease of every run this instance drives. */
  async renew(): Promise<void> {
    const { store, instanceId } = this.#options;
    for (const runId of [...this.#options.liveRunIds()]) {
      try {
        const renewed = await store.transitionRun(
          runId,
          { status: ['running'], leaseOwner: instanceId },
          { leaseExpiresAt: this.expiresAt() },
        );
        if (renewed === undefined) {
          const run = await store.getRun(runId);
          // Paused or finished meanwhile by this instance itself: nothing to do.
          if (run?.status === 'running') this.#options.onLeaseLost(runId);
          continue;
        }
        if (renewed.stopRequested !== null) this.#options.onStopRequested(runId, renewed.stopRequested);
      } catch (error) {
        // The store is unreachable: keep driving; a lease that lapses meanwhile is taken over.
        this.#options.onError?.(runId, error);
      }
    }
  }

  /** Take over every running run whose lease lapsed; resolves when each is finished. */
  async sweep(): Promise<void> {
    this.#sweeping ??= this.#sweep().finally(() => {
      this.#sweeping = undefined;
    });
    return this.#sweeping;
  }

  async #sweep(): Promise<void> {
    const { store, instanceId } = this.#options;
    let running: RunRecord[];
    try {
      running = await store.listRunsByStatus('running');
    } catch (error) {
      this.#options.onError?.('', error);
      return;
    }
    const now = this.#now();
    const live = new Set(this.#options.liveRunIds());
    for (const run of running) {
      if (live.has(run.id)) continue;
      if (run.leaseExpiresAt !== null && run.leaseExpiresAt >= now) continue;
      try {
        const taken = await store.transitionRun(
          run.id,
          { status: ['running'], leaseExpiredBefore: now },
          { leaseOwner: instanceId, leaseExpiresAt: this.expiresAt() },
        );
        if (taken !== undefined) await this.#options.onTakenOver(taken);
      } catch (error) {
        this.#options.onError?.(run.id, error);
      }
    }
  }
}
