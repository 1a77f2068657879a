/**
 * One request waiting for its send time: a check of a search, a check on its
 * own, or a retry or control of a check in flight. Plain data; the scheduler
 * settles it.
 */
import type { BudgetLimit } from './rate-budget.js';
import type { Ranked } from './request-line.js';

export interface Booking extends Ranked {
  readonly site: string;
  /** The catalogue's budget for it: what a learned limit may lower, never raise. */
  readonly ceiling: BudgetLimit;
  /** How long its answer is expected to take (ms): the in-flight cap starts long paths first. */
  readonly expectedMs: number;
  /** Booked at (ms, the scheduler's clock). */
  readonly bookedAt: number;
  /**
   * Longest wait for its send time (ms): for a retry or control from its booking, for a
   * check from when its site's next send time is asked for it, so the wait for an in-flight
   * slot or behind its search's own requests (admitted to fit) does not use it up.
   */
  readonly maxWaitMs: number;
  /** Its send time has come, through identity `identity`. */
  readonly send: (identity: number) => void;
  /** It will not be sent: no send time before its deadline, or the budget failed. */
  readonly drop: (waitedMs: number, error?: unknown) => void;
}
