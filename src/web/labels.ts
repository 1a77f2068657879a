/**
 * Words and symbols for outcomes and reasons. The symbol and the word carry
 * the meaning; colour only repeats it.
 */
import type { OutcomeReason, OutcomeStatus } from '../engine/verdict/outcome.js';

export const STATUS_LABELS: Record<OutcomeStatus, { readonly symbol: string; readonly label: string }> = {
  hit: { symbol: '✔', label: 'Found' },
  miss: { symbol: '✘', label: 'Not there' },
  unknown: { symbol: '?', label: 'Could not tell' },
  error: { symbol: '!', label: 'No answer' },
  invalid: { symbol: '–', label: 'Name not allowed' },
};

const REASON_LABELS: Record<OutcomeReason, string> = {
  waf: 'blocked by a bot shield',
  captcha: 'asked for a captcha',
  rate_limited: 'rate limited by the platform',
  unexpected_response: 'unexpected answer',
  budget_exhausted: 'not asked: our request budget for the site was used up',
  rule_drift: "the site's rule no longer tells: a made-up name reads the same",
  needs_browser: 'the site needs a browser, and none is installed',
  session_required: 'not asked: the site needs a login session, and none is configured',
  no_miss_rule: 'not found, but the site never says an account is missing',
  timeout: 'timed out',
  dns: 'name did not resolve',
  connection: 'connection failed',
  tls: 'TLS failed',
  blocked_destination: 'destination refused by policy',
  internal: 'internal error',
  username_rule: "breaks the platform's username rule",
  unsafe_username: 'unsafe for this platform',
};

export function reasonText(reason: OutcomeReason | undefined): string {
  return reason === undefined ? '' : (REASON_LABELS[reason] ?? reason);
}
