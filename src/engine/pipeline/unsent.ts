/**
 * The outcomes of checks the pipeline decides without an answer: what each step says when
 * it does not send. Their messages are read by people and kept in results.
 */
import type { Platform } from '../../catalogue/platform.js';
import type { BudgetLimit } from '../../schedule/rate-budget.js';
import type { BreakerRefusal } from '../origin-breaker.js';
import { errorOutcome, type Outcome, unsentUnknownOutcome } from '../verdict/outcome.js';

/** Not sent because its origin's request budget had no slot within its deadline. */
export function budgetExhausted(
  platform: Platform,
  profileUrl: string,
  limit: BudgetLimit,
  waitedMs: number,
): Outcome {
  return unsentUnknownOutcome(
    platform,
    profileUrl,
    'budget_exhausted',
    `not sent: the local request budget for this origin (${limit.perSecond}/s, burst ${limit.burst}, per egress identity) had no free slot within the deadline (waited ${waitedMs} ms)`,
  );
}

/** Not sent because its platform needs a browser this process cannot start. */
export function needsBrowser(platform: Platform, profileUrl: string, why: string): Outcome {
  return unsentUnknownOutcome(platform, profileUrl, 'needs_browser', `not sent: ${why}`);
}

/** Not sent because its platform needs a session and none is configured. */
export function sessionRequired(platform: Platform, profileUrl: string): Outcome {
  return unsentUnknownOutcome(
    platform,
    profileUrl,
    'session_required',
    'not sent: the platform needs a session and none is configured (USERSCOUT_SESSIONS_FILE or USERSCOUT_SESSIONS)',
  );
}

/** Not sent because its origin has stopped answering. */
export function unresponsive(platform: Platform, profileUrl: string, refusal: BreakerRefusal): Outcome {
  return errorOutcome(
    platform,
    profileUrl,
    'timeout',
    `not sent: the last ${refusal.timeouts} checks to this origin timed out; it is tried again in ${Math.ceil(refusal.retryInMs / 1000)} s`,
  );
}
