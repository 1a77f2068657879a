/**
 * How much of a search the platforms answered: how many said hit or miss, how
 * many could not be reached or could not tell, and whether that share is below
 * the warning threshold (setting `coverageWarningPercent`). "No hit" only means
 * "not there" for the platforms that answered. Pure; every summary (CLI, API,
 * page) should read it from here.
 */
import type { OutcomeReason, OutcomeStatus } from '../engine/verdict/outcome.js';

export type StatusCounts = Readonly<Record<OutcomeStatus, number>>;

export function countStatuses(
  outcomes: Iterable<{ readonly status: OutcomeStatus }>,
): Record<OutcomeStatus, number> {
  const counts: Record<OutcomeStatus, number> = { hit: 0, miss: 0, unknown: 0, error: 0, invalid: 0 };
  for (const o of outcomes) counts[o.status]++;
  return counts;
}

/** How often each reason occurs among outcomes of one status, most frequent first. */
export function countReasons(
  outcomes: Iterable<{ readonly status: OutcomeStatus; readonly reason?: OutcomeReason }>,
  status: OutcomeStatus,
): [OutcomeReason, number][] {
  const counts = new Map<OutcomeReason, number>();
  for (const o of outcomes)
    if (o.status === status && o.reason) counts.set(o.reason, (counts.get(o.reason) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

export interface Coverage {
  /** Platforms that answered hit or miss. */
  readonly answered: number;
  /** Platforms a request was meant for: every outcome but `invalid` (no request is sent then). */
  readonly checked: number;
  /** answered ÷ checked, from 0 to 1; 1 when nothing was checked. */
  readonly share: number;
  /** The share is below the warning threshold: a missing hit may just be a platform not reached. */
  readonly low: boolean;
}

export function coverageOf(counts: StatusCounts, warningPercent: number): Coverage {
  const answered = counts.hit + counts.miss;
  const checked = answered + counts.unknown + counts.error;
  const share = checked === 0 ? 1 : answered / checked;
  return { answered, checked, share, low: share * 100 < warningPercent };
}

/** The share as the API shows it: 3 decimals. */
export function roundedShare(coverage: Pick<Coverage, 'share'>): number {
  return Math.round(coverage.share * 1000) / 1000;
}

/** How often each reason occurs among the platforms that did not answer (unknown or error), most frequent first. */
export function unansweredReasons(
  outcomes: Iterable<{ readonly status: OutcomeStatus; readonly reason?: OutcomeReason }>,
): [OutcomeReason, number][] {
  const list = [...outcomes];
  const counts = new Map<OutcomeReason, number>();
  for (const status of ['error', 'unknown'] as const)
    for (const [reason, n] of countReasons(list, status)) counts.set(reason, (counts.get(reason) ?? 0) + n);
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

/**
 * The warning every summary (API, CLI, page) gives a search whose coverage is
 * low, undefined when it is not; for example "Only 6 of 991 platforms
 * answered; 985 could not be reached or could not tell (timeout 900, dns 85).
 * A missing hit on those proves nothing."
 */
export function coverageWarning(
  coverage: Coverage,
  reasons: readonly (readonly [OutcomeReason, number])[],
): string | undefined {
  if (!coverage.low) return undefined;
  const unanswered = coverage.checked - coverage.answered;
  const why = reasons.length === 0 ? '' : ` (${reasons.map(([r, n]) => `${r} ${n}`).join(', ')})`;
  const platforms = coverage.checked === 1 ? 'platform' : 'platforms';
  return `Only ${coverage.answered} of ${coverage.checked} ${platforms} answered; ${unanswered} could not be reached or could not tell${why}. A missing hit on those proves nothing.`;
}

/** "1 platform", "3 platforms": the count words every summary uses. */
export const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * The clauses every summary (CLI, page) says of a search, in lower case: hits
 * among the platforms that answered, then who could not be reached, answered
 * without telling, or was not checked, each with its reasons; for example
 * ["no hits among the 6 platforms that answered", "985 could not be reached (timeout 900, dns 85)"].
 */
export function summaryClauses(
  counts: StatusCounts,
  outcomes: readonly { readonly status: OutcomeStatus; readonly reason?: OutcomeReason }[],
): string[] {
  const answered = counts.hit + counts.miss;
  const those = answered === 1 ? 'the 1 platform that answered' : `the ${answered} platforms that answered`;
  const why = (status: OutcomeStatus) => {
    const counted = countReasons(outcomes, status);
    return counted.length === 0 ? '' : ` (${counted.map(([r, n]) => `${r} ${n}`).join(', ')})`;
  };
  const clauses = [
    counts.hit === 0
      ? answered === 0
        ? 'no platform answered'
        : `no hits among ${those}`
      : `${plural(counts.hit, 'hit')} among ${those}`,
  ];
  if (counts.error > 0) clauses.push(`${counts.error} could not be reached${why('error')}`);
  if (counts.unknown > 0) clauses.push(`${counts.unknown} answered without telling${why('unknown')}`);
  if (counts.invalid > 0) clauses.push(`${counts.invalid} not checked${why('invalid')}`);
  return clauses;
}
