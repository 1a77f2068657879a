/**
 * A store of record beside a fast, short-lived one: what must last comes from `records`
 * (PostgreSQL): searches (their privacy too) and a client's history, outcomes, API keys,
 * platform statistics with the scheduled self-check's verdicts (written once a round, kept
 * across a Redis restart), watchlists with their changes and webhook deliveries. What is
 * short-lived comes from `coordination` (Redis): the outcome cache's rows, which expire by
 * themselves (the outcomes they refer to are read from `records`), and the control checks' records and leases (see below). What cluster mode uses
 * when DATABASE_URL is set. Both must answer for it to be ready; closing closes both.
 */

import { recordCache } from './record-cache.js';
import { COORDINATION_STORE_METHODS, type CoordinationStore } from './roles/coordination-store.js';
import { KEY_STORE_METHODS, type KeyStore } from './roles/key-store.js';
import { CACHE_ROWS_METHODS, type CacheRows } from './roles/outcome-cache.js';
import { roleOf } from './roles/role.js';
import { SEARCH_STORE_METHODS, type SearchStore } from './roles/search-store.js';
import { STATS_STORE_METHODS, type StatsStore } from './roles/stats-store.js';
import type { SiteLimitStore } from './site-limits.js';
import type { Store, StoreConnection } from './store.js';
import type { TransportMemoryStore } from './transport-memory.js';

/** What the short-lived side of a split store plays. */
export type CoordinationSide = CacheRows &
  CoordinationStore &
  StoreConnection & { readonly siteLimits: SiteLimitStore; readonly transportMemory: TransportMemoryStore };

export function splitStore(records: Store, coordination: CoordinationSide): Store {
  return {
    ...roleOf<SearchStore>(records, SEARCH_STORE_METHODS),
    ...roleOf<KeyStore>(records, KEY_STORE_METHODS),
    ...roleOf<StatsStore>(records, STATS_STORE_METHODS),
    watchlists: records.watchlists,
    // The cache's rows expire by themselves in Redis; the outcomes they refer to are the records'.
    ...roleOf<CacheRows>(coordination, CACHE_ROWS_METHODS),
    ...recordCache(coordination, records),
    // Control records and leases are coordination on the check path, so they stay in Redis:
    // a waiting process polls getControl every 100 ms while another sends the control, and a
    // lease is timed by Redis's own clock (SET NX PX), never by process clocks that disagree.
    // Both are bounded (platforms × egress identities) and short-lived: a control is fresh for
    // a window, and losing them to a Redis restart costs one more control check, nothing else.
    ...roleOf<CoordinationStore>(coordination, COORDINATION_STORE_METHODS),
    // Learned limits expire and are read as a search starts: the fast side keeps them.
    siteLimits: coordination.siteLimits,
    // So are remembered transports, for the same reasons.
    transportMemory: coordination.transportMemory,
    async ping() {
      const [recordsUp, coordinationUp] = await Promise.all([records.ping(), coordination.ping()]);
      return recordsUp && coordinationUp;
    },
    async close() {
      await Promise.all([records.close(), coordination.close()]);
    },
  };
}
