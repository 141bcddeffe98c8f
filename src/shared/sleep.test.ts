import { afterEach, describe, expect, it, vi } from 'vitest';
import { sleep } from './sleep.ts';

afterEach(() => {
  vi.useRealTimers();
});

describe('sleep', () => {
  it('resolves after the given time, not before', async () => {
    vi.useFakeTimers();
    let done = false;
    const sleeping = sleep(1000).then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await sleeping;
    expect(done).toBe(true);
  });

  it('rejects at once with the reason of a signal that has already aborted', async () => {
    const reason = new Error('stopped');
    await expect(sleep(60_000, AbortSignal.abort(reason))).rejects.toBe(reason);
  });

  it('rejects with the reason when the signal aborts during the wait, and clears its timer', async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const sleeping = sleep(60_000, controller.signal);
    const reason = new Error('user left');
    controller.abort(reason);
    await expect(sleeping).rejects.toBe(reason);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('stops listening to the signal once it has resolved', async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const removed = vi.spyOn(controller.signal, 'removeEventListener');
    const sleeping = sleep(10, controller.signal);
    await vi.advanceTimersByTimeAsync(10);
    await sleeping;
    expect(removed).toHaveBeenCalledWith('abort', expect.any(Function));
    controller.abort(new Error('too late'));
  });

  it('treats a negative time as zero', async () => {
    vi.useFakeTimers();
    const sleeping = sleep(-5);
    await vi.advanceTimersByTimeAsync(0);
    await expect(sleeping).resolves.toBeUndefined();
  });

  it('waits the longest timer there is instead of overflowing to 1 ms', async () => {
    vi.useFakeTimers();
    let done = false;
    void sleep(2 ** 40).then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(1000);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(2 ** 31 - 1 - 1000);
    expect(done).toBe(true);
  });
});
