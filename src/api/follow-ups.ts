/**
 * Recursive searches: a search asked with `recursive: true` searches,
 * once completed, the new names its hits' profiles give (links to another
 * platform's profile of another name, and ids such as `githubUsername`), one
 * follow-up search each, at most `maxFollowUps`, depth 1 (follow-ups are never
 * recursive themselves).
 *
 * When they start: as the search completes, whether anyone reads it or not
 * (a client of its event stream, a webhook, a report reader). The runner that
 * ran it calls `followUpStarter`'s function once the search is over (the
 * composition root, src/service.ts, gives it to the runner: the runner never
 * imports the API): in embedded mode the main thread's in-process runner, when
 * the search thread says it is done; in cluster mode the worker process that
 * ran the job, inside the job. Each follow-up counts against the search limit
 * of the parent's caller, and the limit, the queue's admission and the way a
 * search is stored and queued live in the API (start-searches.ts): starting
 * them through it reuses all of it, and keeps the runner free of policy it
 * does not own.
 *
 * Exactly once: a store lease named after the search (`claimLease`, as the
 * control checks use) lets one process at a time start them; it then records
 * them on the parent (`followUps`). A follow-up's id is derived from its
 * parent's and its name (`followUpId`), so one started before its starter died
 * is found again, never started (nor counted) twice, and a second start of the
 * same follow-up fails on the id. A process that dies between completion and
 * the record leaves the lease to expire (`followUpLeaseMs`). Until they are
 * recorded, GET /api/search (and the report) says they are pending; once the
 * search finished longer ago than the lease, a read starts what is missing
 * itself, under the same lease (src/api/search-view.ts). A worker that takes
 * over a dead worker's job tries too, under the same lease.
 *
 * A refusal that passes leaves them all pending, recorded by none, for the
 * same later read (`refusalKind`): the store or the runner out of reach, and
 * the queue full, this one only while the search completed less than
 * `followUpRetryForMs` ago (after, the name is recorded as not searched, queue
 * full). A refusal that lasts (a name no platform takes, the caller's search
 * limit, a fault) is recorded as not searched at once.
 */
import { createHash } from 'node:crypto';
import type { Platform } from '../catalogue/platform.js';
import { selectPlatforms } from '../catalogue/select.js';
import { usernameProblem } from '../catalogue/username-rule.js';
import { accountLinks, ProfileUrlMatcher } from '../engine/verdict/linked-accounts.js';
import type { Outcome } from '../engine/verdict/outcome.js';
import { ERROR_CODES, isUserscoutError } from '../errors.js';
import type { FollowUp, SearchRecord } from '../store/store.js';
import type { AppDeps } from './deps.js';
import { quotaKey, searchLimitOf } from './search-quota.js';
import { followUpsPending } from './search-response.js';
import { NOT_QUEUED, type Originator, startSearch } from './start-searches.js';

/** A name to follow up, and the platform whose hit gave it. */
export interface FollowUpName {
  readonly username: string;
  readonly from: string;
}

/** The lease that lets one process start a search's follow-ups. */
export const followUpClaim = (searchId: string): string => `follow-ups:${searchId}`;

/**
 * The id of the follow-up of `parentId` for `username` (case-insensitive): a
 * UUID (version 8, RFC 9562) from a hash of both, the same in every process
 * and every attempt, so a follow-up is stored once whoever starts it. Pure.
 */
export function followUpId(parentId: string, username: string): string {
  const hex = createHash('sha256').update(`follow-up\n${parentId}\n${username.toLowerCase()}`).digest('hex');
  const variant = ((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * How a refused start of a follow-up is taken:
 * - `passing`: nothing can be recorded now (the store out of reach, the runner stopping):
 *   thrown, the follow-ups left pending for a later attempt;
 * - `later`: the service is busy for now (the queue full): the follow-ups left pending
 *   while the search is young enough (`followUpRetryForMs`), else recorded as not searched;
 * - `lasting`: recorded as not searched (a refusal that would be given again, or a fault).
 * The caller's search limit is not a refusal here: past it, a name is recorded as not
 * searched at once (as documented), never started later in a window of the caller's own.
 */
export type RefusalKind = 'passing' | 'later' | 'lasting';

export function refusalKind(error: unknown): RefusalKind {
  if (!isUserscoutError(error)) return 'lasting';
  if (error.code === 'unavailable' || error.code === 'store_unavailable') return 'passing';
  if (error.code === 'queue_full') return 'later';
  return 'lasting';
}

/** A refusal that passes (the runner stopping, the store out of reach): the follow-ups are left for a later attempt. */
export const passing = (error: unknown): boolean => refusalKind(error) === 'passing';

/** Whether a refusal for now still leaves the follow-ups of `parent` pending: it completed less than `retryForMs` ago. Pure. */
export function mayWait(
  parent: Pick<SearchRecord, 'createdAt' | 'finishedAt'>,
  now: number,
  retryForMs: number,
): boolean {
  return now - (parent.finishedAt ?? parent.createdAt) < retryForMs;
}

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
  queue: 'queue full',
  notQueued: 'not queued',
} as const;

/** What one attempt at a search's follow-ups gave: every name settled, or some left for a later attempt. */
export type FollowUpsStarted =
  | { readonly settled: true; readonly followUps: FollowUp[] }
  | { readonly settled: false; readonly waiting: number };

/**
 * Why a start was refused, as the answer shows it: a coded error's message; any
 * other (a fault, whose text may hold internals) logged, and shown as `internal`'s.
 */
function refusal(error: unknown, log: Originator['log'], parentId: string): string {
  if (isUserscoutError(error)) return error.message;
  log.error({ err: error, queryId: parentId }, 'follow-up search not started');
  return ERROR_CODES.internal.message;
}

/**
 * Starts one search per name, on the parent's platforms still enabled and
 * healthy, each counted against the parent caller's search limit as it
 * starts: names past the limit or broken are listed with the reason, never
 * started. A follow-up stored already (by an attempt that died before
 * recording them, or one that left others waiting) is listed as started, not
 * started again. Names the queue refuses for now leave the attempt unsettled
 * (`waiting`) while `mayWait`, else are listed as not searched (queue full).
 * Throws, recording nothing, when the runner or the store is unavailable: a
 * later attempt starts what is missing.
 */
export async function startFollowUps(
  deps: AppDeps,
  parent: SearchRecord,
  names: readonly FollowUpName[],
  log: Originator['log'],
): Promise<FollowUpsStarted> {
  const platforms: Platform[] = selectPlatforms(deps.catalogue, {
    platforms: parent.platformIds,
    includeNsfw: true,
    exclude: deps.health.unhealthyIds(),
  });
  const originator: Originator = { caller: { tier: parent.tier, client: parent.client }, log };
  const { limit, windowMs } = searchLimitOf(parent.tier, deps.config);
  const key = quotaKey(parent.client);
  const followUps: FollowUp[] = [];
  const wait = mayWait(parent, deps.now(), deps.config.followUpRetryForMs);
  let waiting = 0;
  for (const name of names) {
    const notSearched = (reason: string) => followUps.push({ ...name, notSearched: reason });
    /** A refusal of this name's start, taken as `refusalKind` says. */
    const refused = (error: unknown) => {
      const kind = refusalKind(error);
      if (kind === 'passing') throw error;
      if (kind === 'lasting') notSearched(refusal(error, log, parent.id));
      else if (wait) waiting++;
      else notSearched(NOT_SEARCHED.queue);
    };
    const problem = usernameProblem(name.username);
    if (problem) {
      notSearched(`username ${problem}`);
      continue;
    }
    const id = followUpId(parent.id, name.username);
    const stored = await deps.store.getSearch(id);
    if (stored) {
      // Stored, then refused by the runner (after the admission): its id is taken, it never ran.
      if (stored.state === 'error' && stored.error === NOT_QUEUED) notSearched(NOT_SEARCHED.notQueued);
      else followUps.push({ ...name, queryId: id });
      continue;
    }
    if (platforms.length === 0) {
      notSearched(NOT_SEARCHED.platforms);
      continue;
    }
    try {
      await deps.runner.admit(parent.tier);
    } catch (error) {
      refused(error);
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
        { private: parent.private === true, id },
      );
      followUps.push({ ...name, queryId: started.queryId });
    } catch (error) {
      await deps.searchQuota.release(key, 1).catch(() => {});
      // Started meanwhile by another attempt (one whose lease ran out): it is that one.
      if (isUserscoutError(error) && error.code === 'duplicate_id') followUps.push({ ...name, queryId: id });
      // Refused by the queue once stored (under its id, ended NOT_QUEUED): its id is taken, never tried again.
      else if (refusalKind(error) === 'later') notSearched(NOT_SEARCHED.notQueued);
      else refused(error);
    }
  }
  if (waiting > 0) {
    log.info(
      { queryId: parent.id, waiting },
      'follow-up searches left for a later attempt: the queue is full',
    );
    return { settled: false, waiting };
  }
  log.info({ queryId: parent.id, followUps: followUps.length }, 'follow-up searches started');
  return { settled: true, followUps };
}

/**
 * The follow-ups of a completed recursive search: those recorded, or, when
 * none are yet and this process wins the claim, the ones it starts and
 * records now. Undefined while another process holds the claim, or when the
 * queue refused some for now: pending, for the first read once the claim
 * has run out (`followUpLeaseMs`).
 */
export async function followUpsOf(
  deps: AppDeps,
  search: SearchRecord,
  results: readonly Outcome[],
  matcher: ProfileUrlMatcher,
  log: Originator['log'],
): Promise<readonly FollowUp[] | undefined> {
  if (search.followUps) return search.followUps;
  if (!(await deps.store.claimLease(followUpClaim(search.id), deps.config.followUpLeaseMs, deps.now()))) {
    // Claimed by another process (or this one): recorded by now, or soon.
    return (await deps.store.getSearch(search.id))?.followUps;
  }
  const names = followUpNames(results, matcher, search.username, deps.config.maxFollowUps);
  const started = await startFollowUps(deps, search, names, log);
  if (!started.settled) return undefined;
  await deps.store.updateSearch(search.id, { followUps: started.followUps });
  return started.followUps;
}

/** Whether a read of this search may start its follow-ups: only when the start at completion has had its time (the lease). */
export function followUpsOverdue(search: SearchRecord, now: number, leaseMs: number): boolean {
  return followUpsPending(search) && search.finishedAt !== undefined && now - search.finishedAt >= leaseMs;
}

/**
 * What the runner calls once a search is over (src/service.ts gives it to the
 * runner): starts the follow-ups of a completed recursive search not recorded
 * yet. Nothing for any other search, without a store read.
 */
export function followUpStarter(
  deps: AppDeps,
  log: Originator['log'],
): (search: Pick<SearchRecord, 'id' | 'recursive'>) => Promise<void> {
  const matcher = new ProfileUrlMatcher(deps.catalogue.platforms);
  return async (finished) => {
    if (!finished.recursive) return;
    const snapshot = await deps.store.snapshot(finished.id, { statuses: ['hit'] });
    if (snapshot?.search.state !== 'completed' || snapshot.search.followUps) return;
    const results = snapshot.outcomes.map((s) => s.outcome);
    await followUpsOf(deps, snapshot.search, results, matcher, log);
  };
}
