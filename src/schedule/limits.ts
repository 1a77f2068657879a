/**
 * Where the scheduler reads the budget of one site through one identity: the
 * seam for limits learned from the sites' answers. The catalogue's budget (the
 * platform's own, or the configured default) is the ceiling; a source may only
 * lower it.
 */
import type { BudgetLimit } from './rate-budget.js';

export interface LimitSource {
  /** The budget of `site` through `identity` now, at most `ceiling` (the catalogue's). */
  limitOf(site: string, identity: string, ceiling: BudgetLimit): BudgetLimit;
  /** How long (ms) nothing may be sent to `site` through `identity`: the site asked us to wait. */
  quietMs?(site: string, identity: string): number;
}

/** The catalogue's budgets as they are: nothing learned. */
export const catalogueLimits: LimitSource = {
  limitOf: (_site, _identity, ceiling) => ceiling,
};

/** `limit`, held to `ceiling`: what a source gives is never laxer than the catalogue. */
export function withinCeiling(limit: BudgetLimit, ceiling: BudgetLimit): BudgetLimit {
  if (limit.perSecond <= ceiling.perSecond && limit.burst <= ceiling.burst) return limit;
  return {
    perSecond: Math.min(limit.perSecond, ceiling.perSecond),
    burst: Math.min(limit.burst, ceiling.burst),
  };
}
