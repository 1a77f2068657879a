import { afterEach, describe, expect, it, vi } from 'vitest';
import { ShelfRefresh } from './shelf-refresh.js';

describe('ShelfRefresh', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('reads once a refresh interval, one read at a time, and tells of a failed read', async () => {
    let now = 0;
    const errors: unknown[] = [];
    const read = vi.fn(async (_at: number) => {
      if (now >= 10_000) throw new Error('store down');
    });
    const refresh = new ShelfRefresh({
      read,
      clock: () => now,
      refreshMs: 5_000,
      onError: (e) => errors.push(e),
    });
    expect(refresh.stale()).toBe(true);
    await Promise.all([refresh.fresh(), refresh.fresh()]);
    expect(read).toHaveBeenCalledTimes(1);
    expect(refresh.stale()).toBe(false);
    now = 4_999;
    await refresh.fresh();
    expect(read).toHaveBeenCalledTimes(1);
    now = 10_000;
    await refresh.fresh();
    expect(read).toHaveBeenLastCalledWith(10_000);
    expect(errors).toHaveLength(1);
    // A failed read is tried again after an interval, not at every ask.
    expect(refresh.stale()).toBe(false);
  });

  it('holds a search no longer than its wait when the shelf does not answer', async () => {
    vi.useFakeTimers();
    const refresh = new ShelfRefresh({
      read: () => new Promise<void>(() => {}),
      clock: () => 0,
      refreshMs: 5_000,
      onError: () => {},
    });
    let done = false;
    void refresh.fresh().then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(done).toBe(true);
  });
});
