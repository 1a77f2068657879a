/**
 * The cluster's rate budgets: one GCRA theoretical arrival time (TAT) per
 * (origin, egress identity) key in Redis, shared by every worker. One Lua
 * script per check picks the identity whose next slot comes first, takes it,
 * and answers how long to wait: one round trip, no polling, the caller sleeps
 * exactly that long. Redis's clock (TIME) decides, never the workers'. The
 * arithmetic is src/schedule/gcra.ts's (gcraReserve, then earliestSlot: the
 * soonest slot, the least used key among equals), written again in Lua to run
 * atomically: a change there is a change here.
 *
 * Nothing is held: a slot is a point in time, not a lease. A worker killed
 * after reserving leaks only the slots it reserved and never used, each one
 * interval (1 / perSecond) of that key's budget, and only until that time
 * passes; so it slows the others by at most one interval per such slot, never
 * more, and never blocks anyone. Each key expires when its TAT passes, so idle
 * origins leave nothing in Redis.
 *
 * A Redis error rejects; src/redis/fallback-budget.ts turns that into the
 * process's own budget.
 */
import type { Redis } from 'ioredis';
import { emissionIntervalMs } from '../schedule/gcra.js';
import type { BudgetLimit, RateBudget, Reservation } from '../schedule/rate-budget.js';

export interface RedisRateBudgetOptions {
  readonly redis: Redis;
  /** Key prefix, without the trailing colon. */
  readonly prefix: string;
}

/** Largest wait passed to the script (Lua reads no Infinity). */
const MAX_WAIT_MS = 2 ** 31;

const RESERVE = {
  // KEYS: one per identity of one origin. ARGV: interval ms, burst, maxWaitMs.
  // Returns {index (0-based), wait ms}, or {-1, wait ms} when refused (nothing written).
  lua: `
    local t = redis.call('TIME')
    local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
    local interval = tonumber(ARGV[1])
    local tolerance = (math.max(1, tonumber(ARGV[2])) - 1) * interval
    local best, bestWait, bestTat = 0, -1, 0
    for i = 1, #KEYS do
      local tat = tonumber(redis.call('GET', KEYS[i]) or '0') or 0
      if tat < now then tat = now end
      local wait = tat - tolerance - now
      if wait < 0 then wait = 0 end
      if best == 0 or wait < bestWait or (wait == bestWait and tat < bestTat) then
        best, bestWait, bestTat = i, wait, tat
      end
    end
    if best == 0 or bestWait > tonumber(ARGV[3]) then return {-1, math.ceil(bestWait)} end
    local nextTat = bestTat + interval
    redis.call('SET', KEYS[best], string.format('%.3f', nextTat), 'PX', math.ceil(nextTat - now) + 1)
    return {best - 1, math.ceil(bestWait)}`,
};

type WithReserve = Redis & {
  usBudgetReserve(
    numberOfKeys: number,
    ...args: (string | number)[]
  ): Promise<[index: number, waitMs: number]>;
};

export class RedisRateBudget implements RateBudget {
  readonly #redis: WithReserve;
  readonly #prefix: string;

  constructor(options: RedisRateBudgetOptions) {
    // KEYS vary in number (one per identity): the count goes with each call.
    if (!('usBudgetReserve' in options.redis)) options.redis.defineCommand('usBudgetReserve', RESERVE);
    this.#redis = options.redis as WithReserve;
    this.#prefix = options.prefix;
  }

  /** The Redis key of a budget key. */
  keyOf(key: string): string {
    return `${this.#prefix}:budget:${key}`;
  }

  async reserve(
    keys: readonly string[],
    limit: BudgetLimit,
    maxWaitMs: number,
  ): Promise<Reservation | undefined> {
    if (keys.length === 0) return undefined;
    const [index, waitMs] = await this.#redis.usBudgetReserve(
      keys.length,
      ...keys.map((key) => this.keyOf(key)),
      emissionIntervalMs(limit),
      limit.burst,
      Math.min(Math.max(0, maxWaitMs), MAX_WAIT_MS),
    );
    return index < 0 ? undefined : { index, waitMs };
  }
}
