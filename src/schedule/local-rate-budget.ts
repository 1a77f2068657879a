/**
 * The process-local rate budget: GCRA reservations (gcra.ts) kept in a Map,
 * one theoretical arrival time per (origin, identity) key. The budget of the
 * embedded service and the CLI, and the cluster's fallback during a Redis outage.
 */
import { earliestSlot, emissionIntervalMs, gcraReserve } from './gcra.js';
import type { BudgetLimit, RateBudget, Reservation } from './rate-budget.js';

/** Past this many keys, keys whose budget is full again are forgotten (they hold no state). */
const SWEEP_AT = 4096;

export class LocalRateBudget implements RateBudget {
  readonly #tat = new Map<string, number>();
  readonly #now: () => number;

  /** `now`: a monotonic clock in ms. @default performance.now */
  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  async reserve(
    keys: readonly string[],
    limit: BudgetLimit,
    maxWaitMs: number,
  ): Promise<Reservation | undefined> {
    return this.reserveNow(keys, limit, maxWaitMs);
  }

  /** `reserve`, synchronously: nothing here waits. */
  reserveNow(keys: readonly string[], limit: BudgetLimit, maxWaitMs: number): Reservation | undefined {
    const now = this.#now();
    const interval = emissionIntervalMs(limit);
    const slots = keys.map((key) =>
      gcraReserve(this.#tat.get(key) ?? now, now, interval, limit.burst, maxWaitMs),
    );
    const index = earliestSlot(slots);
    const slot = slots[index];
    if (!slot) return undefined;
    if (this.#tat.size >= SWEEP_AT) this.#sweep(now);
    this.#tat.set(keys[index]!, slot.tat);
    return { index, waitMs: slot.waitMs };
  }

  /** Keys tracked (for tests: forgotten keys do not accumulate). */
  get size(): number {
    return this.#tat.size;
  }

  #sweep(now: number): void {
    for (const [key, tat] of this.#tat) if (tat <= now) this.#tat.delete(key);
  }
}
