/**
 * At most `limit` checks in flight at once over all sites (open connections and
 * the memory of answers being read). Only a check whose send time has come waits
 * for a slot, so none is held through a budget's wait. They are served in the order
 * scheduler.ts's header states as order c, which `servedBefore` keeps. No check
 * waits forever: searches are admitted a bounded number at a time.
 */
import { PATH_UNIT_MS } from '../tuning.js';
import { RequestLine } from './request-line.js';

interface Waiter {
  readonly follows: false;
  readonly priority: number;
  /** How far its path reaches (reachOf). */
  readonly reach: number;
  readonly seq: number;
  queued: boolean;
  readonly grant: () => void;
}

/** Whether `a` is served before `b` (order c, scheduler.ts). */
function servedBefore(a: Waiter, b: Waiter): boolean {
  if (a.reach !== b.reach) return a.reach > b.reach;
  if (a.priority !== b.priority) return a.priority > b.priority;
  return a.seq < b.seq;
}

/** Paths within a factor of two of each other reach alike, so priority decides between them (order c). */
function reachOf(pathMs: number): number {
  return Math.floor(Math.log2(1 + Math.max(0, pathMs) / PATH_UNIT_MS));
}

export class InFlightCap {
  readonly #limit: number;
  #held = 0;
  #seq = 0;
  readonly #waiting = new RequestLine<Waiter>(servedBefore);

  constructor(limit: number) {
    if (!(limit >= 1)) throw new RangeError(`the in-flight cap must be at least 1 (got ${limit})`);
    this.#limit = limit;
  }

  /** Takes a slot when one is free and nobody waits. */
  tryTake(): boolean {
    if (this.#held >= this.#limit || this.#waiting.size > 0) return false;
    this.#held++;
    return true;
  }

  /** Calls `grant` once a slot is taken for it; `pathMs`: the longest path still ahead of it. */
  wait(priority: number, pathMs: number, grant: () => void): void {
    this.#waiting.push({
      follows: false,
      priority,
      reach: reachOf(pathMs),
      seq: this.#seq++,
      queued: true,
      grant,
    });
    this.#serve();
  }

  release(): void {
    this.#held--;
    this.#serve();
  }

  #serve(): void {
    while (this.#held < this.#limit) {
      const next = this.#waiting.take();
      if (!next) return;
      this.#held++;
      next.grant();
    }
  }
}
