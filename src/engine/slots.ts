/**
 * At most `concurrency` tasks running at once; a task that finds no free slot
 * waits in line, the highest priority first, first come first served within
 * one. The limiter's global line and its per-origin caps (limiter.ts): what
 * p-queue and p-limit did there, without their per-task bookkeeping (an id, a
 * symbol and a map entry, events, interval checks, two or three promises and
 * closures a task, and a p-limit with its queue made for every origin that
 * came back from idle), which every check of a search paid for.
 */

/** A task waiting for a slot: started by `start` once it has one. */
interface Waiter {
  readonly priority: number;
  readonly start: () => void;
}

export class Slots {
  readonly #concurrency: number;
  #running = 0;
  /** Sorted by priority, highest first, first come first served within one; live from `#head` on. */
  #line: Waiter[] = [];
  #head = 0;

  constructor(concurrency: number) {
    if (!(concurrency >= 1)) throw new RangeError(`concurrency must be at least 1 (got ${concurrency})`);
    this.#concurrency = concurrency;
  }

  /** Tasks holding a slot. */
  get running(): number {
    return this.#running;
  }

  /** Tasks waiting in line for one. */
  get waiting(): number {
    return this.#line.length - this.#head;
  }

  /** Runs `task` once it holds a slot, and frees the slot when its promise settles. */
  run<T>(task: () => Promise<T>, priority = 0): Promise<T> {
    if (this.#running < this.#concurrency) return this.#start(task);
    return new Promise<T>((resolve, reject) => {
      this.#enqueue({ priority, start: () => this.#start(task).then(resolve, reject) });
    });
  }

  #start<T>(task: () => Promise<T>): Promise<T> {
    this.#running++;
    let done: Promise<T>;
    try {
      done = task();
    } catch (error) {
      done = Promise.reject(error);
    }
    // Freed before the caller hears of the end (this reaction was registered first).
    done.then(this.#release, this.#release);
    return done;
  }

  readonly #release = (): void => {
    this.#running--;
    const next = this.#dequeue();
    if (next) next.start();
  };

  #enqueue(waiter: Waiter): void {
    const line = this.#line;
    if (this.#head === line.length) {
      line.length = 0;
      this.#head = 0;
      line.push(waiter);
      return;
    }
    // Most join at the back: the same priority as the last, or lower.
    if (line[line.length - 1]!.priority >= waiter.priority) {
      line.push(waiter);
      return;
    }
    // Ahead of every lower priority, behind every one as high.
    let low = this.#head;
    let high = line.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (line[mid]!.priority >= waiter.priority) low = mid + 1;
      else high = mid;
    }
    line.splice(low, 0, waiter);
  }

  #dequeue(): Waiter | undefined {
    const line = this.#line;
    if (this.#head === line.length) return undefined;
    const waiter = line[this.#head]!;
    line[this.#head++] = undefined as unknown as Waiter;
    if (this.#head === line.length) {
      line.length = 0;
      this.#head = 0;
    } else if (this.#head > 1024 && this.#head > line.length / 2) {
      // Served entries are dropped now and then, not one shift at a time.
      this.#line = line.slice(this.#head);
      this.#head = 0;
    }
    return waiter;
  }
}
