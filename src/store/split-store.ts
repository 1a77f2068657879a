/**
 * A store of record beside a fast, short-lived one: what must last goes to
 * `records` (PostgreSQL): searches (their privacy too) and a client's history,
 * outcomes, API keys, platform statistics, the scheduled self-check's verdicts,
 * watchlists with their changes and webhook deliveries. What is short-lived
 * goes to `cache` (Redis): the outcome cache, where entries expire by
 * themselves, and the control checks' records and leases (see below). What
 * cluster mode uses when DATABASE_URL is set. Both must answer for it to be
 * ready; closing closes both.
 */
import type { Outcome } from '../engine/outcome.js';
import type { SiteLimitStore } from './site-limits.js';
import type { CacheEntry, Store } from './store.js';
import type { WatchlistStore } from './watchlists.js';

export class SplitStore implements Store {
  readonly #records: Store;
  readonly #cache: Store;
  readonly watchlists: WatchlistStore;
  /** Learned site limits expire and are read on the check path's start: the fast store's. */
  readonly siteLimits: SiteLimitStore;

  constructor(records: Store, cache: Store) {
    this.#records = records;
    this.#cache = cache;
    this.watchlists = records.watchlists;
    this.siteLimits = cache.siteLimits;
  }

  createSearch: Store['createSearch'] = (search) => this.#records.createSearch(search);
  getSearch: Store['getSearch'] = (id) => this.#records.getSearch(id);
  updateSearch: Store['updateSearch'] = (id, patch) => this.#records.updateSearch(id, patch);
  addOutcomes: Store['addOutcomes'] = (id, outcomes) => this.#records.addOutcomes(id, outcomes);
  replaceOutcome: Store['replaceOutcome'] = (id, outcome) => this.#records.replaceOutcome(id, outcome);
  listOutcomes: Store['listOutcomes'] = (id, options) => this.#records.listOutcomes(id, options);
  progress: Store['progress'] = (id) => this.#records.progress(id);
  snapshot: Store['snapshot'] = (id, options) => this.#records.snapshot(id, options);
  listSearchesByClient: Store['listSearchesByClient'] = (client, options) =>
    this.#records.listSearchesByClient(client, options);
  unfinishedSearches: Store['unfinishedSearches'] = () => this.#records.unfinishedSearches();
  sweepSearches: Store['sweepSearches'] = (before) => this.#records.sweepSearches(before);
  createApiKey: Store['createApiKey'] = (key) => this.#records.createApiKey(key);
  findApiKeyByHash: Store['findApiKeyByHash'] = (hash) => this.#records.findApiKeyByHash(hash);
  listApiKeys: Store['listApiKeys'] = () => this.#records.listApiKeys();
  revokeApiKey: Store['revokeApiKey'] = (id, at) => this.#records.revokeApiKey(id, at);
  recordCheck: Store['recordCheck'] = (platformId, status, ms, at) =>
    this.#records.recordCheck(platformId, status, ms, at);
  recordChecks: Store['recordChecks'] = (checks) => this.#records.recordChecks(checks);
  platformStats: Store['platformStats'] = () => this.#records.platformStats();
  // Verdicts of a self-check round, written once a round: records, kept across a Redis restart.
  putPlatformHealth: Store['putPlatformHealth'] = (id, entry) => this.#records.putPlatformHealth(id, entry);
  listPlatformHealth: Store['listPlatformHealth'] = () => this.#records.listPlatformHealth();

  // Control records and leases are coordination on the check path, so they stay in Redis:
  // a waiting process polls getControl every 100 ms while another sends the control, and a
  // lease is timed by Redis's own clock (SET NX PX), never by process clocks that disagree.
  // Both are bounded (platforms × egress identities) and short-lived: a control is fresh for
  // a window, and losing them to a Redis restart costs one more control check, nothing else.
  getControl: Store['getControl'] = (platformId, identity) => this.#cache.getControl(platformId, identity);
  putControl: Store['putControl'] = (record) => this.#cache.putControl(record);
  listControls: Store['listControls'] = () => this.#cache.listControls();
  claimLease: Store['claimLease'] = (name, ttlMs, now) => this.#cache.claimLease(name, ttlMs, now);

  getCachedOutcome(username: string, platformId: string, now: number): Promise<Outcome | undefined> {
    return this.#cache.getCachedOutcome(username, platformId, now);
  }

  getCachedOutcomes(
    username: string,
    platformIds: readonly string[],
    now: number,
  ): Promise<Map<string, Outcome>> {
    return this.#cache.getCachedOutcomes(username, platformIds, now);
  }

  putCachedOutcome(username: string, outcome: Outcome, expiresAt: number): Promise<void> {
    return this.#cache.putCachedOutcome(username, outcome, expiresAt);
  }

  putCachedOutcomes(username: string, entries: readonly CacheEntry[]): Promise<void> {
    return this.#cache.putCachedOutcomes(username, entries);
  }

  async ping(): Promise<boolean> {
    const [records, cache] = await Promise.all([this.#records.ping(), this.#cache.ping()]);
    return records && cache;
  }

  async close(): Promise<void> {
    await Promise.all([this.#records.close(), this.#cache.close()]);
  }
}
