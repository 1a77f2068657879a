/**
 * The rate-limit counters on Redis, so every API process counts against the
 * same limits (a fixed window per key, as @fastify/rate-limit's own Redis
 * store). A Redis outage answers 503 `store_unavailable`, never 500.
 */
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { Redis } from 'ioredis';
import { asStoreError } from '../redis/unavailable.js';

const INCREMENT = {
  numberOfKeys: 1,
  // ARGV: window ms. Returns {count in the window, ms left in it}.
  lua: `
    local current = redis.call('INCR', KEYS[1])
    local ttl = redis.call('PTTL', KEYS[1])
    if current == 1 or ttl < 0 then
      redis.call('PEXPIRE', KEYS[1], ARGV[1])
      ttl = tonumber(ARGV[1])
    end
    return {current, ttl}`,
};

type WithIncrement = Redis & { usRateLimit(key: string, windowMs: number): Promise<[number, number]> };

type Callback = (error: Error | null, result?: { current: number; ttl: number }) => void;

/** A store class for @fastify/rate-limit's `store` option; keys go under `PREFIX:ratelimit:`. */
export function redisRateLimitStore(redis: Redis, prefix: string): FastifyRateLimitStoreCtor {
  if (!('usRateLimit' in redis)) redis.defineCommand('usRateLimit', INCREMENT);
  const client = redis as WithIncrement;

  class RedisRateLimitStore implements FastifyRateLimitStore {
    readonly #keyPrefix: string;

    constructor(_options?: unknown, keyPrefix = `${prefix}:ratelimit:`) {
      this.#keyPrefix = keyPrefix;
    }

    incr(key: string, callback: Callback, timeWindow: number): void {
      client.usRateLimit(this.#keyPrefix + key, timeWindow).then(
        ([current, ttl]) => callback(null, { current, ttl }),
        (error: unknown) => callback(asStoreError(error) as Error),
      );
    }

    child(routeOptions: Parameters<FastifyRateLimitStore['child']>[0]): FastifyRateLimitStore {
      // At run time the plugin passes the route's merged limit options, the route under `routeInfo`.
      const route = (routeOptions as { routeInfo?: { method?: unknown; url?: unknown } }).routeInfo;
      return new RedisRateLimitStore(
        undefined,
        `${this.#keyPrefix}${String(route?.method)}${String(route?.url)}-`,
      );
    }
  }
  return RedisRateLimitStore;
}
