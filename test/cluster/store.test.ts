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
import { putCached } from '../support/cached.js';
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
      const [cached] = await putCached(store, 'alice', outcome, now + 3_600_000, now);
      const ttl = await redis.pttl(`${prefix}:cache:alice`);
      // An hour from the store's clock, plus five minutes of grace.
      expect(ttl).toBeGreaterThan(3_600_000);
      expect(ttl).toBeLessThanOrEqual(3_600_000 + 5 * 60_000);
      expect((await store.getCachedOutcomes('alice', ['github'], now)).get('github')).toEqual(cached);
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
      const [cached] = await putCached(b, 'bob', miss('gitlab', 'bob'), Date.now() + 60_000, Date.now());
      expect((await a.getCachedOutcomes('bob', ['gitlab'], Date.now())).get('gitlab')).toEqual(cached);
    } finally {
      await a.close();
      await b.close();
      await deleteKeys(redis, `${prefix}:`);
    }
  });

  it('reads a search written by an earlier release (JSON), and goes on with it; its cached outcomes are a miss', async () => {
    const prefix = uniquePrefix('legacy');
    const store = new RedisStore({ redis, prefix, now: Date.now });
    try {
      await store.createSearch(search('s1', 'alice'));
      // As the earlier release stored them: JSON rows, `seen` a hash of platform id → seq.
      await redis.rpush(`${prefix}:outcomes:s1`, JSON.stringify(miss('github', 'alice')));
      await redis.hset(`${prefix}:seen:s1`, 'github', '1');
      await redis.hset(`${prefix}:counts:s1`, 'miss', '1');
      // A cache entry of an earlier release (its own key, JSON): no longer read, and it expires.
      await redis.set(
        `${prefix}:cache:gitlab:alice`,
        JSON.stringify({ expiresAt: Date.now() + 60_000, outcome: miss('gitlab', 'alice') }),
        'PX',
        60_000,
      );
      expect(await addOne(store, 's1', miss('github', 'alice'))).toBeUndefined();
      expect(await addOne(store, 's1', miss('gitlab', 'alice'))).toBe(2);
      expect((await store.snapshot('s1'))?.outcomes).toEqual([
        { seq: 1, outcome: miss('github', 'alice') },
        { seq: 2, outcome: miss('gitlab', 'alice') },
      ]);
      expect(await store.getCachedOutcomes('alice', ['gitlab'], Date.now())).toEqual(new Map());
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

  it("packs a search's outcomes when it ends, as two processes append, finish and replace them", async () => {
    const prefix = uniquePrefix('pack');
    const a = new RedisStore({ redis, prefix, retentionMs: 3_600_000, now: Date.now });
    const b = new RedisStore({ redis, prefix, retentionMs: 3_600_000, now: Date.now });
    try {
      const platformIds = Array.from({ length: 120 }, (_, i) => `site${i}`);
      await a.createSearch({ ...search('s1', 'alice'), platformIds });
      const outcomeOf = (id: string) =>
        Number(id.slice(4)) % 7 === 0 ? { ...miss(id, 'alice'), status: 'hit' as const } : miss(id, 'alice');
      // Batches of ten, half from each process, all at once: every platform stored once, seqs 1..100.
      const batches = Array.from({ length: 10 }, (_, i) => platformIds.slice(10 * i, 10 * i + 10));
      const seqs = await Promise.all(
        batches.map((ids, i) => (i % 2 === 0 ? a : b).addOutcomes('s1', ids.map(outcomeOf))),
      );
      expect(seqs.flat().sort((x, y) => x! - y!)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
      const before = await a.listOutcomes('s1');
      expect(before.map((s) => s.outcome).sort((x, y) => (x.platformId < y.platformId ? -1 : 1))).toEqual(
        platformIds
          .slice(0, 100)
          .map(outcomeOf)
          .sort((x, y) => (x.platformId < y.platformId ? -1 : 1)),
      );

      // Ended by one process, while the other appends: each outcome once, none lost, seqs without gaps.
      await Promise.all([
        b.updateSearch('s1', { state: 'completed', finishedAt: Date.now() }),
        a.addOutcomes('s1', platformIds.slice(100, 110).map(outcomeOf)),
      ]);
      const listed = await b.listOutcomes('s1');
      expect(listed.map((s) => s.seq)).toEqual(Array.from({ length: 110 }, (_, i) => i + 1));
      expect(JSON.stringify(listed.slice(0, 100))).toBe(JSON.stringify(before));
      // Ended again: everything in one page, kept for the retention period, the list gone.
      await a.updateSearch('s1', { state: 'completed' });
      expect(await redis.exists(`${prefix}:outcomes:s1`)).toBe(0);
      expect(await redis.pttl(`${prefix}:page:s1`)).toBeGreaterThan(0);
      expect(JSON.stringify(await a.listOutcomes('s1'))).toBe(JSON.stringify(listed));
      expect(JSON.stringify((await b.snapshot('s1'))?.outcomes)).toBe(JSON.stringify(listed));
      expect(JSON.stringify(await b.listOutcomes('s1', { afterSeq: 55, statuses: ['hit'] }))).toBe(
        JSON.stringify(listed.filter((s) => s.seq > 55 && s.outcome.status === 'hit')),
      );
      expect(await a.progress('s1')).toMatchObject({ checked: 110 });

      // Later answers after it ended: a packed outcome replaced, a new one after the page.
      const later = { ...miss('site3', 'alice'), status: 'hit' as const };
      expect(await b.replaceOutcome('s1', later)).toBe(111);
      expect(await a.addOutcomes('s1', [outcomeOf('site3'), outcomeOf('site119')])).toEqual([undefined, 112]);
      const expected = [
        ...listed.filter((s) => s.outcome.platformId !== 'site3'),
        { seq: 111, outcome: later },
        { seq: 112, outcome: outcomeOf('site119') },
      ];
      expect(JSON.stringify(await a.listOutcomes('s1'))).toBe(JSON.stringify(expected));
      expect(JSON.stringify(await b.listOutcomes('s1', { afterSeq: 110 }))).toBe(
        JSON.stringify(expected.slice(-2)),
      );
      await b.updateSearch('s1', { state: 'completed' });
      expect(JSON.stringify(await a.listOutcomes('s1'))).toBe(JSON.stringify(expected));
      expect(JSON.stringify(await a.listOutcomes('s1', { afterSeq: 4 }))).toBe(
        JSON.stringify(expected.filter((s) => s.seq > 4)),
      );
      expect((await b.progress('s1')).checked).toBe(111);
      expect(await a.sweepSearches(Date.now() + 1)).toBe(1);
      expect(await redis.exists(`${prefix}:page:s1`)).toBe(0);
    } finally {
      await a.close();
      await b.close();
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
