/**
 * The embedded service's search threads (search-thread.ts), as one executor:
 * each search goes to the thread running the fewest, so the checks of several
 * searches use more than one core. The threads reserve from one request
 * budget in shared memory (shared-rate-budget.ts), each preferring identities
 * of its own, share the process's browsers (browser-directory.ts), and the
 * first runs the scheduled self-check.
 */
import { BrowserDirectory } from '../engine/transport/browser-directory.js';
import type { SearchExecutor } from './in-process.js';
import { SearchThread, type SearchThreadData, type SearchThreadHooks } from './search-thread.js';
import { SharedRateBudget } from './shared-rate-budget.js';

export class SearchThreads {
  readonly #threads: readonly SearchThread[];

  /** `count` threads (at least one), started on their first search or by `start`. */
  constructor(
    data: Omit<SearchThreadData, 'budget' | 'browsers' | 'thread'>,
    hooks: SearchThreadHooks,
    count: number,
  ) {
    const of = Math.max(1, count);
    // One thread keeps its engine's own budget (a Map, no lock) and browsers: nothing to share.
    const shared =
      of > 1
        ? {
            budget: SharedRateBudget.createBuffer(),
            browsers: BrowserDirectory.createBuffer(data.config.browsers),
          }
        : {};
    this.#threads = Array.from(
      { length: of },
      (_, index) => new SearchThread({ ...data, ...shared, thread: { index, of } }, hooks),
    );
  }

  /** Starts every thread and waits until each is ready. */
  async start(): Promise<void> {
    await Promise.all(this.#threads.map((thread) => thread.start()));
  }

  readonly execute: SearchExecutor = (search, signal) => {
    let least = this.#threads[0]!;
    for (const thread of this.#threads) if (thread.load < least.load) least = thread;
    return least.execute(search, signal);
  };

  async close(): Promise<void> {
    await Promise.all(this.#threads.map((thread) => thread.close()));
  }
}
