/**
 * Starts a search only when its requests fit its sites' request budgets within the
 * check deadline. A check waits at most its deadline for a send slot, and is not sent
 * past it (`budget_exhausted`); searches started together can queue more requests at
 * one site than its budget sends within a deadline (a site that holds several
 * platforms of every search), and the last of them would go unasked. The backlog
 * counts, per site, the requests of the searches
 * started that are not sent yet, and holds a search back until, at every site it
 * asks, those and its own would all be sent within `withinMs`: the search then
 * waits before it begins, and loses no answer to the wait.
 *
 * A site with requests ahead has spent its burst, so they and the search's are
 * counted at the site's rate alone. A site with nothing committed takes any search,
 * so a search larger than one
 * deadline's worth of a site still runs (alone at that site). Searches wait in
 * one line, the highest priority first, then first come, and only the first may
 * start: a large search is never passed over for ever by smaller ones. Pure data
 * structure with promises; the caller says what each count means.
 */
import { pacedMs } from './politeness-bound.js';
import type { BudgetLimit } from './rate-budget.js';

/** The requests a search sends one site, under that site's budget. */
export interface SiteLoad {
  readonly requests: number;
  readonly limit: BudgetLimit;
}

/** A started search's hold on the backlog: each request counted off as it is sent (or never will be). */
export interface BacklogLease {
  /** One request to `site` sent, or known never to be: no longer ahead of anyone. */
  release(site: string): void;
  /** Every request not released yet, released (the search ended). */
  close(): void;
}

interface Waiter {
  readonly loads: ReadonlyMap<string, SiteLoad>;
  readonly priority: number;
  readonly admit: (lease: BacklogLease) => void;
}

export class OriginBacklog {
  readonly #identities: number;
  readonly #withinMs: number;
  /** Requests of started searches not yet sent, by site. */
  readonly #committed = new Map<string, number>();
  /** Searches waiting to start: priority (highest first), then arrival. */
  readonly #line: Waiter[] = [];
  /** Sites where the first in line does not fit yet (undefined: not worked out). */
  #blocking: Set<string> | undefined;

  /**
   * `identities`: egress identities the requests are spread over, each with the budget.
   * `withinMs`: the longest a request may wait for its send slot, counted from its search's start.
   */
  constructor(options: { readonly identities: number; readonly withinMs: number }) {
    if (!Number.isInteger(options.identities) || options.identities < 1)
      throw new RangeError(`identities must be a whole number of at least 1; received ${options.identities}`);
    if (!(options.withinMs > 0))
      throw new RangeError(`withinMs must be above 0; received ${options.withinMs}`);
    this.#identities = options.identities;
    this.#withinMs = options.withinMs;
  }

  /** Requests of started searches not yet sent to `site`. */
  committed(site: string): number {
    return this.#committed.get(site) ?? 0;
  }

  /** Searches waiting to start. */
  get waiting(): number {
    return this.#line.length;
  }

  /**
   * Resolves once the search's `loads` fit (committing them), with the lease that counts them
   * off; rejects with the signal's reason if it aborts first (nothing committed).
   */
  start(loads: ReadonlyMap<string, SiteLoad>, priority = 0, signal?: AbortSignal): Promise<BacklogLease> {
    signal?.throwIfAborted();
    if (this.#line.length === 0 && this.#fits(loads)) return Promise.resolve(this.#commit(loads));
    return new Promise<BacklogLease>((resolve, reject) => {
      const onAbort = () => {
        const at = this.#line.indexOf(waiter);
        if (at === -1) return;
        this.#line.splice(at, 1);
        if (at === 0) this.#blocking = undefined;
        reject(signal?.reason);
        this.#pump();
      };
      const waiter: Waiter = {
        loads,
        priority,
        admit: (lease) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(lease);
        },
      };
      const at = this.#line.findIndex((w) => w.priority < priority);
      const index = at === -1 ? this.#line.length : at;
      this.#line.splice(index, 0, waiter);
      if (index === 0) this.#blocking = undefined;
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#pump();
    });
  }

  /** Whether `requests` more to `site` would all be sent within the allowance. */
  #fitsAt(site: string, load: SiteLoad): boolean {
    const ahead = this.#committed.get(site) ?? 0;
    if (ahead === 0) return true;
    // A site with requests ahead has spent its burst: every request waits its turn at the rate.
    const noBurst = { perSecond: load.limit.perSecond, burst: 0 };
    return pacedMs(ahead + load.requests, noBurst, this.#identities) <= this.#withinMs;
  }

  #fits(loads: ReadonlyMap<string, SiteLoad>): boolean {
    for (const [site, load] of loads) if (!this.#fitsAt(site, load)) return false;
    return true;
  }

  #commit(loads: ReadonlyMap<string, SiteLoad>): BacklogLease {
    const left = new Map<string, number>();
    for (const [site, load] of loads) {
      if (load.requests <= 0) continue;
      left.set(site, load.requests);
      this.#committed.set(site, (this.#committed.get(site) ?? 0) + load.requests);
    }
    const uncommit = (site: string, n: number) => {
      const now = (this.#committed.get(site) ?? 0) - n;
      if (now > 0) this.#committed.set(site, now);
      else this.#committed.delete(site);
      if (this.#blocking?.has(site)) {
        const first = this.#line[0];
        const load = first?.loads.get(site);
        if (!load || this.#fitsAt(site, load)) this.#blocking.delete(site);
        if (this.#blocking.size === 0) this.#pump();
      }
    };
    return {
      release: (site) => {
        const n = left.get(site);
        if (n === undefined) return;
        if (n <= 1) left.delete(site);
        else left.set(site, n - 1);
        uncommit(site, 1);
      },
      close: () => {
        const rest = [...left];
        left.clear();
        for (const [site, n] of rest) uncommit(site, n);
      },
    };
  }

  /** Starts the first in line while it fits. */
  #pump(): void {
    for (;;) {
      const first = this.#line[0];
      if (!first) {
        this.#blocking = undefined;
        return;
      }
      if (this.#blocking === undefined) {
        this.#blocking = new Set();
        for (const [site, load] of first.loads) if (!this.#fitsAt(site, load)) this.#blocking.add(site);
      }
      if (this.#blocking.size > 0) return;
      this.#line.shift();
      this.#blocking = undefined;
      first.admit(this.#commit(first.loads));
    }
  }
}
