/**
 * The scheduler: when each request goes to each site, for checks, controls and
 * retries alike. The path of a check:
 *
 * 1. Admitted. A search tells, per site, how many requests it will send (its
 *    checks and the controls they may take along). It starts when, at every such
 *    site, the requests not yet sent there and its own would all go within
 *    `admitWithinMs` at the site's budget; until then it waits in one line (higher
 *    priority first, then first come, only the first may start), so a started
 *    search never loses a check to the budget. Its requests are counted on the
 *    site from now on.
 * 2. Booked. Each check joins its site's line of requests (request-line.ts: retries
 *    and controls of checks in flight first, then professional before free, then
 *    booking order). A booking is plain data: nothing runs for it yet.
 * 3. Sent. Each (site, identity) has one ledger (ledger.ts) and one send loop: it
 *    takes the first in line, asks the budget backend (rate-budget.ts: this
 *    process's, the search threads' or the cluster's) for the next send time through
 *    its identity, sleeps until then, and sends; a check also takes one of the
 *    `global` in-flight slots (held from before the budget is asked, so it is never
 *    late for want of one) and at most `perSite` go at once per ledger. The ledger
 *    checks the time against what this process really sent there, so a stall never
 *    bunches requests. A request whose send time is further than its wait allowance
 *    (`maxWaitMs`, for a check counted from when its send time is asked) is not sent.
 * 4. Answered. The check runs holding its slots; its retries and its control
 *    (`pace`) are booked on its own identity's ledger, ahead of every check. When it
 *    ends, its slots go to the next in line and waiting searches may start.
 *
 * The budget of a (site, identity) comes from one place, `limits` (limits.ts): the
 * catalogue's, or lower where a site's answers taught a stricter one.
 */

import type { Booking } from './booking.js';
import { type Clock, sleep, systemClock } from './clock.js';
import { InFlightCap } from './in-flight-cap.js';
import { Ledger } from './ledger.js';
import { catalogueLimits, type LimitSource, withinCeiling } from './limits.js';
import { LocalRateBudget } from './local-rate-budget.js';
import type { BudgetLimit, RateBudget } from './rate-budget.js';
import { RequestLine } from './request-line.js';

/** Past this many forgotten ledgers' records, those that no longer count are dropped. */
const FORGET_SWEEP_AT = 4096;

/** The name of the one identity when none is configured: the machine's default route. */
export const DEFAULT_IDENTITY = 'default';

export interface SchedulerOptions {
  /** Names of the egress identities, in the order of their dispatchers. @default [DEFAULT_IDENTITY] */
  readonly identities?: readonly string[];
  /** Checks in flight at once, over all sites. */
  readonly global: number;
  /** Checks in flight at once to one site through one identity. */
  readonly perSite: number;
  /** A search starts once every site it asks would send what is counted there, and its own, within this (ms). */
  readonly admitWithinMs: number;
  /** Where send times are reserved. @default a LocalRateBudget on `clock` */
  readonly budget?: RateBudget;
  /** The budget of each (site, identity). @default the catalogue's */
  readonly limits?: LimitSource;
  /** @default the system clock */
  readonly clock?: Clock;
}

/** What a search will send one site. */
export interface SiteDemand {
  readonly requests: number;
  /** The catalogue's budget of the site. */
  readonly ceiling: BudgetLimit;
}

/** A check to book. */
export interface CheckBooking<T> {
  readonly site: string;
  /** The catalogue's budget of the site (its platform's own, or the default). */
  readonly ceiling: BudgetLimit;
  /** Higher first. @default 0 */
  readonly priority?: number;
  /** Longest wait for its send time, from booking (ms). */
  readonly maxWaitMs: number;
  /** Cancels the booking while it waits (the promise rejects with the reason); no effect once sent. */
  readonly cancel?: Cancellation | undefined;
  /** Sends the check through identity `identity`; its slots are held until this settles. */
  readonly run: (identity: number) => Promise<T>;
}

/**
 * How the owner of a booking cancels it while it waits: `book` fills `cancel` in, and
 * clears it once the booking is sent or dropped. A plain object where an AbortSignal
 * would do: a search books hundreds of checks, and a controller and listener each cost.
 */
export interface Cancellation {
  cancel?: ((reason: unknown) => void) | undefined;
}

/** What became of a booked check: run, or never sent because no send time came in time. */
export type Scheduled<T> =
  | { readonly sent: true; readonly value: T }
  | { readonly sent: false; readonly waitedMs: number };

/** A started search's hold on its sites: the requests it counted, booked or released one by one. */
export interface Admission {
  /** Books a check, counted on its site by this search. */
  book<T>(request: CheckBooking<T>): Promise<Scheduled<T>>;
  /** One request counted on `site` will not be booked (a control not needed). */
  release(site: string): void;
  /** Releases every request counted and not booked (the search ended). */
  close(): void;
}

/** A site's shared state: its line of checks and one ledger per identity. */
interface Site {
  readonly name: string;
  readonly line: RequestLine<Booking>;
  readonly ledgers: readonly Ledger[];
  /** Requests counted by admitted searches and not booked yet. */
  held: number;
  /** Checks in line that a send loop is getting a send time for. */
  claimed: number;
}

interface WaitingSearch {
  readonly demand: ReadonlyMap<string, SiteDemand>;
  readonly priority: number;
  readonly admit: () => void;
}

export class Scheduler {
  readonly #identities: readonly string[];
  readonly #perSite: number;
  readonly #admitWithinMs: number;
  readonly #budget: RateBudget;
  readonly #limits: LimitSource;
  readonly #clock: Clock;
  readonly #cap: InFlightCap;
  readonly #sites = new Map<string, Site>();
  /** Send records of ledgers forgotten while their sends still count, by key. */
  readonly #recent = new Map<string, number>();
  #seq = 0;
  /** Searches waiting to start: priority (highest first), then arrival. */
  readonly #searches: WaitingSearch[] = [];
  /** Sites where the first waiting search does not fit yet (undefined: not worked out). */
  #blocking: Set<string> | undefined;

  constructor(options: SchedulerOptions) {
    if (!(options.perSite >= 1)) throw new RangeError(`perSite must be at least 1 (got ${options.perSite})`);
    if (!(options.admitWithinMs > 0))
      throw new RangeError(`admitWithinMs must be above 0 (got ${options.admitWithinMs})`);
    this.#identities = options.identities?.length ? options.identities : [DEFAULT_IDENTITY];
    this.#perSite = options.perSite;
    this.#admitWithinMs = options.admitWithinMs;
    this.#clock = options.clock ?? systemClock;
    this.#budget = options.budget ?? new LocalRateBudget(() => this.#clock.now());
    this.#limits = options.limits ?? catalogueLimits;
    this.#cap = new InFlightCap(options.global);
  }

  /** The names of the identities, in the order of their dispatchers. */
  get identities(): readonly string[] {
    return this.#identities;
  }

  // ---- 1. Admitted ----------------------------------------------------------------------

  /**
   * Resolves once the search's `demand` fits (counting it on its sites); rejects with the
   * signal's reason if it aborts first, nothing counted.
   */
  admit(demand: ReadonlyMap<string, SiteDemand>, priority = 0, signal?: AbortSignal): Promise<Admission> {
    signal?.throwIfAborted();
    if (this.#searches.length === 0 && this.#fits(demand)) return Promise.resolve(this.#count(demand));
    return new Promise<Admission>((resolve, reject) => {
      const onAbort = () => {
        const at = this.#searches.indexOf(waiter);
        if (at === -1) return;
        this.#searches.splice(at, 1);
        if (at === 0) this.#blocking = undefined;
        reject(signal?.reason);
        this.#startSearches();
      };
      const waiter: WaitingSearch = {
        demand,
        priority,
        admit: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve(this.#count(demand));
        },
      };
      const at = this.#searches.findIndex((w) => w.priority < priority);
      const index = at === -1 ? this.#searches.length : at;
      this.#searches.splice(index, 0, waiter);
      if (index === 0) this.#blocking = undefined;
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#startSearches();
    });
  }

  /** Requests not yet sent to `site`: counted by searches, in line, or retries and controls waiting. */
  unsent(site: string): number {
    const s = this.#sites.get(site);
    if (!s) return 0;
    let n = s.held + s.line.size;
    for (const ledger of s.ledgers) n += ledger.follows.size;
    return n;
  }

  /** Searches waiting to start. */
  get waitingSearches(): number {
    return this.#searches.length;
  }

  #fitsAt(site: string, demand: SiteDemand): boolean {
    const ahead = this.unsent(site);
    if (ahead === 0) return true;
    // Requests are ahead: the burst is spent, every one waits its turn at the rate.
    let perSecond = 0;
    for (const identity of this.#identities)
      perSecond += this.#limitOf(site, identity, demand.ceiling).perSecond;
    return ((ahead + demand.requests) / perSecond) * 1000 <= this.#admitWithinMs;
  }

  #fits(demand: ReadonlyMap<string, SiteDemand>): boolean {
    for (const [site, d] of demand) if (!this.#fitsAt(site, d)) return false;
    return true;
  }

  /** Starts the first waiting search while it fits. */
  #startSearches(): void {
    for (;;) {
      const first = this.#searches[0];
      if (!first) {
        this.#blocking = undefined;
        return;
      }
      if (this.#blocking === undefined) {
        this.#blocking = new Set();
        for (const [site, d] of first.demand) if (!this.#fitsAt(site, d)) this.#blocking.add(site);
      }
      if (this.#blocking.size > 0) return;
      this.#searches.shift();
      this.#blocking = undefined;
      first.admit();
    }
  }

  /** A request to `site` left the count (sent, dropped or released): a waiting search may fit now. */
  #counted(site: string): void {
    if (!this.#blocking?.has(site)) return;
    const d = this.#searches[0]?.demand.get(site);
    if (!d || this.#fitsAt(site, d)) this.#blocking.delete(site);
    if (this.#blocking.size === 0) this.#startSearches();
  }

  #count(demand: ReadonlyMap<string, SiteDemand>): Admission {
    const left = new Map<string, number>();
    for (const [name, d] of demand) {
      if (d.requests <= 0) continue;
      left.set(name, d.requests);
      this.#site(name).held += d.requests;
    }
    const take = (name: string): boolean => {
      const n = left.get(name);
      if (n === undefined) return false;
      if (n <= 1) left.delete(name);
      else left.set(name, n - 1);
      this.#sites.get(name)!.held--;
      return true;
    };
    return {
      book: (request) => {
        // Counted by the search until it is in line: the count moves, it does not drop.
        this.#site(request.site);
        take(request.site);
        return this.book(request);
      },
      release: (name) => {
        if (take(name)) this.#settled(this.#sites.get(name)!);
      },
      close: () => {
        for (const name of [...left.keys()]) while (take(name)) this.#settled(this.#sites.get(name)!);
      },
    };
  }

  // ---- 2. Booked --------------------------------------------------------------------------

  /** Books a check; it runs at its send time (see the top of this file). */
  book<T>(request: CheckBooking<T>): Promise<Scheduled<T>> {
    const site = this.#site(request.site);
    const now = this.#clock.now();
    const handle = request.cancel;
    return new Promise<Scheduled<T>>((resolve, reject) => {
      const booking: Booking = {
        follows: false,
        priority: request.priority ?? 0,
        seq: this.#seq++,
        queued: true,
        site: request.site,
        ceiling: request.ceiling,
        bookedAt: now,
        maxWaitMs: request.maxWaitMs,
        send: (identity) => {
          if (handle) handle.cancel = undefined;
          const ledger = site.ledgers[identity]!;
          let done: Promise<T>;
          try {
            done = request.run(identity);
          } catch (error) {
            done = Promise.reject(error);
          }
          // Its slots are freed before its caller hears of the end.
          const free = () => {
            ledger.inFlight--;
            this.#cap.release();
            this.#settled(site);
          };
          done.then(free, free);
          done.then((value) => resolve({ sent: true, value }), reject);
        },
        drop: (waitedMs, error) => {
          if (handle) handle.cancel = undefined;
          if (error !== undefined) reject(error);
          else resolve({ sent: false, waitedMs: Math.round(waitedMs) });
        },
      };
      if (handle)
        handle.cancel = (reason) => {
          handle.cancel = undefined;
          if (!booking.queued) return;
          site.line.remove(booking);
          reject(reason);
          this.#settled(site);
        };
      site.line.push(booking);
      this.#wake(site);
    });
  }

  /**
   * Waits for the next send time of `site` through identity `identity` for a request of a
   * check in flight (a retry, or a control: they go through their check's identity, ahead of
   * every check in line). False, with nothing sent, when none comes within `maxWaitMs`.
   */
  pace(
    site: string,
    identity: number,
    ceiling: BudgetLimit,
    maxWaitMs: number,
    signal?: AbortSignal,
  ): Promise<boolean> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const s = this.#site(site);
    const ledger = s.ledgers[identity] ?? s.ledgers[0]!;
    const now = this.#clock.now();
    return new Promise<boolean>((resolve, reject) => {
      const onAbort = () => {
        if (!booking.queued) return;
        ledger.follows.remove(booking);
        reject(signal?.reason);
        this.#settled(s);
      };
      const booking: Booking = {
        follows: true,
        priority: 0,
        seq: this.#seq++,
        queued: true,
        site,
        ceiling,
        bookedAt: now,
        maxWaitMs,
        send: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve(true);
        },
        drop: (_waitedMs, error) => {
          signal?.removeEventListener('abort', onAbort);
          if (error !== undefined) reject(error);
          else resolve(false);
        },
      };
      ledger.follows.push(booking);
      signal?.addEventListener('abort', onAbort, { once: true });
      void this.#sendLoop(s, ledger);
    });
  }

  // ---- 3. Sent ----------------------------------------------------------------------------

  #wake(site: Site): void {
    for (const ledger of site.ledgers) if (!ledger.pumping) void this.#sendLoop(site, ledger);
  }

  /** The next booking this ledger would get a send time for: its follows first, then a check it can send. */
  #next(site: Site, ledger: Ledger): { readonly booking: Booking; readonly check: boolean } | undefined {
    const follow = ledger.follows.peek();
    if (follow) return { booking: follow, check: false };
    // Each check in line is claimed by one ledger at a time: a send time is never asked for nothing.
    if (site.line.size <= site.claimed || ledger.inFlight >= this.#perSite) return undefined;
    const check = site.line.peek()!;
    if (!ledger.holdsSlot) {
      if (ledger.waitingSlot) return undefined;
      if (!this.#cap.tryTake()) {
        ledger.waitingSlot = true;
        this.#cap.wait(check.priority, () => {
          ledger.waitingSlot = false;
          ledger.holdsSlot = true;
          void this.#sendLoop(site, ledger);
        });
        return undefined;
      }
      ledger.holdsSlot = true;
    }
    return { booking: check, check: true };
  }

  /** One ledger's send loop: one send time asked for at a time, so a stall releases no bunch. */
  async #sendLoop(site: Site, ledger: Ledger): Promise<void> {
    if (ledger.pumping) return;
    ledger.pumping = true;
    try {
      for (;;) {
        const next = this.#next(site, ledger);
        if (!next) return;
        const { booking } = next;
        if (next.check) site.claimed++;
        let limit: BudgetLimit;
        try {
          limit = this.#limitOf(site.name, ledger.identity, booking.ceiling);
          let left = next.check
            ? booking.maxWaitMs
            : booking.bookedAt + booking.maxWaitMs - this.#clock.now();
          // The site asked us to wait (Retry-After): nothing goes before, and what cannot wait ends.
          const quiet = this.#limits.quietMs?.(site.name, ledger.identity) ?? 0;
          if (quiet > 0 && quiet <= left) {
            await sleep(this.#clock, quiet);
            left -= quiet;
          } else if (quiet > left) left = -1;
          const slot = left >= 0 ? await this.#budget.reserve([ledger.key], limit, left) : undefined;
          if (!slot) {
            this.#drop(site, ledger, booking, undefined);
            continue;
          }
          await sleep(this.#clock, slot.waitMs);
          // What this process really sent here rules: a late wake-up waits out the difference.
          const behind = ledger.waitToConform(this.#clock.now(), limit);
          if (behind > 0) await sleep(this.#clock, behind);
        } catch (error) {
          this.#drop(site, ledger, booking, error);
          continue;
        } finally {
          if (next.check) site.claimed--;
        }
        // Whoever is first now takes the send time: a follow, else a check (the one asked
        // for may have been cancelled meanwhile, or a higher priority booked).
        let taken = ledger.follows.take();
        if (!taken && ledger.holdsSlot && ledger.inFlight < this.#perSite) {
          taken = site.line.take();
          if (taken) {
            ledger.holdsSlot = false;
            ledger.inFlight++;
          }
        }
        if (!taken) continue;
        ledger.noteSent(this.#clock.now(), limit);
        this.#counted(site.name);
        taken.send(ledger.index);
      }
    } finally {
      ledger.pumping = false;
      // Nothing here it could send now: the slot goes to a site that can.
      if (ledger.holdsSlot) {
        ledger.holdsSlot = false;
        this.#cap.release();
      }
      this.#forgetIdle(site);
    }
  }

  /** `booking` will not be sent: no send time in time, or the budget failed. */
  #drop(site: Site, ledger: Ledger, booking: Booking, error: unknown): void {
    if (!booking.queued) return;
    if (booking.follows) ledger.follows.remove(booking);
    else site.line.remove(booking);
    booking.drop(this.#clock.now() - booking.bookedAt, error);
    this.#counted(site.name);
  }

  // ---- 4. Answered ------------------------------------------------------------------------

  /** Something at `site` ended or left the count: its ledgers may send, a search may start. */
  #settled(site: Site): void {
    this.#counted(site.name);
    this.#wake(site);
    this.#forgetIdle(site);
  }

  #forgetIdle(site: Site): void {
    if (site.held > 0 || site.line.size > 0 || site.claimed > 0) return;
    for (const ledger of site.ledgers) if (!ledger.idle) return;
    if (this.#sites.get(site.name) !== site) return;
    this.#sites.delete(site.name);
    // Sends whose time still counts are kept for the next ledger of the key.
    const now = this.#clock.now();
    if (this.#recent.size >= FORGET_SWEEP_AT)
      for (const [k, tat] of this.#recent) if (tat <= now) this.#recent.delete(k);
    for (const ledger of site.ledgers) if (ledger.sentTat > now) this.#recent.set(ledger.key, ledger.sentTat);
  }

  // ---- shared helpers ---------------------------------------------------------------------

  #site(name: string): Site {
    let site = this.#sites.get(name);
    if (!site) {
      site = {
        name,
        line: new RequestLine<Booking>(),
        ledgers: this.#identities.map((identity, i) => {
          const ledger = new Ledger(name, identity, i, this.#recent.get(`${name}|${identity}`));
          this.#recent.delete(ledger.key);
          return ledger;
        }),
        held: 0,
        claimed: 0,
      };
      this.#sites.set(name, site);
    }
    return site;
  }

  #limitOf(site: string, identity: string, ceiling: BudgetLimit): BudgetLimit {
    return withinCeiling(this.#limits.limitOf(site, identity, ceiling), ceiling);
  }

  /** Whether a check to `site` other than the caller's is in line or in flight (the caller's counts as one). */
  othersFor(site: string): boolean {
    const s = this.#sites.get(site);
    if (!s) return false;
    let n = s.line.size;
    for (const ledger of s.ledgers) n += ledger.inFlight;
    return n > 1;
  }

  /** Checks in flight, over all sites. */
  get inFlight(): number {
    let n = 0;
    for (const site of this.#sites.values()) for (const ledger of site.ledgers) n += ledger.inFlight;
    return n;
  }

  /** Sites with anything counted, waiting or running (for tests: idle sites are forgotten). */
  get sites(): number {
    return this.#sites.size;
  }
}
