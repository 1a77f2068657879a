import { afterEach, describe, expect, it } from 'vitest';
import { MemoryStore } from '../../test/support/memory-store.js';
import type { SearchRecord } from '../store/store.js';
import type { Watchlist, WatchlistStore } from '../store/watchlists.js';
import { WatchlistScheduler } from './scheduler.js';

const T0 = Date.now();

function watchlist(names: string[]): Watchlist {
  return {
    id: 'w1',
    owner: 'key:k1',
    createdAt: T0,
    updatedAt: T0,
    spec: { names, intervalMs: 3_600_000, webhookSecret: 'whsec_0123456789abcdef', notify: 'changes' },
    state: { nextRunAt: T0, runs: 0, baseline: {} },
  };
}

/** The store's watchlists, counting the calls made to each method. */
function counted(watchlists: WatchlistStore): { store: WatchlistStore; calls: Map<string, number> } {
  const calls = new Map<string, number>();
  const store = new Proxy(watchlists, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.set(String(name), (calls.get(String(name)) ?? 0) + 1);
        return value.apply(target, args);
      };
    },
  });
  return { store, calls };
}

async function until(what: string, probe: () => Promise<boolean> | boolean, limitMs = 10_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

let scheduler: WatchlistScheduler | undefined;
afterEach(async () => {
  await scheduler?.stop();
  scheduler = undefined;
});

describe('the watchlist scheduler', () => {
  it('writes a run state when it changes, not on every tick while its searches run', async () => {
    const memory = new MemoryStore();
    const errors: unknown[] = [];
    const { store: watchlists, calls } = counted(memory.watchlists);
    await watchlists.createWatchlist(watchlist(['alice', 'bob']));
    const search = (id: string, username: string): SearchRecord => ({
      id,
      username,
      state: 'running',
      tier: 'professional',
      client: 'key:k1',
      platformIds: [],
      estimatedSeconds: 1,
      createdAt: Date.now(),
    });
    scheduler = new WatchlistScheduler({
      store: {
        watchlists,
        getSearch: (id) => memory.getSearch(id),
        listOutcomes: (id) => memory.listOutcomes(id),
      },
      startSearch: async (_w, username) => {
        await memory.createSearch(search(`s-${username}`, username));
        return { queryId: `s-${username}` };
      },
      now: Date.now,
      tickMs: 20,
      leaseMs: 60_000,
      maxRunMs: 600_000,
      retry: { baseMs: 50, maxMs: 200, retryForMs: 1_000 },
      webhookTimeoutMs: 1_000,
      allowPrivate: true,
      maxDeliveries: 1,
      maxDeliveriesPerKey: 1,
      keptDeliveries: { perKey: 100, retentionMs: 3_600_000 },
      onError: (error) => errors.push(error),
    });
    scheduler.start();
    // Claimed again and again while both searches run (each claim of the due run defers it;
    // a tick that comes before it is due again claims nothing, so claims are not counted).
    await until('five deferrals', () => (calls.get('deferWatchlist') ?? 0) >= 5);
    const waiting = (await memory.watchlists.getWatchlist('w1'))!;
    expect(waiting.state.run?.searches).toEqual({ alice: 's-alice', bob: 's-bob' });
    // One write for the new run, one per search started; waiting only moved when it is due.
    expect(calls.get('saveWatchlistState')).toBe(3);
    expect(calls.get('claimDueWatchlist')).toBeGreaterThan(calls.get('deferWatchlist')!);

    await memory.updateSearch('s-alice', { state: 'completed', finishedAt: Date.now() });
    await memory.updateSearch('s-bob', { state: 'completed', finishedAt: Date.now() });
    await until(
      'the run to finish',
      async () => (await memory.watchlists.getWatchlist('w1'))!.state.runs === 1,
    );
    expect(calls.get('finishWatchlistRun')).toBe(1);
    expect(calls.get('saveWatchlistState')).toBe(3);
    expect(errors).toEqual([]);
  });
});
