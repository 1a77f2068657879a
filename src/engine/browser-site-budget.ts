/**
 * A site's browser budget (transport/browser-budget.ts) kept as a rate budget, under keys of
 * its own (`browser:<host>`): shared by the cluster's workers as their send slots are.
 */
import type { RateBudget } from '../schedule/rate-budget.js';
import type { BrowserBudget } from './transport/browser-budget.js';

/** `perMinute` browser checks of each host a minute, all of them at once if none were taken. */
export function browserSiteBudget(budget: RateBudget, perMinute: number): BrowserBudget {
  const limit = { perSecond: perMinute / 60, burst: perMinute };
  return {
    perMinute,
    take: async (host) => (await budget.reserve([`browser:${host}`], limit, 0)) !== undefined,
  };
}
