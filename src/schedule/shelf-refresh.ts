/**
 * When a process reads again what every process keeps on a shelf (the store): the books that
 * answer from a copy of it (site-limit-book.ts, transport-book.ts) read it at most once a
 * refresh interval, one read at a time, and a search waits for a read at most `SHELF_READ_WAIT_MS`:
 * a store that does not answer (an outage, commands queued until it is back) holds no search.
 */
import { SHELF_READ_WAIT_MS } from '../tuning.js';

export interface ShelfRefreshOptions {
  /** Reads the shelf into the copy, as of `now` (wall-clock ms); a rejection is told to `onError`. */
  readonly read: (now: number) => Promise<void>;
  /** Wall clock (ms). */
  readonly clock: () => number;
  /** How old the copy may be before the shelf is read again (ms). */
  readonly refreshMs: number;
  readonly onError: (error: unknown) => void;
}

export class ShelfRefresh {
  readonly #options: ShelfRefreshOptions;
  #readAt = Number.NEGATIVE_INFINITY;
  #reading: Promise<void> | undefined;

  constructor(options: ShelfRefreshOptions) {
    this.#options = options;
  }

  /** Whether the copy is older than the refresh interval at `now`. */
  stale(now = this.#options.clock()): boolean {
    return now - this.#readAt >= this.#options.refreshMs;
  }

  /** Reads the shelf again when the copy is stale; resolves once read, or after `SHELF_READ_WAIT_MS` while the read goes on. */
  fresh(): Promise<void> {
    if (!this.stale()) return Promise.resolve();
    this.#reading ??= this.#read().finally(() => {
      this.#reading = undefined;
    });
    const reading = this.#reading;
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, SHELF_READ_WAIT_MS);
      void reading.finally(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  async #read(): Promise<void> {
    const now = this.#options.clock();
    try {
      await this.#options.read(now);
    } catch (error) {
      // Tried again after an interval, not at every ask.
      this.#options.onError(error);
    }
    this.#readAt = now;
  }
}
