import type { ToolAuditEntry, ToolAuditLog } from '../../store/index.ts';
import { KeyedSerialQueue } from '../runs/keyed-serial-queue.ts';

/** A run's audit entries, written in order and best effort: a failure is reported, never thrown. */
export class ToolAuditRecorder {
  readonly #audit: ToolAuditLog | undefined;
  readonly #onError: ((runId: string, error: unknown) => void) | undefined;
  readonly #queue = new KeyedSerialQueue();

  constructor(audit: ToolAuditLog | undefined, onError?: (runId: string, error: unknown) => void) {
    this.#audit = audit;
    this.#onError = onError;
  }

  get enabled(): boolean {
    return this.#audit !== undefined;
  }

  record(runId: string, entry: ToolAuditEntry): void {
    const audit = this.#audit;
    if (audit === undefined) return;
    void this.#queue
      .run(runId, () => audit.record(entry))
      .catch((error: unknown) => {
        try {
          this.#onError?.(runId, error);
        } catch {
          // Nothing more can be done about it.
        }
      });
  }

  /** Resolves once the run's entries recorded so far are written (or failed). */
  idle(runId: string): Promise<void> {
    return this.#queue.idle(runId);
  }
}
