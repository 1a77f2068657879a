/**
 * The search limit's counters on Redis, so every API process counts against
 * the same windows (see search-quota.ts). Each take is one script: the check
 * and the count are atomic. A Redis outage is a 503 `store_unavailable`, so a
 * search that cannot be counted is not started.
 */
import type { Redis } from 'ioredis';
import { asStoreError } from '../redis/unavailable.js';
import type { QuotaWindow, SearchQuota } from './search-quota.js';

const SCRIPTS = {
  // KEYS: counter. ARGV: n, limit, window ms. Returns {granted 1/0, used, ms left}.
  usQuotaTake: {
    numberOfKeys: 1,
    lua: `
      local used = tonumber(redis.call('GET', KEYS[1]) or '0')
      local ttl = redis.call('PTTL', KEYS[1])
      if used + tonumber(ARGV[1]) > tonumber(ARGV[2]) then
        if ttl < 0 then ttl = 0 end
        return {0, used, ttl}
      end
      used = redis.call('INCRBY', KEYS[1], ARGV[1])
      if ttl < 0 then
        redis.call('PEXPIRE', KEYS[1], ARGV[3])
        ttl = tonumber(ARGV[3])
      end
      return {1, used, ttl}`,
  },
  // KEYS: counter. ARGV: n.
  usQuotaRelease: {
    numberOfKeys: 1,
    lua: `
      local used = tonumber(redis.call('GET', KEYS[1]) or '0')
      if used <= 0 then return 0 end
      local n = math.min(used, tonumber(ARGV[1]))
      return redis.call('DECRBY', KEYS[1], n)`,
  },
} as const;

type Scripted = Redis & {
  usQuotaTake(key: string, n: number, limit: number, windowMs: number): Promise<[number, number, number]>;
  usQuotaRelease(key: string, n: number): Promise<number>;
};

export class RedisSearchQuota implements SearchQuota {
  readonly #redis: Scripted;
  readonly #prefix: string;

  /** Keys go under `PREFIX:quota:`. */
  constructor(redis: Redis, prefix: string) {
    for (const [name, script] of Object.entries(SCRIPTS))
      if (!(name in redis)) redis.defineCommand(name, script);
    this.#redis = redis as Scripted;
    this.#prefix = `${prefix}:quota:`;
  }

  async take(key: string, n: number, limit: number, windowMs: number) {
    try {
      const [granted, used, resetMs] = await this.#redis.usQuotaTake(this.#prefix + key, n, limit, windowMs);
      return { granted: granted === 1, used, resetMs };
    } catch (error) {
      throw asStoreError(error);
    }
  }

  async release(key: string, n: number): Promise<void> {
    try {
      await this.#redis.usQuotaRelease(this.#prefix + key, n);
    } catch (error) {
      throw asStoreError(error);
    }
  }

  async peek(key: string): Promise<QuotaWindow> {
    try {
      const [[, used], [, ttl]] = ((await this.#redis
        .multi()
        .get(this.#prefix + key)
        .pttl(this.#prefix + key)
        .exec()) ?? [
        [null, null],
        [null, -2],
      ]) as [[unknown, string | null], [unknown, number]];
      return ttl > 0 ? { used: Number(used ?? 0), resetMs: ttl } : { used: 0, resetMs: 0 };
    } catch (error) {
      throw asStoreError(error);
    }
  }
}
