/**
 * Where searches, their outcomes, API keys, the outcome cache and platform
 * statistics live. One interface, several backends (SQLite embedded, Redis in
 * cluster mode); `test/store.contract.ts` runs the same suite against each.
 * Every method is async so that a networked backend fits. The policy every
 * backend shares (how `recentMs` is weighted, which statuses count as answers,
 * the error for an id taken already) is here, once; so is `recentLatencies`,
 * the latency per platform that estimates and the order of checks read.
 */
import type { PlatformHealthEntry } from '../catalogue/health.js';
import type { ControlRecord } from '../engine/control.js';
import type { ControlLedger } from '../engine/control-ledger.js';
import type { Outcome, OutcomeStatus } from '../engine/outcome.js';
import { UserscoutError } from '../errors.js';
import type { SiteLimitStore } from './site-limits.js';
import type { WatchlistStore } from './watchlists.js';

/** Internal life of a search. The API shows `queued` as `running` (it has started from the client's view). */
export const SEARCH_STATES = ['queued', 'running', 'completed', 'error'] as const;
export type SearchState = (typeof SEARCH_STATES)[number];
/** States a search does not leave: its outcomes are all in (backends then store them packed). */
export const FINISHED_STATES: ReadonlySet<SearchState> = new Set(['completed', 'error']);
/** Whether a search has finished (see FINISHED_STATES), narrowing its state. */
export const isFinished = (state: SearchState): state is 'completed' | 'error' => FINISHED_STATES.has(state);

export const TIERS = ['free', 'professional'] as const;
export type Tier = (typeof TIERS)[number];

export interface SearchRecord {
  readonly id: string;
  readonly username: string;
  readonly state: SearchState;
  readonly tier: Tier;
  /** Who asked: `ip:ADDRESS` or `key:KEYID`. */
  readonly client: string;
  /**
   * Readable only by `client` (a professional key); otherwise by anyone with the id.
   * Absent when not private, so a record reads back deep-equal to the one created.
   */
  readonly private?: true | undefined;
  /** Ids of the platforms the search covers, fixed when it is created. */
  readonly platformIds: readonly string[];
  /** Seconds the search was expected to take when it was created. */
  readonly estimatedSeconds: number;
  readonly createdAt: number;
  readonly startedAt?: number | undefined;
  readonly finishedAt?: number | undefined;
  readonly error?: string | undefined;
  /**
   * Asked with `recursive: true` (issue 19): once completed, the new names in its hits' profiles are searched
   * too (src/api/follow-ups.ts). Absent when not asked.
   */
  readonly recursive?: true | undefined;
  /** The follow-up searches a recursive search started (or could not), once they are recorded. */
  readonly followUps?: readonly FollowUp[] | undefined;
}

/** A name found in a recursive search's hits, and the search it started (or why none). */
export interface FollowUp {
  readonly username: string;
  /** The platform id of the hit whose profile named it. */
  readonly from: string;
  readonly queryId?: string | undefined;
  /** Why it was not searched (the search limit, a full queue, a name no platform accepts). */
  readonly notSearched?: string | undefined;
}

/** Where a page of a client's searches ends: the last one listed. */
export interface SearchCursor {
  readonly createdAt: number;
  readonly id: string;
}

export interface StoredOutcome {
  /**
   * 1, 2, 3... in the order outcomes were stored for this search; SSE event ids.
   * Ascending, with a gap where an outcome was replaced (`replaceOutcome`).
   */
  readonly seq: number;
  readonly outcome: Outcome;
}

export interface SearchProgress {
  readonly checked: number;
  readonly hits: number;
  readonly byStatus: Readonly<Record<OutcomeStatus, number>>;
}

export interface SearchSnapshot {
  readonly search: SearchRecord;
  readonly progress: SearchProgress;
  readonly outcomes: StoredOutcome[];
}

export interface ApiKeyRecord {
  readonly id: string;
  readonly name: string;
  readonly tier: Tier;
  /** SHA-256 of the key, hex. The key itself is never stored. */
  readonly hash: string;
  readonly createdAt: number;
  readonly revokedAt?: number | undefined;
}

export interface PlatformStats {
  readonly platformId: string;
  readonly checks: number;
  /** Mean response time of checks that got an answer, ms. */
  readonly meanMs: number;
  /** Exponentially weighted recent response time, ms: what estimates use. */
  readonly recentMs: number;
  readonly byStatus: Readonly<Record<OutcomeStatus, number>>;
  readonly lastCheckedAt: number;
}

/**
 * Control checks (issue 17; engine/control.ts): `getControl`, `putControl` and
 * `claimLease` come from the engine's `ControlLedger`; `listControls` is what
 * the platform list shows. A lease is taken only when free or expired, and is
 * never released early. `putPlatformHealth`/`listPlatformHealth` keep the
 * scheduled self-check's verdicts (runner/self-check-schedule.ts).
 */
export interface Store extends ControlLedger {
  /** Throws UserscoutError 'duplicate_id' when a search has this id already. */
  createSearch(search: SearchRecord): Promise<void>;
  getSearch(id: string): Promise<SearchRecord | undefined>;
  /** Moves a search to another state; fields given are set too. */
  updateSearch(
    id: string,
    patch: Partial<Pick<SearchRecord, 'state' | 'startedAt' | 'finishedAt' | 'error' | 'followUps'>>,
  ): Promise<void>;
  /**
   * Stores several outcomes at once, all or none (one transaction, one round
   * trip), in the order given. Returns each one's seq in that order, undefined
   * for a platform stored already or given twice (the first one counts).
   * Throws 'search_not_found' when there is no such search, storing nothing.
   */
  addOutcomes(searchId: string, outcomes: readonly Outcome[]): Promise<(number | undefined)[]>;
  /**
   * Replaces a platform's stored outcome in a search with a later answer (the
   * platform checked again, issue 19). The later answer takes the next seq, as
   * an outcome added now would, so whoever follows by seq (`afterSeq`, SSE ids)
   * sees it; the outcome replaced is no longer listed, and its seq is never
   * given again (a gap). Progress: `checked` unchanged, one count moves from the
   * old status to the new. Atomic, like `addOutcomes`. Returns the new seq, or
   * undefined when this platform has no outcome in this search (nothing is
   * stored then). Throws 'search_not_found' as `addOutcomes` does.
   */
  replaceOutcome(searchId: string, outcome: Outcome): Promise<number | undefined>;
  /** Outcomes in seq order, after `afterSeq` when given, only the given statuses when given. */
  listOutcomes(
    searchId: string,
    options?: { afterSeq?: number; statuses?: readonly OutcomeStatus[] },
  ): Promise<StoredOutcome[]>;
  progress(searchId: string): Promise<SearchProgress>;
  /**
   * A search with its progress and its outcomes (only the given statuses when
   * given), read at one moment in one call: what a poll shows. Undefined when
   * there is no such search. Its outcomes may be frozen and shared with other
   * reads (SQLite keeps a running search's decoded outcomes for its next poll),
   * and so may the whole snapshot: while nothing of a search not finished
   * changed, SQLite hands the same frozen snapshot again, so what a caller
   * derives from one may be kept by it (src/api/search-view.ts).
   */
  snapshot(
    id: string,
    options?: { statuses?: readonly OutcomeStatus[] },
  ): Promise<SearchSnapshot | undefined>;
  /**
   * Up to `limit` searches of one client (`SearchRecord.client`), newest first
   * (by createdAt, then id, both descending), only those after `before` in that
   * order when given: pages that never skip or repeat a search.
   */
  listSearchesByClient(
    client: string,
    options: { readonly limit: number; readonly before?: SearchCursor | undefined },
  ): Promise<SearchRecord[]>;
  /** Searches still queued or running (to resume after a restart), oldest first. */
  unfinishedSearches(): Promise<SearchRecord[]>;
  /** Deletes searches created before `before` (ms epoch) with their outcomes; returns how many. */
  sweepSearches(before: number): Promise<number>;

  /** A fresh cached outcome for this username on this platform, or undefined. */
  getCachedOutcome(username: string, platformId: string, now: number): Promise<Outcome | undefined>;
  /**
   * `getCachedOutcome` for each platform at once (one query or round trip, not one per
   * platform): the fresh ones by platform id, a platform with none left out.
   */
  getCachedOutcomes(
    username: string,
    platformIds: readonly string[],
    now: number,
  ): Promise<Map<string, Outcome>>;
  putCachedOutcome(username: string, outcome: Outcome, expiresAt: number): Promise<void>;
  /**
   * `putCachedOutcome` for each entry: one write where the backend can
   * (SQLite: one transaction; Redis: one script, the last entry of a platform kept), else each on its own, WRITES_IN_FLIGHT at once
   * (so two entries of one platform: either may be the one kept), every one
   * tried. Rejects with the first failure.
   */
  putCachedOutcomes(username: string, entries: readonly CacheEntry[]): Promise<void>;

  /** Throws UserscoutError 'duplicate_id' when a key has this id or this hash already. */
  createApiKey(key: ApiKeyRecord): Promise<void>;
  findApiKeyByHash(hash: string): Promise<ApiKeyRecord | undefined>;
  listApiKeys(): Promise<ApiKeyRecord[]>;
  /** Returns false when no such key exists (or it was revoked already). */
  revokeApiKey(id: string, at: number): Promise<boolean>;

  /** Adds one check to the platform's statistics. */
  recordCheck(platformId: string, status: OutcomeStatus, responseTimeMs: number, at: number): Promise<void>;
  /**
   * `recordCheck` for each check: one write where the backend can (SQLite:
   * one transaction; Redis: one script; both in order), else each on its own, WRITES_IN_FLIGHT at once
   * (recentMs then weighs those in whatever order they land), every one tried.
   * Rejects with the first failure.
   */
  recordChecks(checks: readonly CheckStat[]): Promise<void>;
  platformStats(): Promise<PlatformStats[]>;

  /** Watchlists, their changes and webhook deliveries (src/store/watchlists.ts). */
  readonly watchlists: WatchlistStore;
  /** Sites' limits as learned per egress identity (src/store/site-limits.ts). */
  readonly siteLimits: SiteLimitStore;
  /** Every platform's latest control record per egress identity, by platform id then identity. */
  listControls(): Promise<ControlRecord[]>;
  /** Stores a platform's verdict from the scheduled self-check, replacing its last one. */
  putPlatformHealth(platformId: string, entry: PlatformHealthEntry): Promise<void>;
  /** The scheduled self-check's latest verdict of each platform checked, by platform id. */
  listPlatformHealth(): Promise<Record<string, PlatformHealthEntry>>;

  /** Whether the backend answers (for /readyz). */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/** A check to add to its platform's statistics: `recordCheck`'s arguments. */
export interface CheckStat {
  readonly platformId: string;
  readonly status: OutcomeStatus;
  readonly responseTimeMs: number;
  readonly at: number;
}

/** An outcome to cache for a username until `expiresAt`: `putCachedOutcome`'s arguments. */
export interface CacheEntry {
  readonly outcome: Outcome;
  readonly expiresAt: number;
}

/**
 * Writes a store makes as round trips (Redis, PostgreSQL) in flight at once for one
 * batch (`recordChecks`, `putCachedOutcomes`): they overlap without taking a networked
 * store's whole connection pool from the other searches and the API.
 */
export const WRITES_IN_FLIGHT = 4;

/**
 * `write` for every item, WRITES_IN_FLIGHT at a time (those in flight land in any
 * order); every one is tried, then the first failure is thrown. The batch methods of backends whose writes
 * are round trips.
 */
export async function writeEach<T>(items: readonly T[], write: (item: T) => Promise<void>): Promise<void> {
  let failure: { error: unknown } | undefined;
  for (let i = 0; i < items.length; i += WRITES_IN_FLIGHT) {
    const settled = await Promise.allSettled(items.slice(i, i + WRITES_IN_FLIGHT).map(write));
    for (const s of settled) if (s.status === 'rejected') failure ??= { error: s.reason };
  }
  if (failure) throw failure.error;
}

export function emptyByStatus(): Record<OutcomeStatus, number> {
  return { hit: 0, miss: 0, unknown: 0, error: 0, invalid: 0 };
}

/**
 * What a platform that has been checked but never answered counts as (every check an error:
 * a timeout, a refused connection): the slowest, as its check may last to the timeout. Its
 * `recentMs` (0: no answer to weigh) would have ordered its check last, so a search waited
 * for the timeout of a check started after all the others.
 */
export const NEVER_ANSWERED_MS = Number.POSITIVE_INFINITY;

/**
 * Each measured platform's `recentMs` by platform id (NEVER_ANSWERED_MS when no check of it
 * got an answer): what estimates and the order of checks use.
 */
export async function recentLatencies(store: Pick<Store, 'platformStats'>): Promise<Map<string, number>> {
  return new Map((await store.platformStats()).map((s) => [s.platformId, recentLatencyOf(s)]));
}

/** How long one read of `recentLatencies` serves a `recentLatenciesReader` (ms). */
export const RECENT_LATENCIES_MAX_AGE_MS = 5_000;

/**
 * `recentLatencies`, read again only once the last read is `maxAgeMs` old (by `clock`, a
 * monotonic one): they order a search's checks and estimate its time, for which latencies a few
 * seconds old serve as well. Read whole at every POST and every search start, each read made
 * 1,258 rows objects (~2.4 CPU ms; bench/README.md, case 3's fifth pass). Reads asked for
 * meanwhile share one; a failed read is not kept.
 */
export function recentLatenciesReader(
  store: Pick<Store, 'platformStats'>,
  maxAgeMs = RECENT_LATENCIES_MAX_AGE_MS,
  clock: () => number = performance.now.bind(performance),
): () => Promise<ReadonlyMap<string, number>> {
  let last: { readonly at: number; readonly read: Promise<Map<string, number>> } | undefined;
  return () => {
    const at = clock();
    if (last === undefined || at - last.at >= maxAgeMs) {
      const read = recentLatencies(store);
      const kept = { at, read };
      last = kept;
      read.catch(() => {
        if (last === kept) last = undefined;
      });
    }
    return last.read;
  };
}

/** One platform's entry in `recentLatencies`. */
export function recentLatencyOf(stats: Pick<PlatformStats, 'recentMs' | 'byStatus'>): number {
  const answered = [...ANSWERED_STATUSES].some((status) => stats.byStatus[status] > 0);
  return answered || stats.byStatus.error === 0 ? stats.recentMs : NEVER_ANSWERED_MS;
}

/** Weight of the newest answered check in `recentMs`, an exponentially weighted mean. */
export const RECENT_MS_ALPHA = 0.2;

/** Statuses that mean the platform answered, so their response time says how fast it is. */
export const ANSWERED_STATUSES: ReadonlySet<OutcomeStatus> = new Set(['hit', 'miss', 'unknown']);

/** What `createSearch` and `createApiKey` throw for an id (or key hash) that exists already. */
export function duplicateIdError(
  what: 'Search' | 'API key' | 'Watchlist' | 'Delivery',
  id: string,
  cause?: unknown,
): UserscoutError {
  return new UserscoutError('duplicate_id', `${what} ${id} exists already`, { cause });
}

/** What `addOutcomes` and `replaceOutcome` throw when there is no such search. */
export function noSearchForOutcomes(searchId: string): UserscoutError {
  return new UserscoutError('search_not_found', `No search ${searchId} to add an outcome to`);
}
