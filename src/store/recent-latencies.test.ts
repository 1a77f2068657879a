import { describe, expect, it } from 'vitest';
import { NEVER_ANSWERED_MS, recentLatenciesReader } from './recent-latencies.js';
import type { PlatformStats } from './roles/stats-store.js';

function stats(platformId: string, recentMs: number, error = 0): PlatformStats {
  return {
    platformId,
    checks: 1 + error,
    meanMs: recentMs,
    recentMs,
    byStatus: { hit: error > 0 ? 0 : 1, miss: 0, unknown: 0, error, invalid: 0 },
    lastCheckedAt: 0,
  };
}

/** A store whose statistics the test sets, counting its reads; `fail` makes the next read fail. */
function statsStore() {
  const store = {
    rows: [stats('alpha', 100)],
    reads: 0,
    fail: false,
    async platformStats(): Promise<PlatformStats[]> {
      store.reads++;
      if (store.fail) {
        store.fail = false;
        throw new Error('store down');
      }
      return store.rows;
    },
  };
  return store;
}

describe('recentLatenciesReader', () => {
  it('reads the statistics again only once its last read is the given age', async () => {
    const store = statsStore();
    const clock = { now: 0 };
    const latencies = recentLatenciesReader(store, 5_000, () => clock.now);
    expect(await latencies()).toEqual(new Map([['alpha', 100]]));
    store.rows = [stats('alpha', 300), stats('bravo', 0, 2)];
    clock.now += 4_999;
    expect(await latencies()).toEqual(new Map([['alpha', 100]]));
    expect(store.reads).toBe(1);
    clock.now += 1;
    expect(await latencies()).toEqual(
      new Map([
        ['alpha', 300],
        ['bravo', NEVER_ANSWERED_MS],
      ]),
    );
    expect(store.reads).toBe(2);
  });

  it('shares one read among callers meanwhile, and keeps no failed read', async () => {
    const store = statsStore();
    const latencies = recentLatenciesReader(store, 5_000, () => 0);
    store.fail = true;
    const [a, b] = await Promise.allSettled([latencies(), latencies()]);
    expect([a.status, b.status, store.reads]).toEqual(['rejected', 'rejected', 1]);
    expect(await latencies()).toEqual(new Map([['alpha', 100]]));
    expect(store.reads).toBe(2);
  });
});
