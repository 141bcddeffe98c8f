import type { ChatSnapshot } from './chat-snapshot.ts';

/**
 * The chat page's snapshot, with changes batched to one render per frame (streams deliver far more
 * events than frames): `ChatController` writes through `update` and reads `current`, React reads
 * `snapshot` and subscribes. Kept apart from the controller, which is about what changes the page
 * rather than when the page hears of it.
 */
export class SnapshotFrames {
  readonly #listeners = new Set<() => void>();
  /** The controller's `scheduleFrame` option, read at each batch; requestAnimationFrame without it. */
  readonly #scheduleFrame: () => ((callback: () => void) => void) | undefined;
  #snapshot: ChatSnapshot;
  #pending: Partial<ChatSnapshot> | null = null;
  #frameScheduled = false;

  constructor(initial: ChatSnapshot, scheduleFrame: () => ((callback: () => void) => void) | undefined) {
    this.#snapshot = initial;
    this.#scheduleFrame = scheduleFrame;
  }

  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** What the screen shows. */
  get snapshot(): ChatSnapshot {
    return this.#snapshot;
  }

  /** The current view including changes not yet flushed to the screen. */
  get current(): ChatSnapshot {
    return this.#pending ? { ...this.#snapshot, ...this.#pending } : this.#snapshot;
  }

  update(change: Partial<ChatSnapshot>): void {
    this.#pending = { ...this.#pending, ...change };
    if (this.#frameScheduled) return;
    this.#frameScheduled = true;
    const schedule = this.#scheduleFrame() ?? defaultScheduleFrame;
    schedule(() => this.#flush());
  }

  #flush(): void {
    this.#frameScheduled = false;
    if (this.#pending === null) return;
    this.#snapshot = { ...this.#snapshot, ...this.#pending };
    this.#pending = null;
    for (const listener of this.#listeners) listener();
  }
}

function defaultScheduleFrame(callback: () => void): void {
  // A hidden tab gets no animation frames; a timer keeps its state current for when it is shown.
  if (typeof document !== 'undefined' && document.visibilityState === 'hidden') setTimeout(callback, 50);
  else if (typeof requestAnimationFrame === 'function') requestAnimationFrame(callback);
  else setTimeout(callback, 16);
}
