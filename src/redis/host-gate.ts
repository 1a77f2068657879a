/**
 * The per-host politeness limit across every worker: a counting semaphore per
 * origin in Redis, whose slots are leases (a sorted set scored by expiry), so
 * a slot held by a killed worker frees itself. Redis's clock decides expiry,
 * never the workers'. When Redis cannot be reached, or a slot does not come
 * within `maxWaitMs`, the check goes ahead under the process's own per-host
 * limit: a Redis outage slows nothing down and never turns into wrong outcomes.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import type { HostGate } from '../engine/host-gate.js';

export interface RedisHostGateOptions {
  readonly redis: Redis;
  /** Key prefix, without the trailing colon. */
  readonly prefix: string;
  /** Checks in flight to one origin, over the whole cluster. */
  readonly limit: number;
  /** A slot not given back within this long frees itself (a worker died). */
  readonly leaseMs: number;
  /** Longest wait for a slot before going ahead anyway. */
  readonly maxWaitMs: number;
  /** Pause between two tries while the origin is busy. @default 20 */
  readonly pollMs?: number;
  readonly onError?: (error: unknown) => void;
}

const ACQUIRE = {
  numberOfKeys: 1,
  // ARGV: token, limit, leaseMs.
  lua: `
    local t = redis.call('TIME')
    local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
    redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
    if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2]) then
      redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
      redis.call('PEXPIRE', KEYS[1], ARGV[3])
      return 1
    end
    return 0`,
};

type WithAcquire = Redis & {
  usHostAcquire(key: string, token: string, limit: number, leaseMs: number): Promise<number>;
};

export class RedisHostGate implements HostGate {
  readonly #options: RedisHostGateOptions;
  readonly #redis: WithAcquire;

  constructor(options: RedisHostGateOptions) {
    this.#options = options;
    if (!('usHostAcquire' in options.redis)) options.redis.defineCommand('usHostAcquire', ACQUIRE);
    this.#redis = options.redis as WithAcquire;
  }

  async acquire(origin: string): Promise<() => void> {
    const { prefix, limit, leaseMs, maxWaitMs, pollMs = 20, onError } = this.#options;
    const key = `${prefix}:host:${origin}`;
    const token = randomUUID();
    const deadline = Date.now() + maxWaitMs;
    for (let attempt = 0; ; attempt++) {
      let acquired: boolean;
      try {
        acquired = (await this.#redis.usHostAcquire(key, token, limit, leaseMs)) === 1;
      } catch (error) {
        onError?.(error);
        return () => {};
      }
      if (acquired) {
        let released = false;
        return () => {
          if (released) return;
          released = true;
          this.#redis.zrem(key, token).catch((error: unknown) => onError?.(error));
        };
      }
      if (Date.now() >= deadline) return () => {};
      await sleep(pollMs + Math.floor(Math.random() * pollMs * Math.min(attempt + 1, 4)));
    }
  }
}
