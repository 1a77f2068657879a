/**
 * Outcomes kept for a while per username and platform, so that a search soon after another
 * of the same name reuses its answers instead of asking the platform again. The cache does
 * not copy an outcome: it notes which search stored it and until when it may be reused, and
 * reads it back from that search's record (record-cache.ts). A search swept or deleted takes
 * its cache entries with it.
 */
import type { Outcome } from '../../engine/verdict/outcome.js';
import type { RoleMethods } from './role.js';

/** A search's stored outcome on a platform, reusable until `expiresAt`: what `putCachedOutcomes` notes. */
export interface CacheEntry {
  /** The search whose record holds the outcome. */
  readonly searchId: string;
  readonly platformId: string;
  /** When the platform was checked: the reused outcome's `evidence.cachedAt`. */
  readonly cachedAt: number;
  readonly expiresAt: number;
}

export interface OutcomeCache {
  /**
   * The fresh cached outcomes of this username on these platforms (one read, not one per
   * platform), by platform id, each with `evidence.cachedAt`; a platform with none left out.
   * An entry whose search or outcome is gone, or that cannot be read, is left out too.
   */
  getCachedOutcomes(
    username: string,
    platformIds: readonly string[],
    now: number,
  ): Promise<Map<string, Outcome>>;
  /**
   * Notes the entries for this username (of two entries of one platform, the one checked
   * last is read). An entry of a search that does not exist, or of a platform that search
   * did not select, is not kept.
   */
  putCachedOutcomes(username: string, entries: readonly CacheEntry[]): Promise<void>;
}

export const OUTCOME_CACHE_METHODS: RoleMethods<OutcomeCache> = {
  getCachedOutcomes: true,
  putCachedOutcomes: true,
};

/**
 * What a backend keeps for the outcome cache: rows of entries by username (cache-refs.ts),
 * each with the expiry of its last-expiring entry. The backend stores and drops them; it
 * neither reads nor checks their bytes.
 */
export interface CacheRows {
  /** Keeps `row` for `username` until `expiresAt` at least. */
  addCacheRow(username: string, row: Uint8Array, expiresAt: number): Promise<void>;
  /** The username's rows not expired at `now` (any order). */
  cacheRowsOf(username: string, now: number): Promise<Uint8Array[]>;
}

export const CACHE_ROWS_METHODS: RoleMethods<CacheRows> = {
  addCacheRow: true,
  cacheRowsOf: true,
};
