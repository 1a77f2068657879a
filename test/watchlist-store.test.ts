/**
 * The watchlist store contract against SQLite (in memory and on a file) and
 * Redis (each test under its own prefix), and what only a file shows: due
 * work outlives the process's handle on it.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RedisStore } from '../src/store/redis.js';
import { SqliteStore } from '../src/store/sqlite.js';
import { deleteKeys, uniquePrefix } from './cluster/redis-support.js';
import { storeBackends } from './support/store-backends.js';
import { describeWatchlistStoreContract, watchlist } from './watchlist-store.contract.js';

let files = 0;

const backends = storeBackends('userscout-watch-store-');

describeWatchlistStoreContract('SQLite in memory', () => {
  const store = new SqliteStore(':memory:');
  return { store: store.watchlists, close: () => store.close() };
});

describeWatchlistStoreContract('SQLite on a file', () => {
  const store = new SqliteStore(join(backends.dir, `contract-${++files}`, 'store.db'));
  return { store: store.watchlists, close: () => store.close() };
});

describeWatchlistStoreContract('Redis', () => {
  const prefix = uniquePrefix('watch');
  const store = new RedisStore({ redis: backends.redis, prefix, now: Date.now });
  return {
    store: store.watchlists,
    close: async () => {
      await store.close();
      await deleteKeys(backends.redis, `${prefix}:`);
    },
  };
});

describe('SQLite watchlists, reopened', () => {
  it('keeps a due watchlist and a leased one for the next process', async () => {
    const path = join(backends.dir, 'reopen', 'store.db');
    const first = new SqliteStore(path);
    await first.watchlists.createWatchlist(watchlist('w1'));
    await first.watchlists.createWatchlist(watchlist('w2', { createdAt: 1 }));
    const leased = await first.watchlists.claimDueWatchlist(watchlist('w1').state.nextRunAt, 1_000);
    expect(leased).toBeDefined();
    await first.close();
    const second = new SqliteStore(path);
    try {
      const t = watchlist('w1').state.nextRunAt;
      const other = await second.watchlists.claimDueWatchlist(t, 1_000);
      expect(other?.value.id).not.toBe(leased?.value.id);
      // Once the dead process's lease ends, its work is due again.
      expect((await second.watchlists.claimDueWatchlist(t + 1_000, 1_000))?.value.id).toBe(leased?.value.id);
    } finally {
      await second.close();
    }
  });
});
