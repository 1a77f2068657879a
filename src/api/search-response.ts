/**
 * The body of `GET /api/search?id=`, built from plain data: what the route
 * answers and what the CLI's `--format json` prints, so the two cannot differ.
 * Coverage and its warning come from src/report/coverage.ts. Pure.
 */
import type { Static } from '@sinclair/typebox';
import { type AccountLink, withLinkedFrom } from '../engine/verdict/linked-accounts.js';
import { byPlatformName, type Outcome, type OutcomeReason } from '../engine/verdict/outcome.js';
import {
  type Coverage,
  countStatuses,
  coverageOf,
  coverageWarning,
  roundedShare,
  type StatusCounts,
  unansweredReasons,
} from '../report/coverage.js';
import { progressSnapshot } from '../runner/events.js';
import type { SearchRecord } from '../store/store.js';
import type { ResultOrder } from './platform-order.js';
import type { SearchResponse, SearchSummary } from './schemas.js';

export type SearchJson = Static<typeof SearchResponse>;
export type SearchSummaryJson = Static<typeof SearchSummary>;

/** The state a client sees: a queued search has started from its point of view. */
function apiStatus(state: SearchRecord['state']): SearchJson['status'] {
  return state === 'queued' ? 'running' : state;
}

/** A search without its results, as GET /api/searches lists it and DELETE /api/search/{id} answers. */
export function searchSummary(search: SearchRecord): SearchSummaryJson {
  return {
    queryId: search.id,
    username: search.username,
    status: apiStatus(search.state),
    totalPlatforms: search.platformIds.length,
    estimatedTime: Math.round(search.estimatedSeconds),
    createdAt: new Date(search.createdAt).toISOString(),
    ...(search.finishedAt !== undefined ? { completedAt: new Date(search.finishedAt).toISOString() } : {}),
    ...(search.error !== undefined && search.state === 'error' ? { error: search.error } : {}),
  };
}

export interface SearchView {
  readonly search: Pick<
    SearchRecord,
    | 'id'
    | 'username'
    | 'state'
    | 'estimatedSeconds'
    | 'createdAt'
    | 'finishedAt'
    | 'error'
    | 'followUps'
    | 'recursive'
  >;
  /** Platforms the search covers. */
  readonly total: number;
  readonly progress: { readonly checked: number; readonly byStatus: StatusCounts };
  /** The outcomes to show (hits, or every outcome with include=all), in any order. */
  readonly results: readonly Outcome[];
  /**
   * Reasons among the platforms that did not answer, most frequent first
   * (`unansweredReasons`): read only when `needsReasons` says the warning shows.
   */
  readonly unansweredReasons?: readonly (readonly [OutcomeReason, number])[];
  /** Links between accounts found in the hits' profiles (engine/verdict/linked-accounts.ts). */
  readonly links?: readonly AccountLink[];
}

/** The view of a search with every outcome: its counts come from them, so they agree with the list. */
export function everyOutcomeView(
  search: SearchView['search'] & { readonly platformIds: readonly string[] },
  results: readonly Outcome[],
  links: readonly AccountLink[],
): SearchView {
  return {
    search,
    total: search.platformIds.length,
    progress: { checked: results.length, byStatus: countStatuses(results) },
    results,
    links,
    unansweredReasons: unansweredReasons(results),
  };
}

/** A completed recursive search whose follow-ups are not recorded yet (src/api/follow-ups.ts). Pure. */
export function followUpsPending(search: Pick<SearchRecord, 'state' | 'recursive' | 'followUps'>): boolean {
  return search.state === 'completed' && search.recursive === true && search.followUps === undefined;
}

/** The search's coverage and whether its answer carries a warning (completed and low). */
export function searchCoverage(
  view: Pick<SearchView, 'search' | 'progress'>,
  warningPercent: number,
): Coverage & { readonly warns: boolean } {
  const coverage = coverageOf(view.progress.byStatus, warningPercent);
  return { ...coverage, warns: view.search.state === 'completed' && coverage.low };
}

export function searchResponse(
  view: SearchView,
  warningPercent: number,
  /** How results are listed: by platform name, or the same order by catalogue rank (platform-order.ts). */
  order: ResultOrder = byPlatformName,
): SearchJson {
  const { search } = view;
  const coverage = searchCoverage(view, warningPercent);
  const warning = coverage.warns ? coverageWarning(coverage, view.unansweredReasons ?? []) : undefined;
  return {
    queryId: search.id,
    status: apiStatus(search.state),
    username: search.username,
    results: withLinkedFrom(view.results, view.links ?? [], search.username).sort(order),
    ...(view.links?.length ? { links: [...view.links] } : {}),
    progress: { ...progressSnapshot(view.total, view.progress), queued: search.state === 'queued' },
    coverage: roundedShare(coverage),
    ...(warning !== undefined ? { warning } : {}),
    estimatedTime: search.estimatedSeconds,
    createdAt: new Date(search.createdAt).toISOString(),
    ...(search.finishedAt !== undefined ? { completedAt: new Date(search.finishedAt).toISOString() } : {}),
    ...(search.error !== undefined && search.state === 'error' ? { error: search.error } : {}),
    ...(search.followUps ? { followUps: search.followUps.map((f) => ({ ...f })) } : {}),
    ...(followUpsPending(search) ? { followUpsPending: true as const } : {}),
  };
}
