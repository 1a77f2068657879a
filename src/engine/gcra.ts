/**
 * The GCRA step (the generic cell rate algorithm: a token bucket kept as one
 * timestamp per key, its theoretical arrival time, TAT), as a pure function
 * over plain numbers. The process-local budget calls it; the cluster's Redis
 * script (src/redis/rate-budget.ts) is the same arithmetic in Lua, because it
 * must run inside Redis to be atomic: a change here is a change there.
 */
import type { BudgetLimit } from './rate-budget.js';

export interface GcraSlot {
  /** Which key the slot is on. */
  readonly index: number;
  /** How long to wait before sending (ms, rounded up). */
  readonly waitMs: number;
  /** That key's theoretical arrival time once the slot is taken. */
  readonly tat: number;
}

/** Milliseconds between two requests at the budget's average rate. */
export function gcraInterval(limit: BudgetLimit): number {
  return 1000 / limit.perSecond;
}

/**
 * The earliest slot among keys whose stored TATs are `tats` (undefined: no
 * request yet), at time `now`; undefined when even the earliest is more than
 * `maxWaitMs` away. A key allows a request once `now >= tat - (burst - 1) ×
 * interval`; taking one moves its TAT on by one interval. Ties go to the first key.
 */
export function gcraReserve(
  tats: readonly (number | undefined)[],
  now: number,
  limit: BudgetLimit,
  maxWaitMs: number,
): GcraSlot | undefined {
  const interval = gcraInterval(limit);
  const tolerance = (Math.max(1, limit.burst) - 1) * interval;
  let best: { index: number; wait: number; tat: number } | undefined;
  for (const [index, stored] of tats.entries()) {
    const tat = Math.max(stored ?? now, now);
    const wait = Math.max(0, tat - tolerance - now);
    if (!best || wait < best.wait) best = { index, wait, tat };
  }
  if (!best || best.wait > maxWaitMs) return undefined;
  return { index: best.index, waitMs: Math.ceil(best.wait), tat: best.tat + interval };
}
