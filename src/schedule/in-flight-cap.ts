/**
 * At most `limit` checks in flight at once over all sites (open connections and
 * the memory of answers being read). A site whose next check waits for one is
 * served in the scheduler's priority order, higher first, then first come.
 */

interface Waiter {
  readonly priority: number;
  readonly seq: number;
  readonly grant: () => void;
}

export class InFlightCap {
  readonly #limit: number;
  #held = 0;
  #seq = 0;
  readonly #waiting: Waiter[] = [];

  constructor(limit: number) {
    if (!(limit >= 1)) throw new RangeError(`the in-flight cap must be at least 1 (got ${limit})`);
    this.#limit = limit;
  }

  get held(): number {
    return this.#held;
  }

  get waiting(): number {
    return this.#waiting.length;
  }

  /** Takes a slot when one is free. */
  tryTake(): boolean {
    if (this.#held >= this.#limit || this.#waiting.length > 0) return false;
    this.#held++;
    return true;
  }

  /** Calls `grant` once a slot is taken for it. */
  wait(priority: number, grant: () => void): void {
    const waiter = { priority, seq: this.#seq++, grant };
    const at = this.#waiting.findIndex((w) => w.priority < priority);
    this.#waiting.splice(at === -1 ? this.#waiting.length : at, 0, waiter);
    this.#serve();
  }

  release(): void {
    this.#held--;
    this.#serve();
  }

  #serve(): void {
    while (this.#held < this.#limit && this.#waiting.length > 0) {
      this.#held++;
      this.#waiting.shift()!.grant();
    }
  }
}
