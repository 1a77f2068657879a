/**
 * The ledger of one site through one egress identity: what waits to be sent
 * there, what is in flight, and when requests actually went. The budget backend
 * (src/schedule/rate-budget.ts: this process's, the search threads', or Redis for
 * the cluster) hands out send times; the ledger keeps this process's sends to
 * the budget exactly, on the times they really went: a send made late by a
 * stalled event loop moves the next one later instead of bunching with it.
 */

import type { Booking } from './booking.js';
import { emissionIntervalMs } from './gcra.js';
import type { BudgetLimit } from './rate-budget.js';
import { RequestLine } from './request-line.js';

export class Ledger {
  /** The backend's key: site and identity. */
  readonly key: string;
  /** The identity's index among the scheduler's identities (its dispatcher's). */
  readonly index: number;
  readonly identity: string;
  /** Retries and controls of checks in flight through this identity: before any check. */
  readonly follows = new RequestLine<Booking>();
  /** Checks sent through this identity and not yet answered. */
  inFlight = 0;
  /** Checks whose send time came through this identity, waiting for an in-flight slot. */
  waitingSlot = 0;
  /** Whether its send loop is running. */
  pumping = false;
  /** GCRA's theoretical arrival time over the times requests actually went. */
  #sentTat = Number.NEGATIVE_INFINITY;

  /** `sentTat`: the record of an earlier ledger of the same key, forgotten while idle. */
  constructor(site: string, identity: string, index: number, sentTat = Number.NEGATIVE_INFINITY) {
    this.key = `${site}|${identity}`;
    this.identity = identity;
    this.index = index;
    this.#sentTat = sentTat;
  }

  /** Until when the sends made here still count (ms): a ledger forgotten before must hand it on. */
  get sentTat(): number {
    return this.#sentTat;
  }

  /** How long from `now` until a request may go within `limit`, counting the sends made. */
  waitToConform(now: number, limit: BudgetLimit): number {
    const tolerance = (limit.burst - 1) * emissionIntervalMs(limit);
    return Math.max(0, this.#sentTat - tolerance - now);
  }

  /** A request went at `now`. */
  noteSent(now: number, limit: BudgetLimit): void {
    this.#sentTat = Math.max(this.#sentTat, now) + emissionIntervalMs(limit);
  }

  /** Nothing waits, runs or is being scheduled here. */
  get idle(): boolean {
    return this.follows.size === 0 && this.inFlight === 0 && this.waitingSlot === 0 && !this.pumping;
  }
}
