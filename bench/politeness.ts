/**
 * The capacity model of docs/deployment.md, as the benchmark computes it. The
 * politeness bound of N searches at once (case 3's target): the
 * time the request budgets allow. For each origin a check is counted on, the
 * time to send N × (its platforms searched) requests under its budget through
 * the egress identities (src/schedule/politeness-bound.ts, which the service's
 * estimate uses too), plus the slowest of its platforms' latencies (the timeout when one never
 * answers); the bound is the largest over the origins. The sustained rate the
 * budgets allow: for each origin, its budget × identities ÷ its platforms
 * searched, searches a second; the smallest over the origins. Pure, like
 * physicalLimit.
 */
import type { Platform } from '../src/catalogue/platform.js';
import { originLoads as budgetLoads, budgetOrigin, pacedMs } from '../src/schedule/politeness-bound.js';
import type { BudgetLimit } from '../src/schedule/rate-budget.js';
import type { LatencyProfile } from '../src/sim/latency.js';
import { latencyOf } from './platform-set.js';

export { budgetOrigin };

export interface PolitenessBound {
  readonly boundMs: number;
  /** The origin that sets it. */
  readonly origin: string;
  /** Requests to that origin. */
  readonly requests: number;
}

/** Each origin's platforms searched, strictest budget and slowest latency. */
function originLoads(
  platforms: readonly Platform[],
  options: {
    readonly budget: BudgetLimit;
    readonly profile: LatencyProfile;
    readonly seed: number;
    readonly timeoutMs: number;
  },
): { origin: string; count: number; limit: BudgetLimit; latencyMs: number }[] {
  return budgetLoads(platforms, options.budget).map((o) => ({
    origin: o.origin,
    count: o.platforms.length,
    limit: o.limit,
    latencyMs: Math.max(
      0,
      ...o.platforms.map((p) => {
        const l = latencyOf(options.profile, options.seed, p);
        return l === 'hang' ? options.timeoutMs : Math.min(l, options.timeoutMs);
      }),
    ),
  }));
}

export interface SustainedRate {
  /** Searches an hour the budgets allow, sustained. */
  readonly perHour: number;
  /** The origin that sets it, and its platforms per search. */
  readonly origin: string;
  readonly platforms: number;
}

/**
 * The searches an hour that request budgets sustain: each search sends each
 * origin its platforms' count of requests, and an origin takes budget ×
 * identities a second, so searches a second ≤ budget × identities ÷ platforms,
 * for every origin.
 */
export function sustainedRate(
  platforms: readonly Platform[],
  options: { readonly identities: number; readonly budget: BudgetLimit },
): SustainedRate {
  const loads = originLoads(platforms, { ...options, profile: 'zero', seed: 0, timeoutMs: 0 });
  let best: SustainedRate = { perHour: Number.POSITIVE_INFINITY, origin: '', platforms: 0 };
  for (const o of loads) {
    const perHour = ((o.limit.perSecond * options.identities) / o.count) * 3600;
    if (perHour < best.perHour) best = { perHour, origin: o.origin, platforms: o.count };
  }
  return best;
}

/**
 * The most searches one worker can run at once, each sending every origin its
 * platforms' count of requests through the worker's `identities`, with every
 * origin's queue of send slots (all of them reserved at once, less the burst)
 * drained within `share` of the check deadline: a check waits at most
 * `timeoutMs` for a slot and is held back (budget_exhausted) past it. Fewer
 * leave the busiest origin's budget idle whenever a search's latency is short;
 * more hold checks back once the worker is kept supplied. At least 1. `share`
 * leaves the rest of the deadline to control checks and retries, which take
 * slots of the same budgets.
 */
export function runningWithinDeadline(
  platforms: readonly Platform[],
  options: {
    readonly identities: number;
    readonly budget: BudgetLimit;
    readonly timeoutMs: number;
    /** @default 0.9 */
    readonly share?: number;
  },
): number {
  const share = options.share ?? 0.9;
  const ids = Math.max(1, options.identities);
  let most = Number.POSITIVE_INFINITY;
  for (const o of budgetLoads(platforms, options.budget)) {
    // R searches queue R x count slots; the last waits (R x count - burst x ids) / (perSecond x ids) s.
    const slots = share * (options.timeoutMs / 1000) * o.limit.perSecond * ids + o.limit.burst * ids;
    most = Math.min(most, Math.floor(slots / o.platforms.length));
  }
  return Number.isFinite(most) ? Math.max(1, most) : 1;
}

/** Egress identities (over the whole deployment) the budgets need to sustain `perHour` searches an hour. */
export function identitiesFor(
  platforms: readonly Platform[],
  options: { readonly perHour: number; readonly budget: BudgetLimit },
): number {
  const one = sustainedRate(platforms, { identities: 1, budget: options.budget });
  return Math.ceil(options.perHour / one.perHour);
}

/** The options the bounds pace requests with. */
interface BoundOptions {
  readonly identities: number;
  /** The configured default budget (a platform may carry its own). */
  readonly budget: BudgetLimit;
  readonly profile: LatencyProfile;
  readonly seed: number;
  readonly timeoutMs: number;
}

/** The largest over the origins of the time to send `requestsTo(origin)` requests under its budget, plus its latency. */
function slowestOrigin(
  platforms: readonly Platform[],
  options: BoundOptions,
  requestsTo: (origin: string, platforms: number) => number,
): PolitenessBound {
  let best: PolitenessBound = { boundMs: 0, origin: '', requests: 0 };
  for (const o of originLoads(platforms, options)) {
    const requests = requestsTo(o.origin, o.count);
    if (requests === 0) continue;
    const boundMs = pacedMs(requests, o.limit, options.identities) + o.latencyMs;
    if (boundMs > best.boundMs) best = { boundMs, origin: o.origin, requests };
  }
  return best;
}

/** The time the request budgets allow N searches at once (the largest over the origins). */
export function politenessBound(
  platforms: readonly Platform[],
  options: BoundOptions & { readonly searches: number },
): PolitenessBound {
  return slowestOrigin(platforms, options, (_, count) => options.searches * count);
}

/**
 * The bound of the requests the sites actually received (`sent`, by site as the
 * simulated web keys it): the same pacing as politenessBound, but counting every
 * request a level sent (control checks, retries, linked re-checks included)
 * instead of one per searched platform. A diagnosis beside the bound:
 * when a level is over that bound but at this one, the extra time is extra
 * requests, not waiting.
 */
export function sentBound(
  platforms: readonly Platform[],
  sent: Readonly<Record<string, number>>,
  options: BoundOptions,
): PolitenessBound {
  return slowestOrigin(platforms, options, (origin) => sent[origin] ?? 0);
}

/** Egress identities a server runs with: its `egress` setting's entries, or the default route. */
export function identitiesOf(overrides: Readonly<Record<string, unknown>>): number {
  const egress = overrides.egress;
  const entries = Array.isArray(egress) ? egress : typeof egress === 'string' ? egress.split(',') : [];
  return Math.max(1, entries.filter((e) => String(e).trim() !== '').length);
}
