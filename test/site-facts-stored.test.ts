/**
 * Site facts (learned limits, remembered transports) as a running deployment already holds
 * them: a SQLite file whose tables an earlier release created, and Redis hashes under the
 * same keys and JSON. The contract suites write and read through one version of the code;
 * these pin the stored form, so a store upgraded in place keeps what it learned.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RedisStore } from '../src/store/redis.js';
import { SqliteStore } from '../src/store/sqlite.js';
import { openDatabase } from '../src/store/sqlite-driver.js';
import { deleteKeys, uniquePrefix } from './cluster/redis-support.js';
import { storeBackends } from './support/store-backends.js';

const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);

const limit = {
  origin: 'a.example',
  identity: 'default',
  limit: { perSecond: 2, stated: true, at: T0, expiresAt: T0 + 60_000 },
};
const quiet = {
  origin: 'b.example',
  identity: 'addr:10.0.0.2',
  limit: { perSecond: 0.5, stated: false, at: T0, expiresAt: T0 + 60_000, quietUntil: T0 + 1_000 },
};
const transport = {
  origin: 'a.example',
  identity: 'default',
  transport: 'browser' as const,
  at: T0,
  expiresAt: T0 + 60_000,
};

const backends = storeBackends('userscout-site-facts-');

describe('SQLite site facts', () => {
  it('reads and replaces rows in tables laid out as an earlier release created them', async () => {
    const path = join(backends.dir, 'earlier.db');
    const db = openDatabase(path);
    // expires_at before quiet_until: the column order a fresh table no longer has.
    db.exec(`
      CREATE TABLE site_limits (origin TEXT NOT NULL, identity TEXT NOT NULL, per_second REAL NOT NULL,
        stated INTEGER NOT NULL, learned_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, quiet_until INTEGER,
        PRIMARY KEY (origin, identity)) WITHOUT ROWID;
      CREATE TABLE transport_memory (origin TEXT NOT NULL, identity TEXT NOT NULL, transport TEXT NOT NULL,
        learned_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, PRIMARY KEY (origin, identity)) WITHOUT ROWID;
    `);
    const putLimit = db.prepare('INSERT INTO site_limits VALUES (?, ?, ?, ?, ?, ?, ?)');
    putLimit.run('a.example', 'default', 2, 1, T0, T0 + 60_000, null);
    putLimit.run('b.example', 'addr:10.0.0.2', 0.5, 0, T0, T0 + 60_000, T0 + 1_000);
    db.prepare('INSERT INTO transport_memory VALUES (?, ?, ?, ?, ?)').run(
      'a.example',
      'default',
      'browser',
      T0,
      T0 + 60_000,
    );
    db.close();

    const store = new SqliteStore(path);
    try {
      expect(await store.siteLimits.learned(T0)).toEqual([limit, quiet]);
      expect(await store.transportMemory.remembered(T0)).toEqual([transport]);
      const replaced = {
        ...quiet,
        limit: { perSecond: 3, stated: true, at: T0 + 5, expiresAt: T0 + 90_000 },
      };
      await store.siteLimits.keep(replaced);
      expect(await store.siteLimits.learned(T0)).toEqual([limit, replaced]);
    } finally {
      await store.close();
    }
  });
});

describe('Redis site facts', () => {
  it('keeps each kind in its hash, a field per origin and identity holding JSON', async () => {
    const prefix = uniquePrefix('facts');
    const store = new RedisStore({ redis: backends.redis, prefix, now: Date.now });
    try {
      await store.siteLimits.keep(quiet);
      await store.transportMemory.keep(transport);
      const limits = await backends.redis.hgetall(`${prefix}:site-limits`);
      const transports = await backends.redis.hgetall(`${prefix}:transport-memory`);
      expect(Object.keys(limits)).toEqual(['b.example\u0000addr:10.0.0.2']);
      expect(JSON.parse(limits['b.example\u0000addr:10.0.0.2']!)).toEqual(quiet.limit);
      expect(Object.keys(transports)).toEqual(['a.example\u0000default']);
      expect(JSON.parse(transports['a.example\u0000default']!)).toEqual({
        transport: 'browser',
        at: T0,
        expiresAt: T0 + 60_000,
      });
    } finally {
      await store.close();
      await deleteKeys(backends.redis, `${prefix}:`);
    }
  });

  it('reads hashes an earlier release wrote, and drops the fields it cannot read', async () => {
    const prefix = uniquePrefix('facts');
    await backends.redis.hset(`${prefix}:site-limits`, 'a.example\u0000default', JSON.stringify(limit.limit));
    await backends.redis.hset(`${prefix}:site-limits`, 'c.example\u0000default', 'not json');
    await backends.redis.hset(
      `${prefix}:transport-memory`,
      'a.example\u0000default',
      JSON.stringify({ transport: 'browser', at: T0, expiresAt: T0 + 60_000 }),
    );
    const store = new RedisStore({ redis: backends.redis, prefix, now: Date.now });
    try {
      expect(await store.siteLimits.learned(T0)).toEqual([limit]);
      expect(await store.transportMemory.remembered(T0)).toEqual([transport]);
      expect(await backends.redis.hkeys(`${prefix}:site-limits`)).toEqual(['a.example\u0000default']);
    } finally {
      await store.close();
      await deleteKeys(backends.redis, `${prefix}:`);
    }
  });
});
