/**
 * The one summary of a search the page shows: hits among the platforms that
 * answered, and what the others did, so "no hit" never stands for "not
 * reached". When the service marks the coverage low, the summary is its
 * warning (the API's own words, `report/coverage.ts`) after the hits, shown
 * as a warning, instead of the counts said twice. Counts come from the API's
 * progress when it gives them, else from the outcomes.
 * Pure functions.
 */

import type { Outcome } from '../engine/verdict/outcome.js';
import {
  type Coverage,
  countStatuses,
  coverageOf,
  plural,
  type StatusCounts,
  summaryClauses,
} from '../report/coverage.js';
import type { ProgressCounts } from './progress.js';

/** What the API says about coverage (absent from services before it was added). */
export interface ApiCoverage {
  readonly coverage?: number;
  readonly warning?: string;
}

export interface SearchSummary {
  readonly counts: StatusCounts;
  readonly coverage: Coverage;
  /**
   * The summary: hits among those that answered, then who could not be reached, could not
   * tell, was not checked; with low coverage, the hits and the API's warning.
   */
  readonly text: string;
  /** The service marked the coverage low: the summary is to be shown as a warning. */
  readonly low: boolean;
}

/** The API's counts when its progress has them all, else the outcomes' own. */
export function statusCountsOf(progress: ProgressCounts, outcomes: Iterable<Outcome>): StatusCounts {
  const { answered, unknown, errors, invalid } = progress;
  if (answered === undefined || unknown === undefined || errors === undefined || invalid === undefined)
    return countStatuses(outcomes);
  return { hit: progress.hits, miss: Math.max(0, answered - progress.hits), unknown, error: errors, invalid };
}

export function searchSummary(input: {
  readonly progress: ProgressCounts;
  readonly outcomes: readonly Outcome[];
  readonly running: boolean;
  readonly api?: ApiCoverage;
}): SearchSummary {
  const counts = statusCountsOf(input.progress, input.outcomes);
  // What is low is the service's call (its threshold, its warning); before it reported coverage, nothing is marked.
  const computed = coverageOf(counts, 0);
  const coverage: Coverage = {
    ...computed,
    share: input.api?.coverage ?? computed.share,
    low: input.api?.warning !== undefined,
  };
  const warning = input.api?.warning;
  if (warning !== undefined) {
    // The warning names who answered and why the others did not: only the hits are left to say.
    const hits = counts.hit === 0 ? 'No hits' : plural(counts.hit, 'hit');
    return { counts, coverage, text: `${hits}. ${warning}`, low: true };
  }
  const clauses = summaryClauses(counts, input.outcomes);
  const parts = clauses.map((c, i) => (i === 0 ? c.charAt(0).toUpperCase() + c.slice(1) : c));
  const checked = counts.hit + counts.miss + counts.unknown + counts.error + counts.invalid;
  const text =
    checked === 0
      ? input.running
        ? 'Nothing checked yet.'
        : 'No platform was checked.'
      : `${input.running ? 'So far: ' : ''}${parts.join('; ')}.`;
  return { counts, coverage, text, low: false };
}
