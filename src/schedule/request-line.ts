/**
 * A line of waiting entries: a binary heap, cancelled entries dropped lazily when they
 * reach the top. `goesBefore` is the order of requests waiting for a send time (order b
 * in scheduler.ts's header, which states every order the scheduler keeps).
 */

/** What the line orders by. */
export interface Ranked {
  /** A retry or control, bound to the identity of its check in flight. */
  readonly follows: boolean;
  readonly priority: number;
  /** Booking order. */
  readonly seq: number;
  /** False once cancelled or taken: skipped when it reaches the top. */
  queued: boolean;
}

/** Whether `a` goes before `b` (order b, scheduler.ts). */
export function goesBefore(a: Ranked, b: Ranked): boolean {
  if (a.follows !== b.follows) return a.follows;
  if (a.priority !== b.priority) return a.priority > b.priority;
  return a.seq < b.seq;
}

export class RequestLine<T extends Ranked> {
  readonly #heap: T[] = [];
  #live = 0;
  readonly #before: (a: T, b: T) => boolean;

  /** `before`: the order kept, `goesBefore` unless another line (the in-flight cap's) keeps its own. */
  constructor(before: (a: T, b: T) => boolean = goesBefore) {
    this.#before = before;
  }

  /** Entries still queued. */
  get size(): number {
    return this.#live;
  }

  push(entry: T): void {
    const heap = this.#heap;
    heap.push(entry);
    this.#live++;
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#before(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  /** The first queued entry, left in line. */
  peek(): T | undefined {
    this.#dropTaken();
    return this.#heap[0];
  }

  /** The first queued entry, taken out of line (its `queued` set false). */
  take(): T | undefined {
    const first = this.peek();
    if (!first) return undefined;
    first.queued = false;
    this.#live--;
    this.#pop();
    return first;
  }

  /** Takes `entry` out of line wherever it is (a cancel): it leaves the heap when it reaches the top. */
  remove(entry: T): void {
    if (!entry.queued) return;
    entry.queued = false;
    this.#live--;
  }

  #dropTaken(): void {
    while (this.#heap.length > 0 && !this.#heap[0]!.queued) this.#pop();
  }

  #pop(): void {
    const heap = this.#heap;
    const last = heap.pop()!;
    if (heap.length === 0) return;
    heap[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let best = i;
      if (l < heap.length && this.#before(heap[l]!, heap[best]!)) best = l;
      if (r < heap.length && this.#before(heap[r]!, heap[best]!)) best = r;
      if (best === i) return;
      [heap[i], heap[best]] = [heap[best]!, heap[i]!];
      i = best;
    }
  }
}
