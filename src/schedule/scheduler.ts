/**
 * The scheduler: when each request goes to each site, for checks, controls and
 * retries alike. The path of a check:
 *
 * 1. Admitted, site by site. A search tells, per site, how many requests it will
 *    send: its checks, and the controls they may take along, each due control
 *    counted by one search at a time (control-count.ts). At each site they are
 *    admitted when the requests not yet sent there and its own would all go within
 *    `admitWithinMs` at the site's budget; until then they wait in that site's line
 *    of searches (order a, below; only the first may be admitted), so an admitted
 *    request never loses its check to the budget. A search starts at once: its checks
 *    to sites with room go while those to a busy site wait their turn there, so a
 *    search that waits for the busiest site has its slow platforms answered
 *    meanwhile. Admitted requests are counted on the site.
 * 2. Booked. Each check joins its site's line of requests (request-line.ts, order b
 *    below). A booking is plain data: nothing runs for it yet.
 * 3. Sent. Each (site, identity) has one ledger (ledger.ts) and one send loop: it
 *    takes the first in line, asks the budget backend (rate-budget.ts: this
 *    process's, the search threads' or the cluster's) for the next send time through
 *    its identity and sleeps until then. A retry or control then goes at once; a check
 *    waits for one of the `global` in-flight slots (in-flight-cap.ts, order c below;
 *    none held through a budget's wait) while the loop goes on to the next send time,
 *    so a full cap delays a site's checks without slowing its pace. At most
 *    `perSite` go at once per ledger, and each send keeps to what this process really
 *    sent there, so neither a stall nor slots freed together bunch requests. A request
 *    whose send time is further than its wait allowance (`maxWaitMs`, for a check
 *    counted from when its send time is asked) is not sent.
 * 4. Answered. The check runs holding its slots; its retries and its control
 *    (`pace`) are booked on its own identity's ledger, ahead of every check. When it
 *    ends, its slots go to the next in line and searches waiting there may be admitted.
 *
 * The order. Three lines, each ordered once, here; the files that keep them point here.
 *
 *  a. A site's searches waiting to be admitted: higher priority (professional before
 *     free) first, then the one that asked first.
 *  b. A site's requests waiting for a send time (request-line.ts `goesBefore`): a retry
 *     or control of a check in flight first (its check holds a connection and its
 *     deadline runs), then higher priority, then booking order (a check is booked once
 *     its site has admitted its search, and a search books in its own order, slowest
 *     platform first: src/runner/check-order.ts).
 *  c. Sites' checks whose send time has come, waiting for an in-flight slot
 *     (in-flight-cap.ts `servedBefore`): the longest path ahead first, then higher
 *     priority, then first come at the cap. A path is the longer of the check's
 *     expected answer time and the time its site still needs for every request not
 *     yet sent there, admitted or waiting; paths within a factor of two (and all
 *     under `PATH_UNIT_MS`, tuning.ts) count as alike, so priority decides among
 *     them. Path comes before priority because the busiest site and the slowest
 *     platforms set when searches end: ordered by priority first, a professional
 *     search's quick checks starved a free search's busy-site checks, and every
 *     search's bound with them (docs/decisions/0023). Retries and controls take no slot.
 *     The rank is that of the check first in its site's line when its send time
 *     was asked; the slot, once granted, sends whichever check is first there then.
 *
 * So priority orders searches at a site and requests within a site (a, b), and the
 * longest path orders sites' due checks against each other (c).
 *
 * The budget of a (site, identity) comes from one place, `limits` (limits.ts): the
 * catalogue's, or lower where a site's answers taught a stricter one.
 */

import type { Booking } from './booking.js';
import { type Clock, sleep, systemClock } from './clock.js';
import { ControlCount } from './control-count.js';
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
  /** Its checks there. */
  readonly requests: number;
  /**
   * The controls those checks may take along: platform id → the identities its control is
   * due through. The scheduler counts each for one search at a time, until its check ends.
   */
  readonly controls?: ReadonlyMap<string, number> | undefined;
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
  /** How long its answer is expected to take (ms), its platform's recent answer time. @default 0 */
  readonly expectedMs?: number;
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
  /** Books a check, counted on its site by this search, once the site admits the search's requests. */
  book<T>(request: CheckBooking<T>): Promise<Scheduled<T>>;
  /** Whether `site` has admitted this search's requests (a site it asks nothing of has). */
  admitted(site: string): boolean;
  /** Settles once `site` admits this search's requests, or the search ends first; undefined if admitted. */
  whenAdmitted(site: string): Promise<void> | undefined;
  /** One request counted on `site` will not be booked. */
  release(site: string): void;
  /** The search's check of `platform` ended: the control it counted for it, if any, is released. */
  checkEnded(platform: string): void;
  /** Releases every request counted and not booked (the search ended). */
  close(): void;
}

/** A site's shared state: its searches waiting, its line of checks and one ledger per identity. */
interface Site {
  readonly name: string;
  /** Searches whose requests here wait to be admitted, in order a (top of this file). */
  readonly waiting: Claim[];
  readonly line: RequestLine<Booking>;
  readonly ledgers: readonly Ledger[];
  /** Requests counted by admitted searches and not booked yet. */
  held: number;
  /** Checks in line that a send loop is getting a send time for. */
  claimed: number;
}

/** One search's requests to one site: waiting to be admitted, then counted there until booked or released. */
interface Claim {
  readonly site: Site;
  readonly ceiling: BudgetLimit;
  readonly priority: number;
  /** Requests still to book or release. */
  left: number;
  admitted: boolean;
  /** Bookings made before the site admitted the claim: `go` once it does, `orphan` if the search ends first. */
  readonly pending: { readonly go: () => void; readonly orphan: () => void }[];
  /** Settles when the claim is admitted or its search ends (made when first asked). */
  settled?: Promise<void>;
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
  /** Due controls counted by searches admitted or waiting, until their checks end. */
  readonly #controls = new ControlCount();
  /** Send records of ledgers forgotten while their sends still count, by key. */
  readonly #recent = new Map<string, number>();
  #seq = 0;

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
   * Starts a search asking `demand` of its sites: each site admits its requests when they fit
   * (see the top of this file), and a check booked before then waits for it. Rejects with the
   * signal's reason if it has already aborted, nothing counted.
   */
  admit(demand: ReadonlyMap<string, SiteDemand>, priority = 0, signal?: AbortSignal): Promise<Admission> {
    signal?.throwIfAborted();
    const claims = new Map<string, Claim>();
    /** The controls this search counts, by platform: the site each is counted on. */
    const controlled = new Map<string, string>();
    try {
      for (const [name, d] of demand) {
        let requests = d.requests;
        for (const platform of d.controls ? this.#controls.count(d.controls) : []) {
          controlled.set(platform, name);
          requests++;
        }
        if (requests <= 0) continue;
        const site = this.#site(name);
        const claim: Claim = {
          site,
          ceiling: d.ceiling,
          priority,
          left: requests,
          admitted: false,
          pending: [],
        };
        claims.set(name, claim);
        const at = site.waiting.findIndex((c) => c.priority < priority);
        site.waiting.splice(at === -1 ? site.waiting.length : at, 0, claim);
        this.#admitAt(site);
      }
    } catch (error) {
      // Nothing counted stays counted for a search that never started (a limit source that threw).
      this.#admission(claims, controlled).close();
      throw error;
    }
    return Promise.resolve(this.#admission(claims, controlled));
  }

  /** Requests not yet sent to `site`: counted by searches, in line, or retries and controls waiting. */
  unsent(site: string): number {
    const s = this.#sites.get(site);
    if (!s) return 0;
    let n = s.held + s.line.size;
    for (const ledger of s.ledgers) n += ledger.follows.size;
    return n;
  }

  /** Searches' claims on sites waiting to be admitted, over all sites. */
  get waitingClaims(): number {
    let n = 0;
    for (const site of this.#sites.values()) n += site.waiting.length;
    return n;
  }

  #fits(site: Site, claim: Claim): boolean {
    const ahead = this.unsent(site.name);
    if (ahead === 0) return true;
    // Requests are ahead: the burst is spent, every one waits its turn at the rate.
    let perSecond = 0;
    for (const identity of this.#identities)
      perSecond += this.#limitOf(site.name, identity, claim.ceiling).perSecond;
    return ((ahead + claim.left) / perSecond) * 1000 <= this.#admitWithinMs;
  }

  /** Admits the first claims waiting at `site` while they fit; each counts its requests there. */
  #admitAt(site: Site): void {
    for (let first = site.waiting[0]; first && this.#fits(site, first); first = site.waiting[0]) {
      site.waiting.shift();
      first.admitted = true;
      site.held += first.left;
      for (const booking of first.pending.splice(0)) booking.go();
    }
  }

  /** Leaves `claim` out of its site's line (its search ended or needs nothing more there). */
  #withdraw(claim: Claim): void {
    const at = claim.site.waiting.indexOf(claim);
    if (at === -1) return;
    claim.site.waiting.splice(at, 1);
    if (at === 0) this.#admitAt(claim.site);
    this.#forgetIdle(claim.site);
  }

  /** A request to `site` left the count (sent, dropped or released): a waiting claim may fit now. */
  #counted(site: Site): void {
    if (site.waiting.length > 0) this.#admitAt(site);
  }

  #admission(claims: Map<string, Claim>, controlled: Map<string, string>): Admission {
    /** One request of `claim` is booked or released: counted off its site, or its claim shrinks while it waits. */
    const takeOne = (claim: Claim): void => {
      claim.left--;
      if (claim.admitted) claim.site.held--;
      if (claim.left === 0) claims.delete(claim.site.name);
      if (!claim.admitted) {
        if (claim.left === 0) this.#withdraw(claim);
        else if (claim.site.waiting[0] === claim) this.#admitAt(claim.site);
      }
    };
    const release = (name: string): void => {
      const claim = claims.get(name);
      if (!claim) return;
      takeOne(claim);
      if (claim.admitted) this.#settled(claim.site);
    };
    return {
      book: <T>(request: CheckBooking<T>): Promise<Scheduled<T>> => {
        const claim = claims.get(request.site);
        if (!claim || claim.admitted) {
          // Counted by the search until it is in line: the count moves, it does not drop.
          if (claim) takeOne(claim);
          return this.book(request);
        }
        // Its site has not admitted the search's requests yet: the check waits for it, cancellable.
        return new Promise<Scheduled<T>>((resolve, reject) => {
          const handle = request.cancel;
          const waiting = {
            go: () => {
              takeOne(claim);
              this.book(request).then(resolve, reject);
            },
            // Its search ended while another caller still waits for the check (shared): booked on its own.
            orphan: () => this.book(request).then(resolve, reject),
          };
          claim.pending.push(waiting);
          if (handle)
            handle.cancel = (reason) => {
              handle.cancel = undefined;
              const at = claim.pending.indexOf(waiting);
              if (at === -1) return;
              claim.pending.splice(at, 1);
              takeOne(claim);
              reject(reason);
            };
        });
      },
      admitted: (name) => claims.get(name)?.admitted ?? true,
      whenAdmitted: (name) => {
        const claim = claims.get(name);
        if (!claim || claim.admitted) return undefined;
        claim.settled ??= new Promise<void>((resolve) =>
          claim.pending.push({ go: resolve, orphan: resolve }),
        );
        return claim.settled;
      },
      release,
      checkEnded: (platform) => {
        const site = controlled.get(platform);
        if (site === undefined) return;
        controlled.delete(platform);
        this.#controls.release(platform);
        release(site);
      },
      close: () => {
        for (const platform of controlled.keys()) this.#controls.release(platform);
        controlled.clear();
        for (const claim of [...claims.values()]) {
          claims.delete(claim.site.name);
          if (claim.admitted) {
            claim.site.held -= claim.left;
            claim.left = 0;
            this.#settled(claim.site);
          } else {
            claim.left = 0;
            this.#withdraw(claim);
            for (const booking of claim.pending.splice(0)) booking.orphan();
          }
        }
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
        expectedMs: request.expectedMs ?? 0,
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
        expectedMs: 0,
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
    // Each check in line is claimed by one send time at a time: a send time is never asked for nothing.
    if (site.line.size <= site.claimed || ledger.inFlight + ledger.waitingSlot >= this.#perSite)
      return undefined;
    return { booking: site.line.peek()!, check: true };
  }

  /**
   * One ledger's send loop: one send time asked for at a time, so a stall releases no
   * bunch. A retry or control goes at its send time; a check whose send time has come
   * waits for an in-flight slot (`#whenSlot`) while the loop goes on to the next send
   * time, so a full cap delays the site's checks but does not slow its pace.
   */
  async #sendLoop(site: Site, ledger: Ledger): Promise<void> {
    if (ledger.pumping) return;
    ledger.pumping = true;
    try {
      for (;;) {
        const next = this.#next(site, ledger);
        if (!next) return;
        const { booking } = next;
        if (next.check) site.claimed++;
        let claimed = next.check;
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
          const reserved = left >= 0 ? await this.#budget.reserve([ledger.key], limit, left) : undefined;
          if (!reserved) {
            this.#drop(site, ledger, booking, undefined);
            continue;
          }
          await sleep(this.#clock, reserved.waitMs);
          // Whoever is first now takes the send time: a retry or control goes at once; a check
          // keeps its claim while it waits for an in-flight slot.
          if (ledger.follows.size === 0 && next.check && site.line.size > 0) {
            claimed = false;
            ledger.waitingSlot++;
            void this.#whenSlot(site, ledger, limit, booking);
            continue;
          }
          await this.#conform(ledger, limit);
        } catch (error) {
          this.#drop(site, ledger, booking, error);
          continue;
        } finally {
          if (claimed) site.claimed--;
        }
        const taken = ledger.follows.take();
        if (!taken) continue;
        ledger.noteSent(this.#clock.now(), limit);
        this.#counted(site);
        taken.send(ledger.index);
      }
    } finally {
      ledger.pumping = false;
      this.#forgetIdle(site);
    }
  }

  /**
   * A check's send time has come: it takes an in-flight slot (order c, top of this file,
   * ranked as `due`), keeps to what this process really sent there, and sends the first
   * check in line through `ledger`. Its site's claim ends either way.
   */
  async #whenSlot(site: Site, ledger: Ledger, limit: BudgetLimit, due: Booking): Promise<void> {
    let sent = false;
    let slot = false;
    try {
      if (!this.#cap.tryTake())
        await new Promise<void>((grant) =>
          this.#cap.wait(due.priority, Math.max(due.expectedMs, this.#backlogMs(site, limit)), grant),
        );
      slot = true;
      await this.#conform(ledger, limit);
      const taken = site.line.take();
      if (!taken) return;
      sent = true;
      ledger.inFlight++;
      ledger.noteSent(this.#clock.now(), limit);
      this.#counted(site);
      taken.send(ledger.index);
    } finally {
      if (slot && !sent) this.#cap.release();
      ledger.waitingSlot--;
      site.claimed--;
      // This ledger may send more now, or another line's check may fit.
      if (!sent) this.#settled(site);
      else this.#wake(site);
    }
  }

  /** How long `site` still needs, at `limit` through each identity, for every request not yet sent there, admitted or not (ms). */
  #backlogMs(site: Site, limit: BudgetLimit): number {
    let requests = this.unsent(site.name);
    for (const claim of site.waiting) requests += claim.left;
    return (requests / (limit.perSecond * site.ledgers.length)) * 1000;
  }

  /**
   * Waits until a request may go through `ledger` within `limit`, counting what this process
   * really sent there: a late wake-up, or checks let through together, wait their turn. Checked
   * again after each wait, so the caller can note its send at once after.
   */
  async #conform(ledger: Ledger, limit: BudgetLimit): Promise<void> {
    for (let behind = ledger.waitToConform(this.#clock.now(), limit); behind > 0; ) {
      await sleep(this.#clock, behind);
      behind = ledger.waitToConform(this.#clock.now(), limit);
    }
  }

  /** `booking` will not be sent: no send time in time, or the budget failed. */
  #drop(site: Site, ledger: Ledger, booking: Booking, error: unknown): void {
    if (!booking.queued) return;
    if (booking.follows) ledger.follows.remove(booking);
    else site.line.remove(booking);
    booking.drop(this.#clock.now() - booking.bookedAt, error);
    this.#counted(site);
  }

  // ---- 4. Answered ------------------------------------------------------------------------

  /** Something at `site` ended or left the count: its ledgers may send, a waiting search may be admitted. */
  #settled(site: Site): void {
    this.#counted(site);
    this.#wake(site);
    this.#forgetIdle(site);
  }

  #forgetIdle(site: Site): void {
    if (site.held > 0 || site.line.size > 0 || site.claimed > 0 || site.waiting.length > 0) return;
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
        waiting: [],
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
