/**
 * The request budgets of the embedded service's search threads, in one
 * SharedArrayBuffer every thread reserves from: the same GCRA slots as the
 * process-local budget (gcra.ts), so two threads together never send an origin
 * more from one identity than one budget allows. Reservations take a short
 * lock (Atomics), never a message to another thread.
 *
 * The table holds, per (origin, identity) key, a 64-bit fingerprint of the key
 * and its theoretical arrival time (TAT) on a clock all threads share
 * (performance.timeOrigin + performance.now()). Open addressing, probed
 * linearly; a slot whose TAT has passed holds no state (a key absent and a
 * full bucket are the same), so it is taken over by a new key instead of
 * growing the table. Two keys with one fingerprint would share a budget:
 * stricter, never laxer.
 *
 * Among slots that come equally soon, a thread takes those of its own
 * identities first (`Affinity`: every n-th, from its index), then the least
 * used: each thread then mostly sends an origin through identities of its own,
 * so two threads seldom each open a connection for one (origin, identity).
 * Which slots exist is the same whoever takes them: the budget stays one.
 */
import { earliestSlot, emissionIntervalMs, gcraReserve } from '../schedule/gcra.js';
import type { BudgetLimit, RateBudget, Reservation } from '../schedule/rate-budget.js';

/** Slots of a table when none is asked for: keys are (origin, identity) pairs. */
const DEFAULT_SLOTS = 1 << 16;
/** Bytes before the slots: the lock word and the slot count. */
const HEADER_BYTES = 8;
const UNLOCKED = 0;
const LOCKED = 1;

/** The smallest power of two at or above `n`. */
function powerOfTwo(n: number): number {
  let size = 1;
  while (size < n) size *= 2;
  return size;
}

/** Two FNV-1a hashes (different offsets) of `key`: its fingerprint, never (0, 0), the empty slot. */
function fingerprint(key: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ key.length;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193) + 0x9e3779b9;
  }
  a >>>= 0;
  b >>>= 0;
  return a === 0 && b === 0 ? [1, 0] : [a, b];
}

/** Which identities (by index among an origin's keys) a thread prefers: every `of`-th from `index`. */
export interface Affinity {
  readonly index: number;
  readonly of: number;
}

/** The clock every thread of the process reads alike, ms. */
const sharedClock = (): number => performance.timeOrigin + performance.now();

export class SharedRateBudget implements RateBudget {
  readonly #lock: Int32Array;
  readonly #prints: Uint32Array;
  readonly #tats: Float64Array;
  readonly #mask: number;
  readonly #now: () => number;
  readonly #own: (index: number) => boolean;

  /** A table for about `keys` (origin, identity) keys at once, to hand to each thread's SharedRateBudget. */
  static createBuffer(keys = DEFAULT_SLOTS / 4): SharedArrayBuffer {
    const slots = powerOfTwo(Math.max(64, keys * 4));
    const buffer = new SharedArrayBuffer(HEADER_BYTES + slots * 16);
    new Int32Array(buffer, 0, 2)[1] = slots;
    return buffer;
  }

  /**
   * `buffer`: from `createBuffer`, the same one in every thread. `affinity`: this
   * thread's identities. @default every identity its own. `now`: for tests.
   */
  constructor(
    buffer: SharedArrayBuffer,
    affinity: Affinity = { index: 0, of: 1 },
    now: () => number = sharedClock,
  ) {
    const header = new Int32Array(buffer, 0, 2);
    const slots = header[1]!;
    this.#lock = header;
    this.#prints = new Uint32Array(buffer, HEADER_BYTES, slots * 2);
    this.#tats = new Float64Array(buffer, HEADER_BYTES + slots * 8, slots);
    this.#mask = slots - 1;
    this.#now = now;
    this.#own = (i) => i % affinity.of === affinity.index;
  }

  async reserve(
    keys: readonly string[],
    limit: BudgetLimit,
    maxWaitMs: number,
  ): Promise<Reservation | undefined> {
    const prints = keys.map(fingerprint);
    this.#acquire();
    try {
      const now = this.#now();
      const interval = emissionIntervalMs(limit);
      const found = prints.map((print) => this.#find(print, now));
      const slots = found.map((at) =>
        gcraReserve(at.index >= 0 ? this.#tats[at.index]! : now, now, interval, limit.burst, maxWaitMs),
      );
      const index = earliestSlot(slots, this.#own);
      const slot = slots[index];
      if (!slot) return undefined;
      const at = found[index]!;
      const place = at.index >= 0 ? at.index : at.free;
      // Every slot holds a key whose bucket has not refilled: none can be noted, so none is handed out.
      if (place < 0) return undefined;
      this.#prints[2 * place] = prints[index]![0];
      this.#prints[2 * place + 1] = prints[index]![1];
      this.#tats[place] = slot.tat;
      return { index, waitMs: slot.waitMs };
    } finally {
      this.#release();
    }
  }

  /** The key's slot (index, or -1), and where it would go if absent (-1: the table is full). */
  #find([a, b]: [number, number], now: number): { index: number; free: number } {
    let free = -1;
    for (let probe = 0, i = a & this.#mask; probe <= this.#mask; probe++, i = (i + 1) & this.#mask) {
      const pa = this.#prints[2 * i]!;
      const pb = this.#prints[2 * i + 1]!;
      if (pa === a && pb === b) return { index: i, free };
      if (pa === 0 && pb === 0) return { index: -1, free: free >= 0 ? free : i };
      if (free < 0 && this.#tats[i]! <= now) free = i;
    }
    return { index: -1, free };
  }

  #acquire(): void {
    while (Atomics.compareExchange(this.#lock, 0, UNLOCKED, LOCKED) !== UNLOCKED)
      Atomics.wait(this.#lock, 0, LOCKED, 1);
  }

  #release(): void {
    Atomics.store(this.#lock, 0, UNLOCKED);
    Atomics.notify(this.#lock, 0, 1);
  }
}
