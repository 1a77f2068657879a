/**
 * Politeness as a request rate: a budget per (origin, egress identity), so a
 * site receives at most `perSecond` requests a second (after a `burst`) from
 * one client address, however long each answer takes. A budget hands out
 * reservations (GCRA, the token bucket written as one timestamp): the caller
 * learns at once how long to wait and sleeps exactly that long, never polls.
 * The process-local budget and the cluster's Redis budget implement this.
 */

/** A request-rate budget: `perSecond` on average, up to `burst` at once. */
export interface BudgetLimit {
  readonly perSecond: number;
  readonly burst: number;
}

/** A reserved send slot: which of the keys it is on, and how long to wait before sending (ms). */
export interface Reservation {
  readonly index: number;
  readonly waitMs: number;
}

export interface RateBudget {
  /**
   * Reserves the earliest send slot among `keys` (one per egress identity of one
   * origin). Resolves to the slot, or to undefined when none comes within
   * `maxWaitMs`, in which case nothing is reserved.
   */
  reserve(keys: readonly string[], limit: BudgetLimit, maxWaitMs: number): Promise<Reservation | undefined>;
}
