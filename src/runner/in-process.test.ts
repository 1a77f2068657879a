import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../test/support/memory-store.js';
import { queuedSearch } from '../../test/support/search-job.js';
import { InProcessRunner } from './in-process.js';
import { SearchCancelledError } from './search-job.js';

/** A runner of one slot and no queue whose searches end when the test says, their job returning later. */
async function oneSlot() {
  const store = new MemoryStore();
  const returns = new Map<string, () => void>();
  const runner = new InProcessRunner(
    store,
    (search, signal) =>
      new Promise<void>((resolve, reject) => {
        returns.set(search.id, resolve);
        signal.addEventListener('abort', () => reject(new SearchCancelledError('stopped')), { once: true });
      }),
    { maxRunning: 1, maxQueued: 0, retryAfterSeconds: 5 },
  );
  await runner.start();
  const first = queuedSearch('s1', 'alice', ['p']);
  await store.createSearch(first);
  await runner.enqueue(first);
  return { store, runner, returns };
}

describe('the embedded runner at its limit', () => {
  it('refuses with queue_full while its one search runs', async () => {
    const { runner } = await oneSlot();
    await expect(runner.admit()).rejects.toMatchObject({ code: 'queue_full' });
    await runner.stop();
  });

  it('admits a search once the running one reads as ended, though its job has not returned yet', async () => {
    const { store, runner, returns } = await oneSlot();
    await store.updateSearch('s1', { state: 'completed', finishedAt: 1 });
    await expect(runner.admit()).resolves.toBeUndefined();
    const next = queuedSearch('s2', 'bob', ['p']);
    await store.createSearch(next);
    await runner.enqueue(next);
    expect(await runner.stats()).toEqual({ queued: 1, running: 1 });
    // The job's return gives the slot to the search that waited.
    returns.get('s1')?.();
    await expect.poll(() => returns.has('s2')).toBe(true);
    expect(await runner.stats()).toEqual({ queued: 0, running: 1 });
    returns.get('s2')?.();
    await runner.stop();
  });
});
