import type { ControlChannel, ControlSignal } from './control-channel.ts';

/** The in-process control channel: one instance hears its own signals. */
export class MemoryControlChannel implements ControlChannel {
  readonly #listeners = new Set<(signal: ControlSignal) => void>();

  async publish(signal: ControlSignal): Promise<void> {
    const copy = { ...signal };
    // Delivered on a later turn, as a network hop would be: a publisher never runs listeners inline.
    queueMicrotask(() => {
      for (const listener of this.#listeners) listener({ ...copy });
    });
  }

  async subscribe(listener: (signal: ControlSignal) => void): Promise<() => void> {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.#listeners.clear();
  }
}
