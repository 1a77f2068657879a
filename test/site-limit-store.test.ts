/**
 * The site limit store contract against SQLite (in memory and on a file), Redis (each test under
 * its own prefix), PostgreSQL (each test in its own schema) and the tests' memory store.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PostgresStore } from '../src/store/postgres.js';
import { RedisStore } from '../src/store/redis.js';
import { splitStore } from '../src/store/split-store.js';
import { SqliteStore } from '../src/store/sqlite.js';
import { deleteKeys, uniquePrefix } from './cluster/redis-support.js';
import { dropSchema, TEST_DATABASE_URL, uniqueSchema } from './postgres/postgres-support.js';
import { describeSiteLimitStoreContract } from './site-limit-store.contract.js';
import { MemoryStore } from './support/memory-store.js';
import { storeBackends } from './support/store-backends.js';

let files = 0;

const backends = storeBackends('userscout-site-limits-');

describeSiteLimitStoreContract('SQLite in memory', () => {
  const store = new SqliteStore(':memory:');
  return { store: store.siteLimits, close: () => store.close() };
});

describeSiteLimitStoreContract('SQLite on a file', () => {
  const store = new SqliteStore(join(backends.dir, `contract-${++files}`, 'store.db'));
  return { store: store.siteLimits, close: () => store.close() };
});

describeSiteLimitStoreContract('Redis', () => {
  const prefix = uniquePrefix('limits');
  const store = new RedisStore({ redis: backends.redis, prefix, now: Date.now });
  return {
    store: store.siteLimits,
    close: async () => {
      await store.close();
      await deleteKeys(backends.redis, `${prefix}:`);
    },
  };
});

describeSiteLimitStoreContract('PostgreSQL', () => {
  const schema = uniqueSchema('limits');
  const store = new PostgresStore({ url: TEST_DATABASE_URL, schema });
  return {
    store: store.siteLimits,
    close: async () => {
      await store.close();
      await dropSchema(schema);
    },
  };
});

describeSiteLimitStoreContract('MemoryStore', () => {
  const store = new MemoryStore();
  return { store: store.siteLimits, close: () => store.close() };
});

describe('splitStore', () => {
  it('keeps learned limits in its fast store, where they expire', () => {
    const records = new SqliteStore(':memory:');
    const cache = new MemoryStore();
    const split = splitStore(records, cache);
    expect(split.siteLimits).toBe(cache.siteLimits);
    void split.close();
  });
});
