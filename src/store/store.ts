/**
 * The whole store: one object playing every role (roles/): searches and their outcomes, the
 * outcome cache, API keys, platform statistics, coordination (control records, leases) and
 * watchlists. Callers depend on the roles they use; `createStore` (create-store.ts) is the
 * one constructor, and `test/store.contract.ts` runs the same suite against every backend.
 * Every method is async so that a networked backend fits. What every backend shares (the
 * error for an id taken already, how batches of round trips are written) is here, once;
 * how each backend keeps a role is said in its own file.
 */
import type { OutcomeStatus } from '../engine/verdict/outcome.js';
import { UserscoutError } from '../errors.js';
import { WRITES_IN_FLIGHT } from '../tuning.js';
import type { CoordinationStore } from './roles/coordination-store.js';
import type { KeyStore } from './roles/key-store.js';
import type { CacheRows, OutcomeCache } from './roles/outcome-cache.js';
import type { SearchStore } from './roles/search-store.js';
import type { StatsStore } from './roles/stats-store.js';
import type { SiteLimitStore } from './site-limits.js';
import type { TransportMemoryStore } from './transport-memory.js';
import type { WatchlistStore } from './watchlists.js';

export type { CoordinationStore } from './roles/coordination-store.js';
export type { ApiKeyRecord, KeyStore } from './roles/key-store.js';
export type { CacheEntry, CacheRows, OutcomeCache } from './roles/outcome-cache.js';
export {
  FINISHED_STATES,
  type FollowUp,
  isFinished,
  SEARCH_STATES,
  type SearchCursor,
  type SearchProgress,
  type SearchRecord,
  type SearchSnapshot,
  type SearchState,
  type SearchStore,
  type StoredOutcome,
  TIERS,
  type Tier,
} from './roles/search-store.js';
export {
  ANSWERED_STATUSES,
  type CheckStat,
  type PlatformStats,
  type StatsStore,
} from './roles/stats-store.js';

/** Whether the backend answers, and closing it. */
export interface StoreConnection {
  /** Whether the backend answers (for /readyz). */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export interface Store
  extends SearchStore,
    OutcomeCache,
    CacheRows,
    KeyStore,
    StatsStore,
    CoordinationStore,
    StoreConnection {
  /** Watchlists, their changes and webhook deliveries (src/store/watchlists.ts). */
  readonly watchlists: WatchlistStore;
  /** Sites' limits as learned per egress identity (src/store/site-limits.ts). */
  readonly siteLimits: SiteLimitStore;
  /** The transports sites were found to need, per egress identity (src/store/transport-memory.ts). */
  readonly transportMemory: TransportMemoryStore;
}

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
