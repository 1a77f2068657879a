/**
 * The cluster's browser slots: at most `cap` browser checks at once over every
 * worker, as leases in one sorted set (member: a random token, score: when its
 * lease ends, on Redis's clock). One script drops the ended leases and takes a
 * slot if one is left; a check gives its slot back when it ends, and a worker
 * that dies holding one loses it when the lease ends, a check's deadline and a
 * little later, so no slot is lost for longer than a check may last.
 *
 * While Redis cannot answer, a slot is given without asking (told to `onError`):
 * each process's own cap (USERSCOUT_BROWSER_CONTEXTS) still holds, and a check
 * is not failed for the cluster's bookkeeping.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { type BrowserSlots, once, type SlotRelease } from '../engine/transport/browser-slots.js';

export interface RedisBrowserSlotsOptions {
  readonly redis: Redis;
  /** Key prefix, without the trailing colon. */
  readonly prefix: string;
  /** Browser checks at once in the cluster. */
  readonly cap: number;
  readonly onError?: (error: unknown) => void;
}

const TAKE = {
  numberOfKeys: 1,
  // KEYS: the leases. ARGV: cap, hold ms, token. Returns 1 when taken, 0 when every slot is held.
  lua: `
    local t = redis.call('TIME')
    local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
    redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
    if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
    local hold = tonumber(ARGV[2])
    redis.call('ZADD', KEYS[1], now + hold, ARGV[3])
    if redis.call('PTTL', KEYS[1]) < hold then redis.call('PEXPIRE', KEYS[1], hold + 1000) end
    return 1`,
};

type WithTake = Redis & {
  usBrowserSlotTake(key: string, cap: number, holdMs: number, token: string): Promise<number>;
};

export class RedisBrowserSlots implements BrowserSlots {
  readonly #redis: WithTake;
  readonly #key: string;
  readonly #options: RedisBrowserSlotsOptions;

  constructor(options: RedisBrowserSlotsOptions) {
    if (!('usBrowserSlotTake' in options.redis)) options.redis.defineCommand('usBrowserSlotTake', TAKE);
    this.#redis = options.redis as WithTake;
    this.#key = `${options.prefix}:browser-slots`;
    this.#options = options;
  }

  async tryTake(holdMs: number): Promise<SlotRelease | undefined> {
    const token = randomUUID();
    try {
      const taken = await this.#redis.usBrowserSlotTake(
        this.#key,
        this.#options.cap,
        Math.max(1, Math.ceil(holdMs)),
        token,
      );
      if (taken !== 1) return undefined;
    } catch (error) {
      this.#options.onError?.(error);
      return () => {};
    }
    return once(() => {
      this.#redis.zrem(this.#key, token).catch((error: unknown) => this.#options.onError?.(error));
    });
  }

  /** Slots held now, ended leases included until the next take drops them (for tests and operators). */
  held(): Promise<number> {
    return this.#redis.zcard(this.#key);
  }
}
