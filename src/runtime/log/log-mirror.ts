import { type EventLog, EventLogConflict, endsStretch } from '../../bus/index.ts';
import type { LoggedRunEvent } from '../../protocol/index.ts';

export interface LogMirrorOptions {
  eventLog: EventLog;
  runId: string;
  /** Another writer appended to the run's shared log: this instance no longer drives the run. */
  onLost: (error: EventLogConflict) => void;
  /** The shared log stayed unreachable past `giveUpMs`: the run cannot be followed elsewhere. */
  onUnreachable: (error: unknown) => void;
  /** Default 10 s. */
  giveUpMs?: number;
}

/**
 * Copies the events the owner's run log stamps into the shared `EventLog`, in order: the events of
 * one turn of the event loop (a burst of deltas) go in one append, so the shared log costs one
 * round trip per burst, not per delta. A failed append is retried with the same events (the seq
 * check makes a retry of an append that did land a conflict we recognise) until `giveUpMs`.
 */
export class LogMirror {
  readonly #options: LogMirrorOptions;
  #pending: LoggedRunEvent[] = [];
  /** The stretch's end and whatever follows it, held until `release`. */
  #held: LoggedRunEvent[] = [];
  #flushing: Promise<void> = Promise.resolve();
  #scheduled = false;
  #stopped = false;
  /** After the first append of this stretch landed, Redis's id order is check enough (see `AppendOptions`). */
  #checked = false;

  constructor(options: LogMirrorOptions) {
    this.#options = options;
  }

  /**
   * Queue an event for the shared log. A stretch's end (`run.finished`, `run.paused`) is held until
   * `release`: the owner first saves the ending in the store, so an instance that sees the end can
   * act on it at once (a new message, a decision) and finds the store agreeing.
   */
  push(event: LoggedRunEvent): void {
    if (this.#stopped) return;
    if (this.#held.length > 0 || endsStretch(event)) {
      this.#held.push(event);
      return;
    }
    this.#enqueue(event);
  }

  /** Let the held end of the stretch through (the store has it now). */
  release(): void {
    const held = this.#held;
    this.#held = [];
    for (const event of held) this.#enqueue(event);
  }

  #enqueue(event: LoggedRunEvent): void {
    if (this.#stopped) return;
    this.#pending.push(event);
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      const batch = this.#pending;
      this.#pending = [];
      this.#flushing = this.#flushing.then(() => this.#append(batch));
    });
  }

  /** Resolves once every event pushed so far is in the shared log (or the mirror gave up). */
  async flushed(): Promise<void> {
    while (this.#scheduled || this.#pending.length > 0) await new Promise((resolve) => setImmediate(resolve));
    await this.#flushing;
  }

  /** Stop copying (the run ended here, or another instance took it over). */
  stop(): void {
    this.#stopped = true;
    this.#pending = [];
    this.#held = [];
  }

  async #append(batch: LoggedRunEvent[]): Promise<void> {
    if (this.#stopped || batch.length === 0) return;
    const { eventLog, runId } = this.#options;
    const giveUpAt = Date.now() + (this.#options.giveUpMs ?? 10_000);
    for (let attempt = 0; !this.#stopped; attempt += 1) {
      try {
        await eventLog.append(runId, batch, { check: this.#checked ? 'follows' : 'continues' });
        this.#checked = true;
        return;
      } catch (error) {
        if (error instanceof EventLogConflict) {
          // Our own earlier attempt landed before its reply was lost: the log already ends here.
          const last = batch[batch.length - 1] as LoggedRunEvent;
          if (attempt > 0 && error.lastSeq === last.seq) return;
          this.stop();
          this.#options.onLost(error);
          return;
        }
        if (Date.now() >= giveUpAt) {
          this.stop();
          this.#options.onUnreachable(error);
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, Math.min(50 * 2 ** attempt, 1000)));
      }
    }
  }
}
