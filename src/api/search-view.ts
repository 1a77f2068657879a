/**
 * The view of a stored search, read once for GET /api/search?id= and for its
 * report (GET /api/search/{id}/report.html): one builder, so the answer and
 * the report show the same search (its links, its follow-ups, the warning's
 * reasons) and cannot drift. A completed recursive search whose follow-ups
 * were not started when it completed (the process that should have died) has
 * them started here, under the same lease (src/api/follow-ups.ts).
 */

import { accountLinks, ProfileUrlMatcher } from '../engine/verdict/linked-accounts.js';
import { unansweredReasons } from '../report/coverage.js';
import { isFinished, type SearchRecord, type SearchSnapshot } from '../store/store.js';
import type { Caller } from './auth.js';
import type { AppDeps } from './deps.js';
import { followUpsOf, followUpsOverdue, passing } from './follow-ups.js';
import { canRead } from './search-access.js';
import { everyOutcomeView, type SearchView, searchCoverage } from './search-response.js';
import type { Originator } from './start-searches.js';

export interface ReadSearch {
  readonly search: SearchRecord;
  readonly view: SearchView;
}

/**
 * Reads a search as `caller` may see it: hits only, or every outcome with
 * `all`. Undefined for an unknown id or one the caller may not read.
 */
export type SearchViewReader = (
  id: string,
  caller: Caller,
  options: { readonly all: boolean; readonly log: Originator['log'] },
) => Promise<ReadSearch | undefined>;

export function searchViewReader(deps: AppDeps): SearchViewReader {
  const profileUrls = new ProfileUrlMatcher(deps.catalogue.platforms);
  const percent = deps.config.coverageWarningPercent;
  /**
   * Views of searches not finished, by the snapshot they were built from: such a view follows
   * from its snapshot alone, and a store may hand the same snapshot again while nothing changed
   * (SQLite does), so a queued search, or a running one with nothing new, is not built again.
   */
  const views = new WeakMap<SearchSnapshot, ReadSearch>();
  return async (id, caller, { all, log }) => {
    // One store read: the search, its counts and its outcomes together.
    const snapshot = await deps.store.snapshot(id, all ? {} : { statuses: ['hit'] });
    if (!snapshot || !canRead(snapshot.search, caller)) return undefined;
    const known = views.get(snapshot);
    if (known !== undefined) return known;
    const read = await readView(snapshot, all, log);
    if (!isFinished(snapshot.search.state)) views.set(snapshot, read);
    return read;
  };

  async function readView(
    snapshot: SearchSnapshot,
    all: boolean,
    log: Originator['log'],
  ): Promise<ReadSearch> {
    const { id } = snapshot.search;
    let { search } = snapshot;
    const results = snapshot.outcomes.map((s) => s.outcome);
    if (followUpsOverdue(search, deps.now(), deps.config.followUpLeaseMs)) {
      // The search is read whatever happens to them: a refusal that passes leaves them pending, for a later read.
      const followUps = await followUpsOf(deps, search, results, profileUrls, log).catch((error: unknown) => {
        if (!passing(error)) throw error;
        log.warn({ err: error, queryId: id }, 'follow-up searches not started yet');
        return undefined;
      });
      if (followUps) search = { ...search, followUps };
    }
    // Every link comes from a hit's profile, and hits are in both views.
    const links = accountLinks(results, profileUrls);
    if (all) return { search, view: everyOutcomeView(search, results, links) };
    const view: SearchView = {
      search,
      total: search.platformIds.length,
      progress: snapshot.progress,
      results,
      links,
    };
    // The warning's reasons need the outcomes that did not answer: read only when it shows.
    if (!searchCoverage(view, percent).warns) return { search, view };
    const unanswered = await deps.store.listOutcomes(id, { statuses: ['unknown', 'error'] });
    return {
      search,
      view: { ...view, unansweredReasons: unansweredReasons(unanswered.map((s) => s.outcome)) },
    };
  }
}
