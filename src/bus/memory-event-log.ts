import type { LoggedRunEvent } from '../protocol/index.ts';
import {
  type AppendOptions,
  assertConsecutive,
  type EventLog,
  EventLogConflict,
  EventLogGap,
  type EventLogRead,
  endsStretch,
} from './event-log.ts';

export interface MemoryEventLogOptions {
  /** Events kept per run; older ones are dropped (readers get a snapshot). Default 10,000. */
  capacity?: number;
  /** How long a run's log stays after `expire`. Default 60 s. */
  ttlMs?: number;
}

interface RunEntries {
  /** `events[start…]` are held; the prefix is dropped in bulk, not one `splice` per append. */
  events: LoggedRunEvent[];
  start: number;
  waiters: Set<() => void>;
  expiry?: ReturnType<typeof setTimeout>;
}

/**
 * The in-process `EventLog`: one instance, nothing to start. Events are held by reference (the
 * process's run log made them), so a log costs an array slot per event, not a copy.
 */
export class MemoryEventLog implements EventLog {
  readonly #runs = new Map<string, RunEntries>();
  readonly #capacity: number;
  readonly #ttlMs: number;

  constructor(options: MemoryEventLogOptions = {}) {
    this.#capacity = options.capacity ?? 10_000;
    this.#ttlMs = options.ttlMs ?? 60_000;
  }

  async append(runId: string, events: readonly LoggedRunEvent[], options: AppendOptions = {}): Promise<void> {
    const first = events[0];
    if (first === undefined) return;
    assertConsecutive(runId, events);
    let entries = this.#runs.get(runId);
    if (entries === undefined) {
      entries = { events: [], start: 0, waiters: new Set() };
      this.#runs.set(runId, entries);
    }
    const last = entries.events[entries.events.length - 1];
    const held = last !== undefined && entries.start < entries.events.length;
    const refused =
      options.check === 'follows' ? first.seq <= (last?.seq ?? 0) : first.seq !== (last?.seq ?? 0) + 1;
    if (held && last !== undefined && refused) throw new EventLogConflict(runId, first.seq, last.seq);
    // A run that goes on (resumed after a pause) keeps its log: the expiry set at the pause is off.
    if (entries.expiry !== undefined) {
      clearTimeout(entries.expiry);
      delete entries.expiry;
    }
    entries.events.push(...events);
    const holding = entries.events.length - entries.start;
    if (holding > this.#capacity) entries.start += holding - this.#capacity;
    // Compact once the dropped prefix is as long as what is held: amortised O(1) per event.
    if (entries.start > this.#capacity) {
      entries.events = entries.events.slice(entries.start);
      entries.start = 0;
    }
    const waiters = [...entries.waiters];
    entries.waiters.clear();
    for (const wake of waiters) wake();
  }

  async read(runId: string, afterSeq: number): Promise<EventLogRead> {
    return this.#read(runId, afterSeq);
  }

  async *follow(
    runId: string,
    afterSeq: number,
    options: { signal?: AbortSignal } = {},
  ): AsyncIterable<LoggedRunEvent> {
    const { signal } = options;
    let cursor = afterSeq;
    while (signal?.aborted !== true) {
      const { events, complete, lastSeq } = this.#read(runId, cursor);
      if (!complete && lastSeq !== null) throw new EventLogGap(runId, cursor);
      for (const event of events) {
        yield event;
        cursor = event.seq;
        if (endsStretch(event)) return;
      }
      if (events.length === 0) await this.#nextAppend(runId, signal);
    }
  }

  async expire(runId: string): Promise<void> {
    const entries = this.#runs.get(runId);
    if (entries === undefined || entries.expiry !== undefined) return;
    entries.expiry = setTimeout(() => this.#runs.delete(runId), this.#ttlMs);
    entries.expiry.unref?.();
  }

  async close(): Promise<void> {
    for (const entries of this.#runs.values()) {
      if (entries.expiry !== undefined) clearTimeout(entries.expiry);
      for (const wake of entries.waiters) wake();
    }
    this.#runs.clear();
  }

  /** Runs whose log is held (for tests and the memory benchmark). */
  get size(): number {
    return this.#runs.size;
  }

  #read(runId: string, afterSeq: number): EventLogRead {
    const entries = this.#runs.get(runId);
    const oldest = entries?.events[entries.start];
    const newest = entries?.events[entries.events.length - 1];
    if (entries === undefined || oldest === undefined || newest === undefined)
      return { events: [], complete: false, lastSeq: null };
    if (afterSeq >= newest.seq) return { events: [], complete: true, lastSeq: newest.seq };
    const complete = afterSeq + 1 >= oldest.seq;
    const from = entries.start + Math.max(0, afterSeq + 1 - oldest.seq);
    return { events: entries.events.slice(from), complete, lastSeq: newest.seq };
  }

  #nextAppend(runId: string, signal: AbortSignal | undefined): Promise<void> {
    let entries = this.#runs.get(runId);
    if (entries === undefined) {
      // Following a run whose first events have not arrived yet.
      entries = { events: [], start: 0, waiters: new Set() };
      this.#runs.set(runId, entries);
    }
    const waiters = entries.waiters;
    return new Promise((resolve) => {
      const wake = () => {
        signal?.removeEventListener('abort', wake);
        waiters.delete(wake);
        resolve();
      };
      waiters.add(wake);
      signal?.addEventListener('abort', wake, { once: true });
    });
  }
}
