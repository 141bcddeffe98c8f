/** Longer timers than 2^31 - 1 ms fire after 1 ms in Node and browsers. */
const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/** Resolves after `milliseconds`, or rejects with the signal's reason once it aborts. */
export function sleep(milliseconds: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.min(Math.max(0, milliseconds), MAX_TIMER_DELAY_MS),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
