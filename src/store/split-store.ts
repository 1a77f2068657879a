/**
 * A store of record beside a fast, short-lived one: searches, outcomes, API
 * keys and platform statistics go to `records` (PostgreSQL), the outcome cache
 * to `cache` (Redis, where entries expire by themselves). What cluster mode
 * uses when DATABASE_URL is set. Both must answer for it to be ready; closing
 * closes both.
 */
import type { Outcome } from '../engine/outcome.js';
import type { Store } from './store.js';

export class SplitStore implements Store {
  readonly #records: Store;
  readonly #cache: Store;

  constructor(records: Store, cache: Store) {
    this.#records = records;
    this.#cache = cache;
  }

  createSearch: Store['createSearch'] = (search) => this.#records.createSearch(search);
  getSearch: Store['getSearch'] = (id) => this.#records.getSearch(id);
  updateSearch: Store['updateSearch'] = (id, patch) => this.#records.updateSearch(id, patch);
  addOutcome: Store['addOutcome'] = (id, outcome) => this.#records.addOutcome(id, outcome);
  addOutcomes: Store['addOutcomes'] = (id, outcomes) => this.#records.addOutcomes(id, outcomes);
  listOutcomes: Store['listOutcomes'] = (id, options) => this.#records.listOutcomes(id, options);
  progress: Store['progress'] = (id) => this.#records.progress(id);
  snapshot: Store['snapshot'] = (id, options) => this.#records.snapshot(id, options);
  unfinishedSearches: Store['unfinishedSearches'] = () => this.#records.unfinishedSearches();
  sweepSearches: Store['sweepSearches'] = (before) => this.#records.sweepSearches(before);
  createApiKey: Store['createApiKey'] = (key) => this.#records.createApiKey(key);
  findApiKeyByHash: Store['findApiKeyByHash'] = (hash) => this.#records.findApiKeyByHash(hash);
  listApiKeys: Store['listApiKeys'] = () => this.#records.listApiKeys();
  revokeApiKey: Store['revokeApiKey'] = (id, at) => this.#records.revokeApiKey(id, at);
  recordCheck: Store['recordCheck'] = (platformId, status, ms, at) =>
    this.#records.recordCheck(platformId, status, ms, at);
  platformStats: Store['platformStats'] = () => this.#records.platformStats();

  getCachedOutcome(username: string, platformId: string, now: number): Promise<Outcome | undefined> {
    return this.#cache.getCachedOutcome(username, platformId, now);
  }

  putCachedOutcome(username: string, outcome: Outcome, expiresAt: number): Promise<void> {
    return this.#cache.putCachedOutcome(username, outcome, expiresAt);
  }

  async ping(): Promise<boolean> {
    const [records, cache] = await Promise.all([this.#records.ping(), this.#cache.ping()]);
    return records && cache;
  }

  async close(): Promise<void> {
    await Promise.all([this.#records.close(), this.#cache.close()]);
  }
}
