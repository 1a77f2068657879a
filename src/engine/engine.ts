/**
 * The engine: checks one username on many platforms at once and yields each
 * outcome as soon as it is known. Holds the shared dispatcher and limits, so one
 * engine serves every search of a process.
 */
import { setMaxListeners } from 'node:events';
import type { Dispatcher } from 'undici';
import type { Catalogue, Platform } from '../catalogue/platform.js';
import { platformUsername, usernameProblem } from '../catalogue/username-rule.js';
import type { SiteLimitBook } from '../schedule/site-limit-book.js';
import { type CheckContext, checkPlatform } from './check.js';
import { CheckFeeder } from './check-feeder.js';
import { ControlCount } from './control-count.js';
import type { ControlGuard } from './control-guard.js';
import { EscalationBudget } from './escalation.js';
import { CheckLimiter } from './limiter.js';
import { type BacklogLease, OriginBacklog, type SiteLoad } from './origin-backlog.js';
import { OriginBreaker } from './origin-breaker.js';
import { errorOutcome, type Outcome } from './outcome.js';
import { budgetOrigin, originLoads } from './politeness-bound.js';
import type { BudgetLimit, RateBudget } from './rate-budget.js';
import type { RetryPolicy } from './retry.js';
import type { SharedChecks } from './shared-checks.js';
import type { Transports } from './transports.js';

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

/** One way out to the network: its name keys its budgets, its dispatcher sends. */
export interface EgressRoute {
  readonly name: string;
  readonly dispatcher: Dispatcher;
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
 * Checks of searches waiting in line for a global slot at most (check-feeder.ts): enough
 * that a freed slot never finds the line empty (the next check joins it within microtasks),
 * while the rest of each search's platforms wait as list entries, not as started checks.
 */
export const CHECKS_IN_LINE = 64;

/**
 * Share of the check deadline the requests of started searches must all be sent within
 * for another search to start (origin-backlog.ts); the rest is left to control checks and
 * retries, which take send slots of the same budgets.
 */
export const BACKLOG_SHARE = 0.9;

/**
 * The requests a search of `platforms` sends each site (politeness-bound.ts `originLoads`), by
 * site: a check each, and a control each for the `controlled` platforms.
 */
function siteLoads(
  platforms: readonly Platform[],
  budget: BudgetLimit,
  controlled: ReadonlySet<Platform>,
  limitOf: (origin: string, ceiling: BudgetLimit) => BudgetLimit,
): Map<string, SiteLoad> {
  return new Map(
    originLoads(platforms, budget).map((o) => {
      let requests = o.platforms.length;
      for (const p of o.platforms) if (controlled.has(p)) requests++;
      return [o.origin, { requests, limit: limitOf(o.origin, o.limit) }];
    }),
  );
}

export interface SearchOptions {
  /** Checks of a higher priority get free slots first (professional searches). @default 0 */
  readonly priority?: number;
}

export class Engine {
  readonly #ctx: CheckContext;
  /** Checks in flight by platform and username: identical checks at the same time are sent once. */
  readonly #inflight = new Map<string, Promise<Outcome>>();
  /**
   * Abort every check when the engine closes. Several, each check listening to one in
   * turn: adding or removing a listener costs O(listeners) (a duplicate check), and
   * hundreds of checks in flight on one signal made that a visible share of the CPU.
   */
  readonly #closing = Array.from({ length: CLOSING_SHARDS }, () => new AbortController());
  #nextClosing = 0;
  readonly #sharedChecks: SharedChecks | undefined;
  /** Starts the checks of searches as the line for global slots has room (check-feeder.ts). */
  readonly #feeder = new CheckFeeder(CHECKS_IN_LINE);
  readonly #egress: readonly EgressRoute[];
  readonly #escalationsPerSearch: number;
  /** Searches start when their requests fit their sites' budgets within the deadline (origin-backlog.ts). */
  readonly #backlog: OriginBacklog;
  /** Due controls counted by searches before they start (control-count.ts). */
  readonly #controlCount = new ControlCount();
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
      /** Where send slots are reserved. @default a LocalRateBudget */
      rateBudget?: RateBudget;
      sharedChecks?: SharedChecks;
      /** Control checks of hits (control-guard.ts); absent: hits stand as read. */
      controls?: ControlGuard;
      /** What sites taught us of their limits (src/schedule/site-limit-book.ts); absent: the catalogue's budgets alone. */
      siteLimits?: SiteLimitBook;
      /** The transports platforms may name besides `http` (transports.ts); absent: every check goes by http. */
      transports?: Transports;
    },
  ) {
    this.catalogue = catalogue;
    // Every check in flight listens to one of them: many at once is expected, not a leak.
    for (const closing of this.#closing) setMaxListeners(0, closing.signal);
    this.#sharedChecks = deps.sharedChecks;
    const now = deps.now ?? (() => performance.now());
    const egress = deps.egress.length ? deps.egress : undefined;
    if (!egress) throw new Error('an engine needs at least one egress identity');
    this.#egress = egress;
    this.#escalationsPerSearch = options.escalationsPerSearch ?? 0;
    this.#identities = egress.map((route) => route.name);
    this.#backlog = new OriginBacklog({
      identities: egress.length,
      withinMs: BACKLOG_SHARE * options.timeoutMs,
    });
    this.#ctx = {
      dispatcher: egress[0]!.dispatcher,
      egress: egress.map((route) => route.dispatcher),
      identities: this.#identities,
      controls: deps.controls,
      siteLimits: deps.siteLimits,
      budget: options.budget,
      limiter: new CheckLimiter({
        global: options.concurrency,
        perOrigin: options.perHost,
        identities: this.#identities,
        now,
        ...(deps.rateBudget ? { budget: deps.rateBudget } : {}),
        ...(deps.siteLimits ? { limits: deps.siteLimits } : {}),
      }),
      shields: catalogue.shields,
      baseHeaders: browserHeaders(options.userAgent),
      timeoutMs: options.timeoutMs,
      bodyCapBytes: options.bodyCapBytes,
      keepIdleConnections: options.keepIdleConnections ?? true,
      maxRedirects: options.maxRedirects,
      retry: options.retry,
      now,
      random: deps.random ?? Math.random,
      breaker: options.breaker && new OriginBreaker({ ...options.breaker, now }),
      transports: deps.transports,
    };
  }

  /**
   * Checks one platform. Two callers asking for the same platform and username
   * at the same time share one request; a caller that gives up (signal) stops
   * waiting, while the shared check runs on for the others, bounded by its timeout.
   */
  check(platform: Platform, username: string, signal?: AbortSignal, priority = 0): Promise<Outcome> {
    // A check alone is a search of one platform: its own budget of escalations.
    const escalations = new EscalationBudget(this.#escalationsPerSearch);
    const shared = this.#sharedCheck(platform, username, priority, undefined, undefined, escalations);
    return signal ? untilAborted(shared, signal) : shared;
  }

  /**
   * The check of `platform` for `username`, shared with a caller already waiting for it.
   * `leftLine`: called once the check no longer waits in line for its first global slot
   * (at once when it is shared: the line holds the first caller's).
   */
  #sharedCheck(
    platform: Platform,
    username: string,
    priority: number,
    leftLine?: () => void,
    sending?: () => void,
    escalations?: EscalationBudget,
  ): Promise<Outcome> {
    const key = `${platform.id}\u0000${platformUsername(platform, username)}`;
    let shared = this.#inflight.get(key);
    if (shared) {
      leftLine?.();
      sending?.();
      return shared;
    }
    const closing = this.#closing[this.#nextClosing++ % CLOSING_SHARDS]!.signal;
    const run = () =>
      checkPlatform(platform, username, this.#ctx, closing, priority, leftLine, sending, escalations);
    // A name no platform can be sent is decided without a request: nothing to share with
    // other processes (and its key could not be written: a lone surrogate has no URI encoding).
    const across = usernameProblem(username) === undefined ? this.#sharedChecks : undefined;
    shared = (
      across
        ? across.run(
            `${platform.id}:${encodeURIComponent(platformUsername(platform, username))}`,
            run,
            leftLine,
          )
        : run()
    ).finally(() => this.#inflight.delete(key));
    this.#inflight.set(key, shared);
    return shared;
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
    const escalations = new EscalationBudget(this.#escalationsPerSearch);
    // One listener for the whole search, not one per check: a search holds hundreds of
    // checks, and each listener added to or removed from an AbortSignal costs O(listeners).
    let ended = false;
    const ready: Outcome[] = [];
    let remaining = platforms.length;
    let wake: (() => void) | undefined;
    const onCancel = () => wake?.();
    // A check may send its platform's control alongside it (eager controls, due once a window
    // per identity): 50 searches at once with twice the running searches sent the 18 controls
    // of archive.org's 9 platforms into a line counted without them, and 3 checks found no send
    // slot within their deadline. Each due control is counted by one search (its check sends it,
    // or another's does), until that search's check ends, sent or not.
    const controls = this.#ctx.controls;
    const controlled = controls
      ? this.#controlCount.count(platforms, (p) => controls.controlsDue(p, this.#identities))
      : new Set<Platform>();
    // Its requests wait for its sites' budgets before it begins, not within its checks' deadlines.
    let lease: BacklogLease;
    try {
      // Its sites' limits as the cluster last learned them, so its start and its sends count them.
      await this.#ctx.siteLimits?.fresh();
      const limiter = this.#ctx.limiter;
      const loads = siteLoads(platforms, this.#ctx.budget, controlled, (origin, ceiling) =>
        limiter.limitOf(origin, ceiling),
      );
      lease = await this.#backlog.start(loads, priority, signal);
    } catch (error) {
      for (const platform of controlled) this.#controlCount.release(platform);
      throw error;
    }
    signal?.addEventListener('abort', onCancel, { once: true });
    // Started as the engine can take them (check-feeder.ts); a shared check runs on after
    // this search stops waiting for it, bounded by its timeout.
    const feed = this.#feeder.add({
      priority,
      items: platforms,
      start: (platform, leftLine) => {
        const site = budgetOrigin(platform);
        let sent = false;
        const sending = () => {
          if (sent) return;
          sent = true;
          lease.release(site);
        };
        let check: Promise<Outcome>;
        try {
          check = this.#sharedCheck(platform, username, priority, leftLine, sending, escalations);
        } catch (error) {
          check = Promise.reject(error);
        }
        check
          .then(
            (outcome) => {
              if (!ended) ready.push(outcome);
            },
            (error: unknown) => {
              if (!ended) ready.push(internalErrorOutcome(platform, error));
            },
          )
          .finally(() => {
            leftLine();
            sending();
            if (controlled.delete(platform)) {
              this.#controlCount.release(platform);
              lease.release(site);
            }
            remaining--;
            wake?.();
          });
      },
    });
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
      // Platforms not started yet never will be: nothing waits for them.
      feed.close();
      for (const platform of controlled) this.#controlCount.release(platform);
      controlled.clear();
      lease.close();
      ready.length = 0;
      signal?.removeEventListener('abort', onCancel);
    }
  }

  async close(): Promise<void> {
    const reason = new Error('engine closed');
    for (const closing of this.#closing) closing.abort(reason);
    await Promise.all([
      ...this.#egress.map((route) => route.dispatcher.close()),
      this.#ctx.transports?.close(),
    ]);
  }
}

/** The promise's result, or a rejection with the signal's reason as soon as it aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
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
