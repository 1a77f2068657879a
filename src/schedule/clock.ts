/**
 * The time the scheduler reads and waits on: passed in, so its invariants can be
 * tested on a fake clock with stalls of any length.
 */

export interface Clock {
  /** Monotonic milliseconds. */
  now(): number;
  /** Calls `fn` after `ms`; the handle clears it. */
  setTimer(fn: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => performance.now(),
  setTimer: (fn, ms) => setTimeout(fn, ms),
  clearTimer: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** Waits `ms` on `clock`; an abort rejects with the signal's reason. */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  if (ms <= 0 && !signal) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      clock.clearTimer(timer);
      reject(signal?.reason);
    };
    const timer = clock.setTimer(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
