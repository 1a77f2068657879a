/**
 * The embedded runner: a bounded number of searches run at once on this
 * machine, the rest wait in a tier-aware queue. What runs a search is given:
 * the search thread (the default: checks never hold up the HTTP event loop) or
 * `runSearchJob` on this thread. Checks of all running searches share one
 * engine's global and per-host limits either way.
 */
import type { SearchRecord, SearchStore } from '../store/roles/search-store.js';
import { TierQueue } from './priority-queue.js';
import { notAcceptingError, queueFullError, type Runner, type RunnerStats } from './runner.js';
import { hasEnded, SearchCancelledError } from './search-job.js';

/** Runs one search to its end; rejects with SearchCancelledError when `signal` interrupts it. */
export type SearchExecutor = (search: SearchRecord, signal: AbortSignal) => Promise<void>;

export interface InProcessRunnerOptions {
  /** Searches that run at once. */
  readonly maxRunning: number;
  /** Searches that may wait; more are refused with 503. */
  readonly maxQueued: number;
  /** Retry-After (seconds) of that 503. */
  readonly retryAfterSeconds: number;
  readonly onError?: (error: unknown, search: SearchRecord) => void;
  /**
   * Called once a search has run to its end (not when interrupted), before its
   * slot is given up: what follows a search (its follow-ups, src/service.ts).
   * Handles its own errors.
   */
  readonly afterSearch?: (search: SearchRecord) => Promise<void>;
}

export class InProcessRunner implements Runner {
  readonly #store: SearchStore;
  readonly #execute: SearchExecutor;
  readonly #options: InProcessRunnerOptions;
  readonly #queue = new TierQueue<SearchRecord>();
  readonly #running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  #accepting = false;

  constructor(store: SearchStore, execute: SearchExecutor, options: InProcessRunnerOptions) {
    this.#store = store;
    this.#execute = execute;
    this.#options = options;
  }

  async admit(): Promise<void> {
    if (!this.#accepting) throw notAcceptingError();
    if (this.#queue.size < this.#options.maxQueued || this.#running.size < this.#options.maxRunning) return;
    // A search its readers already see ended keeps its slot only until its job returns (what
    // follows it, a thread's reply): a client that saw it end is not refused for it.
    let ended = 0;
    for (const id of this.#running.keys()) if (await hasEnded(this.#store, id)) ended++;
    if (this.#running.size - ended >= this.#options.maxRunning)
      throw queueFullError(this.#options.retryAfterSeconds);
  }

  async enqueue(search: SearchRecord): Promise<void> {
    await this.admit();
    this.#queue.push(search.tier, search);
    this.#pump();
  }

  async queuedAhead(tier: SearchRecord['tier']): Promise<number> {
    return this.#queue.ahead(tier) + Math.max(0, this.#running.size - this.#options.maxRunning + 1);
  }

  async stats(): Promise<RunnerStats> {
    return { queued: this.#queue.size, running: this.#running.size };
  }

  async cancel(searchId: string): Promise<void> {
    this.#queue.remove((search) => search.id === searchId);
    this.#running.get(searchId)?.controller.abort(new Error('search cancelled'));
  }

  async start(): Promise<void> {
    this.#accepting = true;
    for (const search of await this.#store.unfinishedSearches()) {
      if (this.#running.has(search.id)) continue;
      this.#queue.push(search.tier, search);
    }
    this.#pump();
  }

  async stop(): Promise<void> {
    this.#accepting = false;
    this.#queue.remove(() => true);
    for (const { controller } of this.#running.values()) controller.abort(new Error('runner stopping'));
    await Promise.allSettled([...this.#running.values()].map((r) => r.done));
  }

  #pump(): void {
    while (this.#accepting && this.#running.size < this.#options.maxRunning) {
      const search = this.#queue.shift();
      if (!search) return;
      const controller = new AbortController();
      const done = this.#execute(search, controller.signal)
        // Its own errors are its own to report: never taken for the search's failure.
        .then(() => this.#options.afterSearch?.(search).catch(() => {}))
        .catch((error: unknown) => {
          if (!(error instanceof SearchCancelledError)) this.#options.onError?.(error, search);
        })
        .finally(() => {
          this.#running.delete(search.id);
          this.#pump();
        });
      this.#running.set(search.id, { controller, done });
    }
  }
}
