/**
 * The search limit's counter, one suite for every implementation: in memory
 * and on Redis (src/api/search-quota.ts, search-quota-redis.ts).
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalSearchQuota, type SearchQuota } from '../src/api/search-quota.js';
import { RedisSearchQuota } from '../src/api/search-quota-redis.js';
import { connectTestRedis, deleteKeys, uniquePrefix } from './cluster/redis-support.js';

const HOUR = 3_600_000;
let redis: Redis;
const prefix = uniquePrefix('quota');

beforeAll(async () => {
  redis = await connectTestRedis();
});
afterAll(async () => {
  await deleteKeys(redis, prefix);
  redis.disconnect();
});

let keys = 0;
const fresh = () => `client-${++keys}`;

describe.each([
  ['in memory', () => new LocalSearchQuota() as SearchQuota],
  ['on Redis', () => new RedisSearchQuota(redis, prefix) as SearchQuota],
])('search quota %s', (_, make) => {
  it('opens a window with the first take and counts what it grants', async () => {
    const quota = make();
    const key = fresh();
    expect(await quota.peek(key)).toEqual({ used: 0, resetMs: 0 });
    const first = await quota.take(key, 3, 10, HOUR);
    expect(first).toMatchObject({ granted: true, used: 3 });
    expect(first.resetMs).toBeGreaterThan(HOUR - 60_000);
    expect(first.resetMs).toBeLessThanOrEqual(HOUR);
    expect(await quota.take(key, 7, 10, HOUR)).toMatchObject({ granted: true, used: 10 });
    const peeked = await quota.peek(key);
    expect(peeked.used).toBe(10);
    expect(peeked.resetMs).toBeGreaterThan(0);
  });

  it('grants all or nothing: a take that does not fit counts none', async () => {
    const quota = make();
    const key = fresh();
    await quota.take(key, 8, 10, HOUR);
    const refused = await quota.take(key, 3, 10, HOUR);
    expect(refused).toMatchObject({ granted: false, used: 8 });
    expect(refused.resetMs).toBeGreaterThan(0);
    expect((await quota.peek(key)).used).toBe(8);
    expect(await quota.take(key, 2, 10, HOUR)).toMatchObject({ granted: true, used: 10 });
    expect(await quota.take(fresh(), 11, 10, HOUR)).toMatchObject({ granted: false, used: 0, resetMs: 0 });
  });

  it('gives back what was not started, never below zero', async () => {
    const quota = make();
    const key = fresh();
    await quota.take(key, 5, 10, HOUR);
    await quota.release(key, 2);
    expect((await quota.peek(key)).used).toBe(3);
    await quota.release(key, 9);
    expect((await quota.peek(key)).used).toBe(0);
    await quota.release(fresh(), 1);
  });

  it('starts a new window when the old one ends', async () => {
    const quota = make();
    const key = fresh();
    await quota.take(key, 5, 5, 100);
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(await quota.peek(key)).toEqual({ used: 0, resetMs: 0 });
    expect(await quota.take(key, 5, 5, HOUR)).toMatchObject({ granted: true, used: 5 });
  });

  it('counts concurrent takes exactly up to the limit', async () => {
    const quota = make();
    const key = fresh();
    const results = await Promise.all(Array.from({ length: 20 }, () => quota.take(key, 1, 12, HOUR)));
    expect(results.filter((r) => r.granted)).toHaveLength(12);
    expect((await quota.peek(key)).used).toBe(12);
  });
});
