/**
 * The engine: checks one username on many platforms at once and yields each
 * outcome as soon as it is known. Holds the shared dispatcher and limits, so one
 * engine serves every search of a process.
 */
import { setMaxListeners } from 'node:events';
import { untilAborted } from '../abort.js';
import type { Catalogue, Platform } from '../catalogue/platform.js';
import type { LimitSource } from '../schedule/limits.js';
import { budgetOrigin, originLoads } from '../schedule/politeness-bound.js';
import type { BudgetLimit, RateBudget } from '../schedule/rate-budget.js';
import { type Cancellation, Scheduler, type SiteDemand } from '../schedule/scheduler.js';
import type { SiteLimitBook } from '../schedule/site-limit-book.js';
import { ADMIT_SHARE } from '../tuning.js';
import { ChecksInFlight } from './checks-in-flight.js';
import type { ControlGuard } from './controls/control-guard.js';
import { EscalationBudget } from './escalation.js';
import { OriginBreaker } from './origin-breaker.js';
import type { BookCheck, Sent } from './pipeline/dispatch.js';
import { type CheckPlatform, checkPipeline } from './pipeline/pipeline.js';
import type { EgressRoute } from './pipeline/schedule.js';
import type { RetryPolicy } from './retry.js';
import type { SharedChecks } from './shared-checks.js';
import type { TransportTally } from './transport/transport-tally.js';
import type { Transports } from './transport/transports.js';
import type { TransportBook } from './transport-book.js';
import { errorOutcome, type Outcome } from './verdict/outcome.js';
import type { Sessions } from './verdict/session.js';

export type { EgressRoute } from './pipeline/schedule.js';

export interface EngineOptions {
  readonly timeoutMs: number;
  readonly bodyCapBytes: number;
  readonly maxRedirects: number;
  readonly retry: RetryPolicy;
  readonly userAgent: string;
  readonly concurrency: number;
  /** Checks in flight at once to one origin, per egress identity. */
  readonly perHost: number;
  /** Request-rate budget of one origin through one egress identity, unless its platform sets its own. */
  readonly budget: BudgetLimit;
  /**
   * Keep a connection open after a check when no other check to its origin is waiting
   * or in flight; false closes it (`Connection: close`). @default true
   */
  readonly keepIdleConnections?: boolean | undefined;
  /** Checks per search that may escalate to a costlier transport past a bot defence (escalation.ts). @default 0 */
  readonly escalationsPerSearch?: number | undefined;
  /** Origins that stopped answering are not sent checks for a while (see origin-breaker.ts). */
  readonly breaker?: { readonly threshold: number; readonly cooldownMs: number } | undefined;
}

export function browserHeaders(userAgent: string): Record<string, string> {
  return {
    'User-Agent': userAgent,
    Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,application/json;q=0.8,*/*;q=0.7',
    'Accept-Language': 'en-US,en;q=0.9',
    'Accept-Encoding': 'gzip, deflate, br',
  };
}

/** Signals the checks' engine-closed listeners are spread over (see Engine.#closing). */
const CLOSING_SHARDS = 32;

/**
 * The requests a search of `platforms` sends each site (politeness-bound.ts `originLoads`), by
 * site: a check each, and the controls they may take along, with the identities each is
 * `due` through (none without controls).
 */
function siteDemand(
  platforms: readonly Platform[],
  budget: BudgetLimit,
  due: ((platform: Platform) => number) | undefined,
): Map<string, SiteDemand> {
  return new Map(
    originLoads(platforms, budget).map((o) => [
      o.origin,
      {
        requests: o.platforms.length,
        ceiling: o.limit,
        controls: due && new Map(o.platforms.map((p) => [p.id, due(p)])),
      },
    ]),
  );
}

export interface SearchOptions {
  /** Checks of a higher priority get free slots first (professional searches). @default 0 */
  readonly priority?: number;
  /** A platform's expected answer time (ms), by which the in-flight cap starts long checks first. @default 0 */
  readonly expectedMs?: (platform: Platform) => number;
}

export class Engine {
  /** The check pipeline (pipeline/pipeline.ts), built once from the parts below. */
  readonly #checkPlatform: CheckPlatform;
  readonly #budget: BudgetLimit;
  readonly #controls: ControlGuard | undefined;
  readonly #siteLimits: SiteLimitBook | undefined;
  readonly #transports: Transports | undefined;
  readonly #transportBook: TransportBook | undefined;
  /** Checks in flight, which identical checks join (pipeline/send-once.ts); cancelled on close. */
  readonly #inFlight = new ChecksInFlight<Sent>();
  /**
   * Abort every check when the engine closes. Several, each check listening to one in
   * turn: adding or removing a listener costs O(listeners) (a duplicate check), and
   * hundreds of checks in flight on one signal made that a visible share of the CPU.
   */
  readonly #closing = Array.from({ length: CLOSING_SHARDS }, () => new AbortController());
  #nextClosing = 0;
  #closed: Promise<void> | undefined;
  readonly #egress: readonly EgressRoute[];
  readonly #escalationsPerSearch: number;
  readonly #tally: TransportTally | undefined;
  /** Admits searches and books every request's send time (src/schedule/scheduler.ts). */
  readonly #scheduler: Scheduler;
  /** The egress identities' names, in the order of their dispatchers. */
  readonly #identities: readonly string[];
  readonly catalogue: Catalogue;

  constructor(
    catalogue: Catalogue,
    options: EngineOptions,
    deps: {
      /** The egress identities, at least one. */
      egress: readonly EgressRoute[];
      now?: () => number;
      random?: () => number;
      /** Where send times are reserved. @default a LocalRateBudget */
      rateBudget?: RateBudget;
      /** The budget of each site and identity. @default the catalogue's */
      limits?: LimitSource;
      sharedChecks?: SharedChecks;
      /** Control checks of hits (control-guard.ts); absent: hits stand as read. */
      controls?: ControlGuard;
      /** What sites taught us of their limits (src/schedule/site-limit-book.ts); absent: the catalogue's budgets alone. */
      siteLimits?: SiteLimitBook;
      /** The transports platforms may name besides `http` (transports.ts); absent: every check goes by http. */
      transports?: Transports;
      /** Which transport sites were found to need (transport-book.ts); absent: each check starts at its platform's. */
      transportBook?: TransportBook;
      /** Counts the escalations (transport-tally.ts); absent: not counted. */
      tally?: TransportTally;
      /** The operator's sessions by platform (session.ts); absent: none. */
      sessions?: Sessions;
    },
  ) {
    this.catalogue = catalogue;
    // Every check in flight listens to one of them: many at once is expected, not a leak.
    for (const closing of this.#closing) setMaxListeners(0, closing.signal);
    const now = deps.now ?? (() => performance.now());
    const egress = deps.egress.length ? deps.egress : undefined;
    if (!egress) throw new Error('an engine needs at least one egress identity');
    this.#egress = egress;
    this.#escalationsPerSearch = options.escalationsPerSearch ?? 0;
    this.#tally = deps.tally;
    this.#identities = egress.map((route) => route.name);
    this.#scheduler = new Scheduler({
      identities: this.#identities,
      global: options.concurrency,
      perSite: options.perHost,
      admitWithinMs: ADMIT_SHARE * options.timeoutMs,
      clock: {
        now,
        setTimer: (fn, ms) => setTimeout(fn, ms),
        clearTimer: (t) => clearTimeout(t as NodeJS.Timeout),
      },
      ...(deps.rateBudget ? { budget: deps.rateBudget } : {}),
      ...(deps.limits || deps.siteLimits ? { limits: (deps.limits ?? deps.siteLimits)! } : {}),
    });
    this.#budget = options.budget;
    this.#controls = deps.controls;
    this.#siteLimits = deps.siteLimits;
    this.#transports = deps.transports;
    this.#transportBook = deps.transportBook;
    this.#checkPlatform = checkPipeline({
      inFlight: this.#inFlight,
      sharedChecks: deps.sharedChecks,
      egress,
      scheduler: this.#scheduler,
      budget: options.budget,
      shields: catalogue.shields,
      baseHeaders: browserHeaders(options.userAgent),
      timeoutMs: options.timeoutMs,
      bodyCapBytes: options.bodyCapBytes,
      maxRedirects: options.maxRedirects,
      keepIdleConnections: options.keepIdleConnections ?? true,
      retry: options.retry,
      now,
      random: deps.random ?? Math.random,
      escalates: new EscalationBudget(this.#escalationsPerSearch).size > 0,
      sessions: deps.sessions,
      breaker: options.breaker && new OriginBreaker({ ...options.breaker, now }),
      controls: deps.controls,
      siteLimits: deps.siteLimits,
      transports: deps.transports,
      transportBook: deps.transportBook,
    });
  }

  /** A search's budget of escalations, each one it takes counted. */
  #escalationBudget(): EscalationBudget {
    const tally = this.#tally;
    return new EscalationBudget(this.#escalationsPerSearch, tally && (() => tally.add('escalations')));
  }

  /**
   * Checks one platform. Two callers asking for the same platform and username
   * at the same time share one request; a caller that gives up (signal) stops
   * waiting, while the shared check runs on for the others, bounded by its timeout.
   */
  check(platform: Platform, username: string, signal?: AbortSignal, priority = 0): Promise<Outcome> {
    // A check alone is a search of one platform: its own budget of escalations. Given no
    // `cancel`, it is a caller that never leaves: its check runs on.
    const escalations = this.#escalationBudget();
    const outcome = this.#checkPlatform(platform, username, this.#closingSignal(), { priority, escalations });
    return signal ? untilAborted(outcome, signal) : outcome;
  }

  /** The engine-closed signal a check listens to, the shards taken in turn. */
  #closingSignal(): AbortSignal {
    return this.#closing[this.#nextClosing++ % CLOSING_SHARDS]!.signal;
  }

  /**
   * Checks every platform concurrently and yields outcomes in the order they are
   * decided. Leaving the loop early, or aborting `signal`, cancels what is left.
   */
  async *search(
    username: string,
    platforms: readonly Platform[],
    signal?: AbortSignal,
    options: SearchOptions = {},
  ): AsyncGenerator<Outcome> {
    const priority = options.priority ?? 0;
    const escalations = this.#escalationBudget();
    // One listener for the whole search, not one per check: a search holds hundreds of
    // checks, and each listener added to or removed from an AbortSignal costs O(listeners).
    let ended = false;
    const ready: Outcome[] = [];
    let remaining = platforms.length;
    let wake: (() => void) | undefined;
    const onCancel = () => wake?.();
    // A check may send its platform's control alongside it (eager controls, due once a window
    // per identity), a request of the same budget, which the scheduler counts (control-count.ts).
    const controls = this.#controls;
    const due = controls && ((p: Platform) => controls.controlsDue(p, this.#identities));
    // Each site admits its requests when they fit there, so none waits past its deadline.
    // Its sites' limits as the cluster last learned them, so its start and its sends count them.
    await Promise.all([this.#siteLimits?.fresh(), this.#transportBook?.fresh()]);
    const admission = await this.#scheduler.admit(siteDemand(platforms, this.#budget, due), priority, signal);
    signal?.addEventListener('abort', onCancel, { once: true });
    // How it stops waiting for each check not ended: left, a check is cancelled unless another waits too.
    const waitingFor = new Set<Cancellation>();
    /** Starts the check of `platform`, once its site has admitted the search. */
    const start = (platform: Platform, site: string) => {
      // Its request is counted on its site until it is booked, or known never to be.
      let counted = true;
      const uncount = () => {
        if (!counted) return;
        counted = false;
        admission.release(site);
      };
      // Its expected answer time goes with it to the in-flight cap, which starts long paths first.
      const expectedMs = options.expectedMs?.(platform) ?? 0;
      const book: BookCheck = (request) => {
        counted = false;
        return admission.book(expectedMs > 0 ? { ...request, expectedMs } : request);
      };
      const leave: Cancellation = {};
      waitingFor.add(leave);
      // Joining a check already made (here or elsewhere), this search books nothing for it.
      this.#checkPlatform(platform, username, this.#closingSignal(), {
        priority,
        book,
        cancel: leave,
        joined: uncount,
        escalations,
      })
        .then(
          (o) => {
            if (!ended) ready.push(o);
          },
          (error: unknown) => {
            if (!ended) ready.push(internalErrorOutcome(platform, error));
          },
        )
        .finally(() => {
          waitingFor.delete(leave);
          uncount();
          admission.checkEnded(platform.id);
          remaining--;
          wake?.();
        });
    };
    for (const platform of platforms) {
      const site = budgetOrigin(platform);
      // A check to a busy site starts once the site admits the search: until then it holds nothing.
      const admitted = admission.whenAdmitted(site);
      if (!admitted) start(platform, site);
      else
        void admitted.then(() => {
          if (!ended) start(platform, site);
        });
    }
    try {
      while (remaining > 0 || ready.length > 0) {
        signal?.throwIfAborted();
        if (ready.length > 0) {
          yield ready.shift()!;
          continue;
        }
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
      signal?.throwIfAborted();
    } finally {
      ended = true;
      // Checks not sent yet that no one else waits for never will be.
      for (const leave of waitingFor) leave.cancel?.(new Error('search ended'));
      waitingFor.clear();
      admission.close();
      ready.length = 0;
      signal?.removeEventListener('abort', onCancel);
    }
  }

  /** Requests not yet sent to `site` (politeness-bound.ts `budgetOrigin`), as the scheduler counts them. */
  unsent(site: string): number {
    return this.#scheduler.unsent(site);
  }

  /** Closes its connections and browsers; closing again waits for the first close. */
  close(): Promise<void> {
    this.#closed ??= this.#close();
    return this.#closed;
  }

  async #close(): Promise<void> {
    const reason = new Error('engine closed');
    for (const closing of this.#closing) closing.abort(reason);
    this.#inFlight.cancelAll(reason);
    await Promise.all([...this.#egress.map((route) => route.dispatcher.close()), this.#transports?.close()]);
  }
}

/** The outcome that stands for a bug in a check (never expected): it reads as "could not tell". */
export function internalErrorOutcome(platform: Platform, error: unknown): Outcome {
  return errorOutcome(
    platform,
    platform.home,
    'internal',
    `internal error: ${error instanceof Error ? error.message : String(error)}`,
  );
}
