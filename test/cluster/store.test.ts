/**
 * The store contract against the Redis store on a real Redis, each test under
 * its own key prefix, and what only Redis adds: the retention TTL.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisClient } from '../../src/redis/connection.js';
import { createStore } from '../../src/store/create-store.js';
import { RedisStore } from '../../src/store/redis.js';
import type { Store } from '../../src/store/store.js';
import { describeStoreContract } from '../store.contract.js';
import { addOne } from '../support/add-one.js';
import { connectTestRedis, deleteKeys, TEST_REDIS_URL, uniquePrefix } from './redis-support.js';

let redis: Redis;
const prefixes = new Map<Store, string>();

beforeAll(async () => {
  redis = await connectTestRedis();
});

afterAll(async () => {
  await redis?.quit();
});

describeStoreContract(
  'RedisStore',
  () => {
    const prefix = uniquePrefix('store');
    const store = new RedisStore({ redis, prefix, retentionMs: 7 * 86_400_000, now: Date.now });
    prefixes.set(store, prefix);
    return store;
  },
  async (store) => {
    await store.close();
    await deleteKeys(redis, `${prefixes.get(store)}:`);
    prefixes.delete(store);
  },
);

describe('RedisStore on Redis', () => {
  it('expires a search and its outcomes after the retention period', async () => {
    const prefix = uniquePrefix('ttl');
    const store = new RedisStore({ redis, prefix, retentionMs: 400, now: Date.now });
    try {
      await store.createSearch({
        id: 's1',
        username: 'alice',
        state: 'running',
        tier: 'free',
        client: 'ip:203.0.113.7',
        platformIds: ['github'],
        estimatedSeconds: 1,
        createdAt: Date.now(),
      });
      await addOne(store, 's1', {
        platform: 'GitHub',
        platformId: 'github',
        category: 'coding',
        url: 'https://github.com/alice',
        status: 'hit',
        responseTime: 10,
        evidence: { rule: 'exists: status 200', attempts: 1 },
      });
      const ttl = await redis.pttl(`${prefix}:outcomes:s1`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(400);
      // Its progress and seen platforms too (set once a batch, after its first outcome).
      for (const key of ['counts', 'seen'])
        expect(await redis.pttl(`${prefix}:${key}:s1`)).toBeGreaterThan(0);
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(await store.getSearch('s1')).toBeUndefined();
      expect(await store.listOutcomes('s1')).toEqual([]);
      // The index forgets it too.
      expect(await store.unfinishedSearches()).toEqual([]);
      expect(await redis.zcard(`${prefix}:unfinished`)).toBe(0);
    } finally {
      await store.close();
      await deleteKeys(redis, `${prefix}:`);
    }
  });

  it("keeps a cached outcome in Redis until its expiry by the store's clock, plus the grace period", async () => {
    const prefix = uniquePrefix('clock');
    // A clock a year behind the wall clock: by Date.now() the expiry would be long past.
    const now = Date.now() - 365 * 86_400_000;
    const store = new RedisStore({ redis, prefix, now: () => now });
    try {
      const outcome = {
        platform: 'GitHub',
        platformId: 'github',
        category: 'coding' as const,
        url: 'https://github.com/alice',
        status: 'hit' as const,
        responseTime: 10,
        evidence: { rule: 'exists: status 200', attempts: 1 },
      };
      await store.putCachedOutcome('alice', outcome, now + 3_600_000);
      const ttl = await redis.pttl(`${prefix}:cache:github:alice`);
      // An hour from the store's clock, plus five minutes of grace.
      expect(ttl).toBeGreaterThan(3_600_000);
      expect(ttl).toBeLessThanOrEqual(3_600_000 + 5 * 60_000);
      expect(await store.getCachedOutcome('alice', 'github', now)).toEqual(outcome);
    } finally {
      await store.close();
      await deleteKeys(redis, `${prefix}:`);
    }
  });

  const search = (id: string, username: string) => ({
    id,
    username,
    state: 'running' as const,
    tier: 'free' as const,
    client: 'ip:203.0.113.7',
    platformIds: ['github', 'gitlab', 'site'],
    estimatedSeconds: 1,
    createdAt: Date.now(),
  });
  const miss = (platformId: string, username: string) => ({
    platform: platformId.toUpperCase(),
    platformId,
    category: 'coding' as const,
    url: `https://${platformId}.example/${username}`,
    status: 'miss' as const,
    responseTime: 52,
    evidence: {
      httpStatus: 404,
      finalUrl: `https://${platformId}.example/${username}`,
      rule: 'missing: status 404',
      attempts: 1,
      bytesRead: 900,
    },
  });

  it('keeps outcomes compact, and right after Redis is emptied under a process that cached the vocabulary', async () => {
    const prefix = uniquePrefix('vocab');
    const a = new RedisStore({ redis, prefix, now: Date.now });
    const b = new RedisStore({ redis, prefix, now: Date.now });
    try {
      await a.createSearch(search('s1', 'alice'));
      await a.addOutcomes('s1', [miss('github', 'alice'), miss('gitlab', 'alice')]);
      // A plain miss takes a dozen bytes, not the few hundred of its JSON.
      const [row] = await redis.lrangeBuffer(`${prefix}:outcomes:s1`, 0, 0);
      expect(row!.length).toBeLessThan(24);
      // Emptied (a restart without persistence); another process fills the vocabulary in another order.
      await deleteKeys(redis, `${prefix}:`);
      await b.createSearch(search('s2', 'bob'));
      await b.addOutcomes('s2', [miss('site', 'bob'), miss('gitlab', 'bob')]);
      // `a` still holds the old ids: its write is refused once, then encoded anew.
      await a.createSearch(search('s3', 'carol'));
      await a.addOutcomes('s3', [miss('github', 'carol')]);
      await a.addOutcomes('s3', [miss('site', 'carol')]);
      const expected = [
        { seq: 1, outcome: miss('github', 'carol') },
        { seq: 2, outcome: miss('site', 'carol') },
      ];
      expect(await a.listOutcomes('s3')).toEqual(expected);
      expect((await a.getSearch('s3'))?.platformIds).toEqual(['github', 'gitlab', 'site']);
      expect((await b.getSearch('s1'))?.platformIds).toBeUndefined();
      expect(await b.listOutcomes('s3')).toEqual(expected);
      expect(await a.listOutcomes('s2')).toEqual([
        { seq: 1, outcome: miss('site', 'bob') },
        { seq: 2, outcome: miss('gitlab', 'bob') },
      ]);
      await b.putCachedOutcome('bob', miss('gitlab', 'bob'), Date.now() + 60_000);
      expect(await a.getCachedOutcome('bob', 'gitlab', Date.now())).toEqual(miss('gitlab', 'bob'));
    } finally {
      await a.close();
      await b.close();
      await deleteKeys(redis, `${prefix}:`);
    }
  });

  it('reads a search and a cached outcome written by an earlier release (JSON), and goes on with it', async () => {
    const prefix = uniquePrefix('legacy');
    const store = new RedisStore({ redis, prefix, now: Date.now });
    try {
      await store.createSearch(search('s1', 'alice'));
      // As the earlier release stored them: JSON rows, `seen` a hash of platform id → seq.
      await redis.rpush(`${prefix}:outcomes:s1`, JSON.stringify(miss('github', 'alice')));
      await redis.hset(`${prefix}:seen:s1`, 'github', '1');
      await redis.hset(`${prefix}:counts:s1`, 'miss', '1');
      const expiresAt = Date.now() + 60_000;
      await redis.set(
        `${prefix}:cache:gitlab:alice`,
        JSON.stringify({ expiresAt, outcome: miss('gitlab', 'alice') }),
      );
      expect(await addOne(store, 's1', miss('github', 'alice'))).toBeUndefined();
      expect(await addOne(store, 's1', miss('gitlab', 'alice'))).toBe(2);
      expect((await store.snapshot('s1'))?.outcomes).toEqual([
        { seq: 1, outcome: miss('github', 'alice') },
        { seq: 2, outcome: miss('gitlab', 'alice') },
      ]);
      expect(await store.getCachedOutcome('alice', 'gitlab', Date.now())).toEqual(miss('gitlab', 'alice'));
      // A search record of the earlier release: its platform ids as JSON.
      const createdAt = Date.now();
      await redis.hset(`${prefix}:search:old`, {
        id: 'old',
        username: 'bob',
        state: 'running',
        tier: 'free',
        client: 'ip:203.0.113.7',
        platformIds: '["github","gitlab"]',
        estimatedSeconds: '2',
        createdAt: String(createdAt),
      });
      await redis.zadd(`${prefix}:unfinished`, createdAt, 'old');
      expect(await store.getSearch('old')).toEqual({
        ...search('old', 'bob'),
        platformIds: ['github', 'gitlab'],
        estimatedSeconds: 2,
        createdAt,
      });
      expect((await store.unfinishedSearches()).map((s) => s.platformIds)).toContainEqual([
        'github',
        'gitlab',
      ]);
    } finally {
      await store.close();
      await deleteKeys(redis, `${prefix}:`);
    }
  });

  it('is made by createStore, which opens and closes its own connection', async () => {
    const prefix = uniquePrefix('factory');
    const store = createStore({ kind: 'redis', redis: TEST_REDIS_URL, prefix, now: Date.now });
    expect(store).toBeInstanceOf(RedisStore);
    // Its first command waits for the connection.
    expect(await store.ping()).toBe(true);
    await store.close();
    expect(await store.ping()).toBe(false);
  });

  it('answers store_unavailable at once when Redis cannot be reached', async () => {
    // As the service connects: no offline queue, so commands fail at once.
    const client = createRedisClient('redis://127.0.0.1:1');
    const store = new RedisStore({ redis: client, prefix: uniquePrefix('down'), now: Date.now });
    try {
      const started = Date.now();
      await expect(store.getSearch('s1')).rejects.toMatchObject({ code: 'store_unavailable' });
      await expect(addOne(store, 's1', {} as never)).rejects.toMatchObject({ code: 'store_unavailable' });
      expect(await store.ping()).toBe(false);
      // Waiting on each of the three calls for a connection (2 s) or an answer (3 s) would
      // take 6 s or more; the margin below that is for a loaded machine.
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await store.close();
      client.disconnect();
    }
  });
});
