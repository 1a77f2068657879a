/**
 * The store contract against every embedded backend, and what only a file
 * can show: the data outlives the process's handle on it.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Outcome } from '../src/engine/outcome.js';
import { createStore } from '../src/store/create-store.js';
import { RedisStore } from '../src/store/redis.js';
import { SplitStore } from '../src/store/split-store.js';
import { SqliteStore } from '../src/store/sqlite.js';
import type { Store } from '../src/store/store.js';
import { TEST_REDIS_URL } from './cluster/redis-support.js';
import { describeStoreContract } from './store.contract.js';
import { MemoryStore } from './support/memory-store.js';

const T0 = Date.UTC(2025, 0, 15, 12, 0, 0);

let dir: string;
let files = 0;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'userscout-store-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describeStoreContract('SqliteStore in memory', () => new SqliteStore(':memory:'));

// A new file per test, in a folder the store has to create.
describeStoreContract(
  'SqliteStore on a file',
  () => new SqliteStore(join(dir, `contract-${++files}`, 'store.db')),
);

describeStoreContract('MemoryStore', () => new MemoryStore());

// Records in one store, the outcome cache in another, as cluster mode with DATABASE_URL splits them.
describeStoreContract('SplitStore', () => new SplitStore(new SqliteStore(':memory:'), new MemoryStore()));

describe('SqliteStore on a file, reopened', () => {
  const stores: Store[] = [];
  const open = (path: string) => {
    const store = new SqliteStore(path);
    stores.push(store);
    return store;
  };

  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
  });

  const hit: Outcome = {
    platform: 'GitHub',
    platformId: 'github',
    category: 'coding',
    url: 'https://github.com/alice',
    status: 'hit',
    responseTime: 241,
    evidence: {
      rule: 'exists: status 200',
      attempts: 1,
      httpStatus: 200,
      finalUrl: 'https://github.com/alice',
    },
  };

  it('keeps everything across a restart', async () => {
    const path = join(dir, 'restart', 'nested', 'store.db');
    const before = open(path);
    expect(existsSync(path)).toBe(true);
    await before.createSearch({
      id: 's1',
      username: 'alice',
      state: 'running',
      tier: 'free',
      client: 'ip:198.51.100.4',
      platformIds: ['github', 'gitlab'],
      estimatedSeconds: 3,
      createdAt: T0,
      startedAt: T0 + 10,
    });
    expect(await before.addOutcome('s1', hit)).toBe(1);
    await before.putCachedOutcome('alice', hit, T0 + 60_000);
    await before.createApiKey({
      id: 'k1',
      name: 'ci',
      tier: 'professional',
      hash: 'ab'.repeat(32),
      createdAt: T0,
    });
    await before.recordCheck('github', 'hit', 241, T0);
    await before.close();

    const after = open(path);
    expect(await after.unfinishedSearches()).toMatchObject([
      { id: 's1', state: 'running', startedAt: T0 + 10 },
    ]);
    expect(await after.listOutcomes('s1')).toEqual([{ seq: 1, outcome: hit }]);
    // Numbering resumes where it stopped, and the platform already stored is still refused.
    expect(await after.addOutcome('s1', hit)).toBeUndefined();
    expect(await after.addOutcome('s1', { ...hit, platformId: 'gitlab', platform: 'GitLab' })).toBe(2);
    expect(await after.getCachedOutcome('alice', 'github', T0)).toEqual(hit);
    expect(await after.findApiKeyByHash('ab'.repeat(32))).toMatchObject({ id: 'k1' });
    expect(await after.platformStats()).toMatchObject([{ platformId: 'github', checks: 1, recentMs: 241 }]);
  });

  it('lets two handles on one file see each other’s writes', async () => {
    const path = join(dir, 'shared', 'store.db');
    const writer = open(path);
    const reader = open(path);
    await writer.createSearch({
      id: 's1',
      username: 'alice',
      state: 'queued',
      tier: 'free',
      client: 'ip:198.51.100.4',
      platformIds: ['github'],
      estimatedSeconds: 1,
      createdAt: T0,
    });
    await writer.addOutcome('s1', hit);
    expect(await reader.progress('s1')).toMatchObject({ checked: 1, hits: 1 });
  });
});

describe('SplitStore', () => {
  it('keeps the outcome cache in the cache store and everything else in the records store', async () => {
    const records = new SqliteStore(':memory:');
    const cache = new MemoryStore();
    const split = new SplitStore(records, cache);
    const hit: Outcome = {
      platform: 'GitHub',
      platformId: 'github',
      category: 'coding',
      url: 'https://github.com/alice',
      status: 'hit',
      responseTime: 10,
      evidence: { rule: 'exists: status 200', attempts: 1 },
    };
    await split.putCachedOutcome('alice', hit, T0 + 60_000);
    await split.recordCheck('github', 'hit', 10, T0);
    expect(await cache.getCachedOutcome('alice', 'github', T0)).toEqual(hit);
    expect(await records.getCachedOutcome('alice', 'github', T0)).toBeUndefined();
    expect(await records.platformStats()).toMatchObject([{ platformId: 'github', checks: 1 }]);
    expect(await cache.platformStats()).toEqual([]);
    await split.close();
    expect(await split.ping()).toBe(false);
  });
});

describe('createStore', () => {
  it('makes the backend asked for', async () => {
    const redis = createStore({ kind: 'redis', redis: TEST_REDIS_URL, now: Date.now });
    const sqlite = createStore({ kind: 'sqlite', path: ':memory:' });
    expect(redis).toBeInstanceOf(RedisStore);
    expect(sqlite).toBeInstanceOf(SqliteStore);
    await redis.close();
    await sqlite.close();
  });

  it('refuses an unknown kind, naming it', () => {
    expect(() => createStore({ kind: 'mysql' } as never)).toThrow(/mysql/);
  });
});
