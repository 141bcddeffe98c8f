/**
 * Work per key, one item at a time, in the order queued: a run's state writes land in event order,
 * its audit entries in outcome order, its decisions and stops one after another. Keys whose queue
 * drained are forgotten, so a long-lived process keeps nothing per finished run.
 */
export class KeyedSerialQueue {
  readonly #tails = new Map<string, Promise<unknown>>();

  /** Run `work` after everything queued before it under `key`; its result or error is the caller's. */
  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const result = previous.then(work, work);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return result;
  }

  /** Resolves once everything queued so far under `key` has run. */
  async idle(key: string): Promise<void> {
    await this.#tails.get(key);
  }
}
