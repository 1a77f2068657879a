/**
 * Which searches share the outcome cache, and how long an outcome may be reused:
 * long for a hit, shorter for a miss, short for what could not be decided. Pure.
 */
import type { Config } from '../config.js';
import type { Outcome } from '../engine/verdict/outcome.js';
import type { SearchRecord } from '../store/store.js';

/**
 * Whether a search reads and writes the shared outcome cache. A private one does neither: a
 * cached outcome it left would tell anyone searching the same name that it was checked lately.
 */
export function sharesOutcomeCache(search: Pick<SearchRecord, 'private'>): boolean {
  return search.private !== true;
}

export interface CacheTtls {
  readonly hitSeconds: number;
  readonly missSeconds: number;
  readonly otherSeconds: number;
}

/** The TTLs the configuration sets. */
export function cacheTtlsOf(
  config: Pick<Config, 'cacheHitSeconds' | 'cacheMissSeconds' | 'cacheOtherSeconds'>,
): CacheTtls {
  return {
    hitSeconds: config.cacheHitSeconds,
    missSeconds: config.cacheMissSeconds,
    otherSeconds: config.cacheOtherSeconds,
  };
}

/** Expiry time (ms epoch) for an outcome decided at `now`, or undefined when it must not be cached. */
export function cacheExpiry(outcome: Outcome, now: number, ttls: CacheTtls): number | undefined {
  if (outcome.status === 'invalid') return undefined; // cheap to recompute, depends only on the rule
  if (outcome.evidence.cachedAt !== undefined) return undefined; // never extend a reused outcome
  const seconds =
    outcome.status === 'hit'
      ? ttls.hitSeconds
      : outcome.status === 'miss'
        ? ttls.missSeconds
        : ttls.otherSeconds;
  return seconds > 0 ? now + seconds * 1000 : undefined;
}
