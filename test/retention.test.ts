/**
 * Retention: a sweep removes the searches older than the period, in batches,
 * while a search goes on storing its outcomes, and leaves the newer ones whole.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Outcome } from '../src/engine/verdict/outcome.js';
import { RedisStore } from '../src/store/redis.js';
import { SqliteStore } from '../src/store/sqlite.js';
import { openDatabase } from '../src/store/sqlite-driver.js';
import type { SearchRecord, Store } from '../src/store/store.js';
import { SWEEP_BATCH_ROWS } from '../src/tuning.js';
import { deleteKeys, uniquePrefix } from './cluster/redis-support.js';
import { addOne } from './support/add-one.js';
import { putCached } from './support/cached.js';
import { storeBackends } from './support/store-backends.js';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 24, 12, 0, 0);
const RETENTION = 7 * DAY;
const PLATFORMS = Array.from({ length: 991 }, (_, i) => `platform-${i}`);

function outcome(platformId: string, username: string, i: number): Outcome {
  const url = `https://${platformId}.example/${username}`;
  return i % 10 === 0
    ? {
        platform: platformId,
        platformId,
        category: 'social',
        url,
        status: 'hit',
        responseTime: 100 + i,
        evidence: {
          httpStatus: 200,
          finalUrl: url,
          rule: 'exists: status 200',
          attempts: 1,
          bytesRead: 3000,
        },
      }
    : {
        platform: platformId,
        platformId,
        category: 'social',
        url,
        status: 'miss',
        responseTime: 50 + i,
        evidence: { httpStatus: 404, finalUrl: url, rule: 'missing: status 404', attempts: 1, bytesRead: 0 },
      };
}

function search(id: string, createdAt: number, state: SearchRecord['state'] = 'completed'): SearchRecord {
  return {
    id,
    username: `user-${id}`,
    state,
    tier: 'professional',
    client: 'key:k1',
    platformIds: PLATFORMS,
    estimatedSeconds: 10,
    createdAt,
  };
}

const nextMacrotask = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Fills `store` with `old` searches past the retention period and `young` within it,
 * then sweeps while another search stores its outcomes one at a time, as a running
 * search does. Returns what it saw.
 */
async function sweepWhileSearching(store: Store, old: number, young: number) {
  for (let i = 0; i < old + young; i++) {
    const s = search(
      i < old ? `old-${i}` : `young-${i}`,
      i < old ? NOW - RETENTION - DAY + i : NOW - DAY + i,
    );
    await store.createSearch(s);
    await store.addOutcomes(
      s.id,
      PLATFORMS.map((p, j) => outcome(p, s.username, j)),
    );
  }
  const running = search('running', NOW - 60_000, 'running');
  await store.createSearch(running);

  let sweeping = true;
  let storedDuringSweep = 0;
  let stored = 0;
  const writer = (async () => {
    for (const [j, p] of PLATFORMS.entries()) {
      expect(await addOne(store, running.id, outcome(p, running.username, j))).toBe(j + 1);
      stored++;
      if (sweeping) storedDuringSweep++;
      // A running search's outcomes come from the network, a macrotask apart.
      await nextMacrotask();
    }
  })();
  const removed = await store.sweepSearches(NOW - RETENTION);
  sweeping = false;
  await writer;
  return { removed, storedDuringSweep, stored, running };
}

async function expectSwept(store: Store, old: number, young: number, running: SearchRecord) {
  for (let i = 0; i < old; i++) {
    expect(await store.getSearch(`old-${i}`)).toBeUndefined();
    expect(await store.listOutcomes(`old-${i}`)).toEqual([]);
  }
  for (let i = old; i < old + young; i++) {
    const id = `young-${i}`;
    const snapshot = await store.snapshot(id);
    expect(snapshot?.search.id).toBe(id);
    expect(snapshot?.progress.checked).toBe(PLATFORMS.length);
    expect(snapshot?.outcomes).toEqual(
      PLATFORMS.map((p, j) => ({ seq: j + 1, outcome: outcome(p, `user-${id}`, j) })),
    );
  }
  const runningSnapshot = await store.snapshot(running.id);
  expect(runningSnapshot?.outcomes).toEqual(
    PLATFORMS.map((p, j) => ({ seq: j + 1, outcome: outcome(p, running.username, j) })),
  );
}

describe('retention', () => {
  const backends = storeBackends('userscout-retention-');

  it('SQLite: removes searches older than the period in batches, newer ones whole, while a search runs', {
    timeout: 120_000,
  }, async () => {
    const path = join(backends.dir, 'sqlite', 'store.db');
    const store = new SqliteStore(path);
    const old = 12;
    const young = 2;
    try {
      await store.addCacheRow('alice', Uint8Array.of(1, 2, 3), NOW - RETENTION - 1);
      const [fresh] = await putCached(store, 'alice', outcome('platform-2', 'alice', 2), NOW + DAY);
      const { removed, storedDuringSweep, running } = await sweepWhileSearching(store, old, young);
      expect(removed).toBe(old);
      // Outcomes go 500 rows a transaction, the event loop given back between: the
      // running search stored outcomes while thousands of rows were being deleted.
      expect((old * PLATFORMS.length) / SWEEP_BATCH_ROWS).toBeGreaterThan(20);
      expect(storedDuringSweep).toBeGreaterThan(10);
      await expectSwept(store, old, young, running);
      // The expired cache row is swept; the fresh entry is kept, its search too.
      expect(await store.cacheRowsOf('alice', 0)).toHaveLength(1);
      expect((await store.getCachedOutcomes('alice', ['platform-2'], NOW)).get('platform-2')).toEqual(fresh);
    } finally {
      await store.close();
    }
    // Nothing of the old searches is left in the file: no orphan outcome, no pending sweep.
    const db = openDatabase(path);
    try {
      // The young and running searches' outcomes, and the one of the search the cache refers to.
      expect(db.prepare('SELECT COUNT(*) AS n FROM outcomes').get()).toEqual({
        n: (young + 1) * PLATFORMS.length + 1,
      });
      expect(db.prepare('SELECT COUNT(*) AS n FROM swept').get()).toEqual({ n: 0 });
      expect(db.prepare('SELECT COUNT(*) AS n FROM outcome_cache').get()).toEqual({ n: 1 });
    } finally {
      db.close();
    }
  });

  it('SQLite: a sweep cut short is finished by the next one', async () => {
    const path = join(backends.dir, 'cut-short', 'store.db');
    const store = new SqliteStore(path);
    try {
      await store.createSearch(search('old', NOW - RETENTION - DAY));
      await store.addOutcomes(
        'old',
        PLATFORMS.map((p, j) => outcome(p, 'user-old', j)),
      );
      // As a crash right after the first transaction leaves it: the search gone, its outcomes noted.
      const db = openDatabase(path);
      db.exec(
        "INSERT INTO swept SELECT key FROM searches WHERE id = 'old'; DELETE FROM searches WHERE id = 'old'",
      );
      db.close();
      expect(await store.sweepSearches(NOW - RETENTION)).toBe(0);
      const check = openDatabase(path);
      expect(check.prepare('SELECT COUNT(*) AS n FROM outcomes').get()).toEqual({ n: 0 });
      expect(check.prepare('SELECT COUNT(*) AS n FROM swept').get()).toEqual({ n: 0 });
      check.close();
    } finally {
      await store.close();
    }
  });

  it('Redis: removes searches older than the period, newer ones whole, while a search runs', {
    timeout: 120_000,
  }, async () => {
    const prefix = uniquePrefix('retention');
    const store = new RedisStore({ redis: backends.redis, prefix, now: () => NOW });
    const old = 6;
    const young = 2;
    try {
      const { removed, stored, running } = await sweepWhileSearching(store, old, young);
      expect(removed).toBe(old);
      expect(stored).toBe(PLATFORMS.length);
      await expectSwept(store, old, young, running);
      for (let i = 0; i < old; i++)
        expect(await backends.redis.exists(`${prefix}:outcomes:old-${i}`)).toBe(0);
    } finally {
      await store.close();
      await deleteKeys(backends.redis, `${prefix}:`);
    }
  });
});
