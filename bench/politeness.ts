/**
 * The capacity model of docs/deployment.md, as the benchmark computes it. The
 * politeness bound of N searches at once (issue 13's benchmark target): the
 * time the request budgets allow. For each origin a check is counted on,
 * N × (its platforms searched) requests ÷ (its budget × egress identities),
 * plus the slowest of its platforms' latencies (the timeout when one never
 * answers); the bound is the largest over the origins. The sustained rate the
 * budgets allow: for each origin, its budget × identities ÷ its platforms
 * searched, searches a second; the smallest over the origins. Pure, like
 * physicalLimit.
 */
import type { Platform } from '../src/catalogue/platform.js';
import { PLACEHOLDER } from '../src/catalogue/template.js';
import { politeOrigin } from '../src/engine/limiter.js';
import type { BudgetLimit } from '../src/engine/rate-budget.js';
import type { LatencyProfile } from '../src/sim/latency.js';
import { latencyOf } from './platform-set.js';

export interface PolitenessBound {
  readonly boundMs: number;
  /** The origin that sets it. */
  readonly origin: string;
  /** Requests to that origin. */
  readonly requests: number;
}

/** The origin a platform's checks count against (its budget's key, identities aside). */
export function budgetOrigin(platform: Platform): string {
  const origin = new URL(platform.check.url.split(PLACEHOLDER).join('x')).origin;
  return politeOrigin(platform, origin);
}

/** Each origin's platforms searched, strictest budget (requests a second) and slowest latency. */
function originLoads(
  platforms: readonly Platform[],
  options: {
    readonly budget: BudgetLimit;
    readonly profile: LatencyProfile;
    readonly seed: number;
    readonly timeoutMs: number;
  },
): Map<string, { count: number; perSecond: number; latencyMs: number }> {
  const byOrigin = new Map<string, { count: number; perSecond: number; latencyMs: number }>();
  for (const p of platforms) {
    const origin = budgetOrigin(p);
    const l = latencyOf(options.profile, options.seed, p);
    const latencyMs = l === 'hang' ? options.timeoutMs : Math.min(l, options.timeoutMs);
    const perSecond = (p.budget ?? options.budget).perSecond;
    const seen = byOrigin.get(origin);
    byOrigin.set(origin, {
      count: (seen?.count ?? 0) + 1,
      // Platforms sharing an origin share its budget: the strictest of them paces it.
      perSecond: Math.min(seen?.perSecond ?? perSecond, perSecond),
      latencyMs: Math.max(seen?.latencyMs ?? 0, latencyMs),
    });
  }
  return byOrigin;
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
  for (const [origin, o] of loads) {
    const perHour = ((o.perSecond * options.identities) / o.count) * 3600;
    if (perHour < best.perHour) best = { perHour, origin, platforms: o.count };
  }
  return best;
}

/** Egress identities (over the whole deployment) the budgets need to sustain `perHour` searches an hour. */
export function identitiesFor(
  platforms: readonly Platform[],
  options: { readonly perHour: number; readonly budget: BudgetLimit },
): number {
  const one = sustainedRate(platforms, { identities: 1, budget: options.budget });
  return Math.ceil(options.perHour / one.perHour);
}

/** The time the request budgets allow N searches at once (the largest over the origins). */
export function politenessBound(
  platforms: readonly Platform[],
  options: {
    readonly searches: number;
    readonly identities: number;
    /** The configured default budget (a platform may carry its own). */
    readonly budget: BudgetLimit;
    readonly profile: LatencyProfile;
    readonly seed: number;
    readonly timeoutMs: number;
  },
): PolitenessBound {
  const byOrigin = originLoads(platforms, options);
  let best: PolitenessBound = { boundMs: 0, origin: '', requests: 0 };
  for (const [origin, o] of byOrigin) {
    const requests = options.searches * o.count;
    const boundMs = (requests / (o.perSecond * options.identities)) * 1000 + o.latencyMs;
    if (boundMs > best.boundMs) best = { boundMs, origin, requests };
  }
  return best;
}

/** Egress identities a server runs with: its `egress` setting's entries, or the default route. */
export function identitiesOf(overrides: Readonly<Record<string, unknown>>): number {
  const egress = overrides.egress;
  const entries = Array.isArray(egress) ? egress : typeof egress === 'string' ? egress.split(',') : [];
  return Math.max(1, entries.filter((e) => String(e).trim() !== '').length);
}
