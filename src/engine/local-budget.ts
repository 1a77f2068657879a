/**
 * The process-local rate budget: GCRA TATs in a Map, for one process's own
 * requests. Embedded mode's budget, and the cluster's fallback while Redis
 * cannot answer. Keys whose TAT has passed carry no state and are dropped.
 */
import { gcraReserve } from './gcra.js';
import type { BudgetLimit, RateBudget, Reservation } from './rate-budget.js';

/** Past this many keys, the ones with nothing pending are swept out. */
const SWEEP_AT = 4096;

export class LocalRateBudget implements RateBudget {
  readonly #tats = new Map<string, number>();
  readonly #now: () => number;

  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  async reserve(
    keys: readonly string[],
    limit: BudgetLimit,
    maxWaitMs: number,
  ): Promise<Reservation | undefined> {
    const now = this.#now();
    const slot = gcraReserve(
      keys.map((key) => this.#tats.get(key)),
      now,
      limit,
      maxWaitMs,
    );
    if (!slot) return undefined;
    if (this.#tats.size >= SWEEP_AT) this.#sweep(now);
    this.#tats.set(keys[slot.index]!, slot.tat);
    return { index: slot.index, waitMs: slot.waitMs };
  }

  /** Keys remembered (each has a slot pending or in its burst window). */
  get size(): number {
    return this.#tats.size;
  }

  #sweep(now: number): void {
    for (const [key, tat] of this.#tats) if (tat <= now) this.#tats.delete(key);
  }
}
