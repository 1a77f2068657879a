/**
 * Admits checks to the network, politely. Three bounds, in this order:
 * - in flight to one origin: at most `perOrigin` per egress identity (a cap on
 *   connections, held from the start of the wait to the end of the check);
 * - a request-rate budget per (origin, identity) (rate-budget.ts), the catalogue's
 *   or, when lower, the limit the site taught us (`limits`, src/schedule/), which
 *   also holds every request while the site asked us to wait: the check
 *   reserves the earliest slot over its origin's identities, sleeps exactly
 *   until it, and learns which identity to send through; when no slot comes
 *   within the check's wait allowance, nothing is sent. A retry waits for a
 *   slot of its own through the same identity (`pace`), within its check's deadline;
 * - in flight over all origins: at most `global`, the highest priority first (a
 *   professional search's checks before a free one's), first come first served
 *   within one. A check reserves its budget slot holding a global slot, then
 *   sleeps a long wait without it and comes back ahead of every new check, so
 *   checks sleeping on a busy origin's budget hold no global slot and a slot is
 *   not missed for want of one. A slot missed all the same (a stall of the
 *   process) is sent late only when its budget has a burst to absorb it and
 *   nothing went to its origin through its identity within one interval: a
 *   stall releases many checks at once, and the first goes while the others
 *   reserve again, so late requests never bunch.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Platform } from '../catalogue/platform.js';
import { PLACEHOLDER, splitAuthority } from '../catalogue/template.js';
import { emissionIntervalMs } from './gcra.js';
import { LocalRateBudget } from './local-rate-budget.js';
import type { BudgetLimit, RateBudget } from './rate-budget.js';
import { Slots } from './slots.js';

/** The name of the one identity when none is configured: the machine's default route. */
export const DEFAULT_IDENTITY = 'default';

export interface CheckLimiterOptions {
  /** Checks in flight at once, over all origins. */
  readonly global: number;
  /** Checks in flight at once to one origin, per egress identity. */
  readonly perOrigin: number;
  /** Names of the egress identities, in the order of their dispatchers. @default [DEFAULT_IDENTITY] */
  readonly identities?: readonly string[];
  /** Where slots are reserved (Redis in cluster mode). @default a LocalRateBudget */
  readonly budget?: RateBudget;
  /** Monotonic clock (ms). @default performance.now */
  readonly now?: () => number;
  /** What sites taught us of their limits (src/schedule/site-limit-book.ts). @default the catalogue's budgets alone */
  readonly limits?: SiteLimitSource;
}

/** Sites' limits as learned, per origin and identity: what the limiter asks before each reservation. */
export interface SiteLimitSource {
  /** The budget to send within, given the catalogue's (`ceiling`): lower where the site taught us its limit. */
  limit(origin: string, identity: string, ceiling: BudgetLimit): BudgetLimit;
  /** How long (ms) nothing may be sent: the site asked us to wait. */
  quietMs(origin: string, identity: string): number;
}

export interface Admission {
  /** The request-rate budget of the check's origin. */
  readonly limit: BudgetLimit;
  /** Longest wait for a send slot (ms), counted from when the check first holds a global slot to ask for one. */
  readonly maxWaitMs: number;
  /** Higher first when checks wait for a global slot. @default 0 */
  readonly priority?: number;
  /** Stops the wait (the engine closing); the run then rejects with its reason. */
  readonly signal?: AbortSignal | undefined;
  /**
   * Called once, when the check no longer waits in line for its first global slot: it holds
   * one, or it waits on its origin instead (the origin's cap of checks in flight is
   * full), so what starts next need not wait behind it (check-feeder.ts).
   */
  readonly leftLine?: (() => void) | undefined;
}

/** What `run` did: ran the task through identity `identity`, or sent nothing because no slot came in time. */
export type Admitted<T> =
  | { readonly sent: true; readonly value: T }
  | { readonly sent: false; readonly waitedMs: number };

/** The key of one origin's budget through one identity. */
export function budgetKey(origin: string, identity: string): string {
  return `${origin}|${identity}`;
}

/**
 * The site a platform's politeness is counted on: the host, whatever the scheme
 * and port, as sites rate-limit a client address (http://archive.org and
 * https://archive.org are one site, and one budget). A platform whose host holds
 * the username (`https://{username}.example.com`) is one site to its operator,
 * not one site per account: its budget is the template's.
 */
export function politeOrigin(platform: Platform, requestOrigin: string): string {
  const template = splitAuthority(platform.check.url)?.origin;
  const origin = template?.includes(PLACEHOLDER) ? template : requestOrigin;
  return origin
    .replace(/^[a-z][a-z0-9+.-]*:\/\//i, '')
    .replace(/:\d+$/, '')
    .toLowerCase();
}

/** No send slot within the wait allowed: nothing is sent. */
const EXHAUSTED = Symbol('exhausted');
/** Least lateness tolerated (ms), so timer granularity alone never makes a slot late. */
const MIN_TOLERANCE_MS = 4;
/** Waits up to this long (ms) are slept holding the global slot: too short to hand it on. */
const SLEEP_IN_SLOT_MS = 10;
/**
 * A check sleeping on its budget wakes this long (ms) before its slot, takes a global slot and
 * waits out the rest holding it: a timer that fires late or a moment without a free global slot
 * then costs nothing, where a slot missed by more than the tolerance is reserved again behind
 * every check reserved meanwhile, and with 50 searches at once 12 archive.org checks, back
 * after a 7 s sleep, found no new slot within their deadline (budget_exhausted).
 */
const WAKE_EARLY_MS = 100;
/**
 * Only sleeps longer than this (ms) wake early: a slot missed after a short one is reserved
 * again behind a short line, well within the deadline, and holding a global slot through
 * many short waits would keep it from checks that can send.
 */
const WAKE_EARLY_AFTER_MS = 1000;
/** Global priority of a check back from its budget sleep, above every search's. */
const RETURNING = Number.MAX_SAFE_INTEGER;

/** Sleeps `ms`; an abort rejects with the signal's reason, as everything else cancelled does. */
async function wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
  try {
    await sleep(ms, undefined, { signal });
  } catch (error) {
    throw signal?.aborted ? signal.reason : error;
  }
}

export class CheckLimiter {
  readonly #global: Slots;
  readonly #perOrigin = new Map<string, Slots>();
  readonly #perOriginLimit: number;
  readonly #identities: readonly string[];
  readonly #budget: RateBudget;
  readonly #now: () => number;
  readonly #limits: SiteLimitSource | undefined;
  /** When this process last sent through each budget key (origin and identity), while its origin has checks. */
  readonly #lastSent = new Map<string, number>();

  constructor(options: CheckLimiterOptions) {
    this.#global = new Slots(options.global);
    this.#identities = options.identities?.length ? options.identities : [DEFAULT_IDENTITY];
    this.#perOriginLimit = options.perOrigin * this.#identities.length;
    this.#now = options.now ?? (() => performance.now());
    this.#budget = options.budget ?? new LocalRateBudget(this.#now);
    this.#limits = options.limits;
  }

  /**
   * The budget of `origin` now, from the catalogue's `ceiling`: one reservation covers all its
   * identities, so the strictest identity's learned limit paces them all.
   */
  limitOf(origin: string, ceiling: BudgetLimit): BudgetLimit {
    const limits = this.#limits;
    if (!limits) return ceiling;
    let limit = ceiling;
    for (const identity of this.#identities) {
      const own = limits.limit(origin, identity, ceiling);
      if (own.perSecond < limit.perSecond || own.burst < limit.burst)
        limit = {
          perSecond: Math.min(limit.perSecond, own.perSecond),
          burst: Math.min(limit.burst, own.burst),
        };
    }
    return limit;
  }

  /** Runs `task(identity)` once `origin` admits it, its budget's slot has come and a global slot is free. */
  run<T>(origin: string, task: (identity: number) => Promise<T>, admission: Admission): Promise<Admitted<T>> {
    let host = this.#perOrigin.get(origin);
    if (!host) {
      host = new Slots(this.#perOriginLimit);
      this.#perOrigin.set(origin, host);
    }
    const hostSlots = host;
    // Its origin is full: it waits there, not in line for a global slot.
    let admitted = admission;
    if (admission.leftLine && hostSlots.running >= this.#perOriginLimit) {
      admission.leftLine();
      admitted = { ...admission, leftLine: undefined };
    }
    return hostSlots
      .run(() => this.#admit(origin, task, admitted))
      .finally(() => {
        if (hostSlots.running === 0 && hostSlots.waiting === 0) {
          this.#perOrigin.delete(origin);
          for (const identity of this.#identities) this.#lastSent.delete(budgetKey(origin, identity));
        }
      });
  }

  /**
   * Whether a check whose send slot passed more than `tolerance` ago must reserve again. It
   * may still go, late, when nothing went through its key within one interval: it then
   * stands for its own slot, where nothing was sent, and takes a slot of now as well when
   * the budget has one (so a check reserving after it waits its turn). Paced slots leave a
   * budget's burst unused, and a late request within a second of the slots booked after
   * it is one more than they hold: within the budget with a burst of 2 or more, never
   * with a burst of 1. Not when another check went within the interval: a stall released
   * several, and sent together they would pass the budget.
   */
  async #missed(key: string, at: number, tolerance: number, limit: BudgetLimit): Promise<boolean> {
    const now = this.#now();
    if (now - at <= tolerance) return false;
    if (limit.burst < 2) return true;
    const last = this.#lastSent.get(key);
    if (last !== undefined && now - last < emissionIntervalMs(limit)) return true;
    // Noted before the budget is asked, so another check of the same stall finds it.
    this.#lastSent.set(key, now);
    await this.#budget.reserve([key], limit, 0);
    return false;
  }

  async #admit<T>(
    origin: string,
    task: (identity: number) => Promise<T>,
    { limit: ceiling, maxWaitMs, priority = 0, signal, leftLine }: Admission,
  ): Promise<Admitted<T>> {
    const keys = this.#identities.map((identity) => budgetKey(origin, identity));
    // Counted from the first global slot, so a long global queue (many searches at once)
    // delays checks, as it always has, rather than using up their wait for a send slot.
    let started: number | undefined;
    let deadline = Number.POSITIVE_INFINITY;
    // A request sent later than its slot could arrive together with the next
    // slots' requests, a burst the budget never allowed. Up to half an interval
    // late keeps within one request of the budget; later, the check reserves again
    // unless it can stand for its own slot (see #missed).
    let limit = ceiling;
    let tolerance = 0;
    let reserved: { readonly index: number; readonly at: number } | undefined;
    // A check that had its send slot and missed it by our own lateness (a stalled event loop, no
    // free global slot) did not find the budget short: its next reservation gets a whole
    // allowance again, once, so it is sent late rather than not at all.
    let renewed = false;
    for (;;) {
      const step = await this.#global.run(
        async (): Promise<Admitted<T> | typeof EXHAUSTED | number> => {
          signal?.throwIfAborted();
          // Asked at each turn: a limit learned while the check waited applies to its slot.
          limit = this.limitOf(origin, ceiling);
          tolerance = Math.max(emissionIntervalMs(limit) / 2, MIN_TOLERANCE_MS);
          if (started === undefined) {
            started = this.#now();
            deadline = started + maxWaitMs;
            leftLine?.();
          }
          let slot = reserved;
          if (!slot || (await this.#missed(keys[slot.index]!, slot.at, tolerance, limit))) {
            if (slot && !renewed) {
              renewed = true;
              deadline = this.#now() + maxWaitMs;
            }
            // Reserved here, holding a global slot, so the wait for one never makes a slot late.
            const left = deadline - this.#now();
            // Only through identities the site has not asked to wait; with none, the check waits.
            const open = this.#unquiet(origin);
            if (typeof open === 'number') return open > left ? EXHAUSTED : open;
            const reservation =
              left >= 0
                ? await this.#budget.reserve(open ? open.map((i) => keys[i]!) : keys, limit, left)
                : undefined;
            if (!reservation) return EXHAUSTED;
            slot = {
              index: open ? open[reservation.index]! : reservation.index,
              at: this.#now() + reservation.waitMs,
            };
            // A longer wait is slept without the global slot, which goes to a check that can send.
            if (reservation.waitMs > SLEEP_IN_SLOT_MS) {
              reserved = slot;
              return reservation.waitMs > WAKE_EARLY_AFTER_MS
                ? reservation.waitMs - WAKE_EARLY_MS
                : reservation.waitMs;
            }
          }
          const early = slot.at - this.#now();
          if (early > 0) {
            await wait(early, signal);
            // A stall during the wait (up to WAKE_EARLY_MS, slept holding the global slot) must
            // not send it late with others: it then goes round to reserve again.
            if (await this.#missed(keys[slot.index]!, slot.at, tolerance, limit)) {
              reserved = slot;
              return 0;
            }
          }
          // The site asked for quiet while the check slept on its slot: it reserves again after it.
          const hush = this.#limits?.quietMs(origin, this.#identities[slot.index]!) ?? 0;
          if (hush > 0) {
            reserved = undefined;
            return hush > deadline - this.#now() ? EXHAUSTED : hush;
          }
          this.#lastSent.set(keys[slot.index]!, this.#now());
          return { sent: true, value: await task(slot.index) };
        },
        // Back from a budget sleep: ahead of every check not yet reserved, so it is on time.
        reserved ? RETURNING : priority,
      );
      if (step === EXHAUSTED) return { sent: false, waitedMs: Math.round(this.#now() - (started ?? 0)) };
      if (typeof step !== 'number') return step;
      await wait(step, signal);
    }
  }

  /**
   * The identities (indexes) through which `origin` may be sent now: undefined for all of
   * them, or, when the site asked every one to wait, the shortest wait (ms).
   */
  #unquiet(origin: string): readonly number[] | number | undefined {
    const limits = this.#limits;
    if (!limits) return undefined;
    let open: number[] | undefined;
    let shortest = Number.POSITIVE_INFINITY;
    for (let i = 0; i < this.#identities.length; i++) {
      const quiet = limits.quietMs(origin, this.#identities[i]!);
      if (quiet <= 0) {
        if (open) open.push(i);
      } else {
        open ??= Array.from({ length: i }, (_, j) => j);
        shortest = Math.min(shortest, quiet);
      }
    }
    if (!open) return undefined;
    return open.length > 0 ? open : shortest;
  }

  /**
   * Waits for the next send slot of `origin` through identity `identity` (a retry
   * goes out through the identity its check went through), holding whatever the
   * caller holds. False, with nothing reserved, when none comes within `maxWaitMs`.
   */
  async pace(
    origin: string,
    identity: number,
    ceiling: BudgetLimit,
    maxWaitMs: number,
    signal?: AbortSignal,
  ): Promise<boolean> {
    const name = this.#identities[identity] ?? DEFAULT_IDENTITY;
    const key = budgetKey(origin, name);
    const limit = this.#limits ? this.#limits.limit(origin, name, ceiling) : ceiling;
    // The site asked for quiet: the wait comes out of the allowance, before the slot's.
    const quiet = this.#limits?.quietMs(origin, name) ?? 0;
    if (quiet > maxWaitMs) return false;
    if (quiet > 0) await wait(quiet, signal);
    const reservation = await this.#budget.reserve([key], limit, maxWaitMs - quiet);
    if (!reservation) return false;
    if (reservation.waitMs > 0) await wait(reservation.waitMs, signal);
    this.#lastSent.set(key, this.#now());
    return true;
  }

  /** Whether a check to `origin` other than the caller's is waiting or in flight (the caller's own counts as one). */
  othersFor(origin: string): boolean {
    const host = this.#perOrigin.get(origin);
    return host !== undefined && host.running + host.waiting > 1;
  }

  /** Checks holding a global slot (sending). */
  get active(): number {
    return this.#global.running;
  }

  /** Checks waiting for a global slot (to reserve their send slot, or to send on it). */
  get pending(): number {
    return this.#global.waiting;
  }
}
