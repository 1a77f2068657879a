/**
 * Recursive searches (issue 19): a search asked with `recursive: true` searches,
 * once completed, the new names its hits' profiles give (links to another
 * platform's profile of another name, and ids such as `githubUsername`), one
 * follow-up search each, at most `maxFollowUps`, depth 1 (follow-ups are never
 * recursive themselves).
 *
 * Where they start: in the API process that first serves the completed parent
 * (GET /api/search, which already notices first completion for the estimate
 * calibration), not in the runner. Each follow-up counts against the search
 * limit of the parent's caller, and the limit, the queue's admission and the
 * way a search is stored and queued all live in the API (start-searches.ts):
 * starting them there reuses all of it, and keeps the runner free of policy it
 * does not own. Two API processes may serve the same completed parent at
 * once: a store lease named after the search (`claimLease`, as the control
 * checks use) lets exactly one start them; it then records them on the parent
 * (`followUps`), and the others answer without them until they are recorded.
 * A process that dies between the claim and the record leaves the parent
 * without follow-ups (they are never started twice, which a limit-counted
 * action must not be).
 */
import type { Platform } from '../catalogue/platform.js';
import { selectPlatforms } from '../catalogue/select.js';
import { usernameProblem } from '../catalogue/username-rule.js';
import { accountLinks, type ProfileUrlMatcher } from '../engine/linked-accounts.js';
import type { Outcome } from '../engine/outcome.js';
import type { FollowUp, SearchRecord } from '../store/store.js';
import type { AppDeps } from './deps.js';
import { quotaKey, searchLimitOf } from './search-quota.js';
import { type Originator, startSearch } from './start-searches.js';

/** A name to follow up, and the platform whose hit gave it. */
export interface FollowUpName {
  readonly username: string;
  readonly from: string;
}

/** How long the claim on starting a search's follow-ups holds: as long as the search is kept, and a day more. */
export const followUpClaimMs = (retentionDays: number): number => (retentionDays + 1) * 86_400_000;

/** The lease that lets one process start a search's follow-ups. */
export const followUpClaim = (searchId: string): string => `follow-ups:${searchId}`;

/**
 * The new names in the hits' profiles, in the hits' platform order, each once
 * (case-insensitive), never the searched name, at most `max`: profile links to
 * another platform's profile of another name, then ids whose key ends in
 * `Username`. Pure.
 */
export function followUpNames(
  results: readonly Outcome[],
  matcher: ProfileUrlMatcher,
  username: string,
  max: number,
): FollowUpName[] {
  const hits = results
    .filter((o) => o.status === 'hit')
    .sort((a, b) => (a.platformId < b.platformId ? -1 : a.platformId > b.platformId ? 1 : 0));
  const seen = new Set([username.toLowerCase()]);
  const names: FollowUpName[] = [];
  const add = (name: string, from: string) => {
    const key = name.toLowerCase();
    if (names.length >= max || name === '' || seen.has(key)) return;
    seen.add(key);
    names.push({ username: name, from });
  };
  for (const hit of hits) {
    for (const link of accountLinks([hit], matcher)) add(link.username, link.from);
    for (const [key, value] of Object.entries(hit.profile?.ids ?? {}))
      if (key.endsWith('Username')) add(value.trim(), hit.platformId);
  }
  return names;
}

/** Why a follow-up was not searched, in words the answer shows. */
const NOT_SEARCHED = {
  limit: 'search limit reached',
  platforms: 'no enabled platform of the search is left',
} as const;

/**
 * Starts one search per name, on the parent's platforms still enabled and
 * healthy, each counted against the parent caller's search limit as it
 * starts: names past the limit, refused by the queue or broken are listed
 * with the reason, never started.
 */
export async function startFollowUps(
  deps: AppDeps,
  parent: SearchRecord,
  names: readonly FollowUpName[],
  log: Originator['log'],
): Promise<FollowUp[]> {
  const platforms: Platform[] = selectPlatforms(deps.catalogue, {
    platforms: parent.platformIds,
    includeNsfw: true,
    exclude: deps.health.unhealthyIds(),
  });
  const originator: Originator = { caller: { tier: parent.tier, client: parent.client }, log };
  const { limit, windowMs } = searchLimitOf(parent.tier, deps.config);
  const key = quotaKey(parent.client);
  const followUps: FollowUp[] = [];
  for (const name of names) {
    const notSearched = (reason: string) => followUps.push({ ...name, notSearched: reason });
    const problem = usernameProblem(name.username);
    if (problem) {
      notSearched(`username ${problem}`);
      continue;
    }
    if (platforms.length === 0) {
      notSearched(NOT_SEARCHED.platforms);
      continue;
    }
    try {
      await deps.runner.admit(parent.tier);
    } catch (error) {
      notSearched((error as Error).message);
      continue;
    }
    const taken = await deps.searchQuota.take(key, 1, limit, windowMs);
    if (!taken.granted) {
      notSearched(NOT_SEARCHED.limit);
      continue;
    }
    try {
      const started = await startSearch(
        deps,
        originator,
        { username: name.username, platforms },
        { private: parent.private === true },
      );
      followUps.push({ ...name, queryId: started.queryId });
    } catch (error) {
      await deps.searchQuota.release(key, 1).catch(() => {});
      notSearched((error as Error).message);
    }
  }
  log.info({ queryId: parent.id, followUps: followUps.length }, 'follow-up searches started');
  return followUps;
}

/**
 * The follow-ups of a completed recursive search: those recorded, or, when
 * none are yet and this process wins the claim, the ones it starts and
 * records now. Undefined while another process holds the claim.
 */
export async function followUpsOf(
  deps: AppDeps,
  search: SearchRecord,
  results: readonly Outcome[],
  matcher: ProfileUrlMatcher,
  log: Originator['log'],
): Promise<readonly FollowUp[] | undefined> {
  if (search.followUps) return search.followUps;
  if (
    !(await deps.store.claimLease(
      followUpClaim(search.id),
      followUpClaimMs(deps.config.retentionDays),
      deps.now(),
    ))
  ) {
    // Claimed by another process (or this one, by an earlier poll): recorded by now, or soon.
    return (await deps.store.getSearch(search.id))?.followUps;
  }
  const names = followUpNames(results, matcher, search.username, deps.config.maxFollowUps);
  const followUps = await startFollowUps(deps, search, names, log);
  await deps.store.updateSearch(search.id, { followUps });
  return followUps;
}
