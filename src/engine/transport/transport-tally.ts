/**
 * What the costlier transports cost this process, counted in shared memory: a
 * search thread's engine adds to it and the main thread's /metrics reads it,
 * with no message between them. It also owns the count of browser contexts
 * open, which is the process's cap on them (`tryOpenContext`): one fact, the
 * gauge and the cap read the same cell.
 */

import { sharedCells, sharedCellsBuffer } from '../../shared-cells.js';

/** The counters, each only ever added to. */
export const TALLIES = [
  /** Checks tried again through a costlier transport past a bot defence. */
  'escalations',
  /** Chromium processes started. */
  'launches',
  /** Browser tabs (a context and its page) opened; a check takes a wiped one when there is one. */
  'tabs',
  /** Browsers replaced after they crashed (their process died or their connection closed). */
  'crashes',
  /** Browsers killed and replaced because a context did not close in time. */
  'hangs',
  /** Browser checks that found no free slot and waited. */
  'slotWaits',
  /** Browser checks that waited for a slot until their deadline and were not sent. */
  'slotTimeouts',
  /** Browser checks not sent because their site's browser budget was spent. */
  'siteBudgetSpent',
] as const;
export type TallyName = (typeof TALLIES)[number];

/** The cells after the counters: contexts open now, pages open now. */
const CONTEXTS = TALLIES.length;
const PAGES = TALLIES.length + 1;
const CELLS = TALLIES.length + 2;

export type TallyReading = Record<TallyName, number> & {
  readonly contexts: number;
  readonly pages: number;
};

export class TransportTally {
  /** A buffer for a tally that several threads share. */
  static createBuffer(): SharedArrayBuffer {
    return sharedCellsBuffer(CELLS);
  }

  readonly buffer: SharedArrayBuffer;
  readonly #cells: BigInt64Array;

  /** Over `buffer` when given (shared with other threads); otherwise a buffer of its own. */
  constructor(buffer: SharedArrayBuffer = TransportTally.createBuffer()) {
    this.buffer = buffer;
    this.#cells = sharedCells(buffer, CELLS, 'a transport tally');
  }

  add(name: TallyName, n = 1): void {
    Atomics.add(this.#cells, TALLIES.indexOf(name), BigInt(n));
  }

  /** Opens a context's place if fewer than `cap` are open (every thread of the process counted). */
  tryOpenContext(cap: number): boolean {
    const limit = BigInt(cap);
    for (;;) {
      const open = Atomics.load(this.#cells, CONTEXTS);
      if (open >= limit) return false;
      if (Atomics.compareExchange(this.#cells, CONTEXTS, open, open + 1n) === open) return true;
    }
  }

  closeContext(): void {
    Atomics.sub(this.#cells, CONTEXTS, 1n);
  }

  /** Pages open now in the process's browsers (opened, or closed with their context or browser). */
  adjustPages(delta: 1 | -1): void {
    Atomics.add(this.#cells, PAGES, BigInt(delta));
  }

  /** Browser contexts open now, every thread of the process counted. */
  get contexts(): number {
    return Number(Atomics.load(this.#cells, CONTEXTS));
  }

  read(): TallyReading {
    const reading = {
      contexts: this.contexts,
      pages: Number(Atomics.load(this.#cells, PAGES)),
    } as Record<TallyName | 'contexts' | 'pages', number>;
    TALLIES.forEach((name, i) => {
      reading[name] = Number(Atomics.load(this.#cells, i));
    });
    return reading;
  }
}
