/**
 * The time request budgets impose on searches, pure: which origin each
 * platform's checks count against (the scheduler's site), each origin's platforms
 * and strictest budget, and how long a number of requests to one origin takes
 * to send under its budget. One home for the service's estimate
 * (src/runner/estimate.ts) and the benchmark's politeness bound
 * (bench/politeness.ts).
 */
import type { Platform } from '../catalogue/platform.js';
import { PLACEHOLDER, splitAuthority } from '../catalogue/template.js';
import type { BudgetLimit } from './rate-budget.js';

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

/** budgetOrigin's answers: the catalogue is frozen, and every search asks for each of its platforms. */
const origins = new WeakMap<Platform, string>();

/** The origin a platform's checks count against (its budget's key, identities aside), as the check pipeline keys it (src/engine/pipeline/pipeline.ts). */
export function budgetOrigin(platform: Platform): string {
  let origin = origins.get(platform);
  if (origin === undefined) {
    origin = politeOrigin(platform, new URL(platform.check.url.split(PLACEHOLDER).join('x')).origin);
    origins.set(platform, origin);
  }
  return origin;
}

/** One origin's share of a search: the platforms checked on it and the budget that paces them. */
export interface OriginLoad {
  readonly origin: string;
  readonly platforms: readonly Platform[];
  readonly limit: BudgetLimit;
}

/** The platforms grouped by the origin their checks count against. */
export function originLoads(platforms: readonly Platform[], budget: BudgetLimit): OriginLoad[] {
  const byOrigin = new Map<string, { platforms: Platform[]; perSecond: number; burst: number }>();
  for (const p of platforms) {
    const origin = budgetOrigin(p);
    const own = p.budget ?? budget;
    const seen = byOrigin.get(origin);
    if (seen === undefined) {
      byOrigin.set(origin, { platforms: [p], perSecond: own.perSecond, burst: own.burst });
    } else {
      // Platforms sharing an origin share its budget: the strictest of them paces it.
      seen.platforms.push(p);
      seen.perSecond = Math.min(seen.perSecond, own.perSecond);
      seen.burst = Math.min(seen.burst, own.burst);
    }
  }
  return [...byOrigin].map(([origin, o]) => ({
    origin,
    platforms: o.platforms,
    limit: { perSecond: o.perSecond, burst: o.burst },
  }));
}

/**
 * Milliseconds from the first to the last of `requests` sent to one origin
 * under `limit` through `identities` egress identities: a burst goes at once
 * through each identity, the rest at the budget's rate.
 */
export function pacedMs(requests: number, limit: BudgetLimit, identities: number): number {
  const ids = Math.max(1, identities);
  const paced = Math.max(0, requests - limit.burst * ids);
  return (paced / (limit.perSecond * ids)) * 1000;
}
