/**
 * Outcomes kept for a while per username and platform, so that a search soon after another
 * of the same name reuses its answers instead of asking the platform again.
 */
import type { Outcome } from '../../engine/outcome.js';
import type { RoleMethods } from './role.js';

/** An outcome to cache for a username until `expiresAt`: `putCachedOutcome`'s arguments. */
export interface CacheEntry {
  readonly outcome: Outcome;
  readonly expiresAt: number;
}

export interface OutcomeCache {
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
   * `putCachedOutcome` for each entry, every one tried (of two entries of one platform,
   * either may be the one kept). Rejects with the first failure.
   */
  putCachedOutcomes(username: string, entries: readonly CacheEntry[]): Promise<void>;
}

export const OUTCOME_CACHE_METHODS: RoleMethods<OutcomeCache> = {
  getCachedOutcome: true,
  getCachedOutcomes: true,
  putCachedOutcome: true,
  putCachedOutcomes: true,
};
