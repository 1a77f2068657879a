/**
 * What one API key may hold in watchlists, so one tenant cannot fill the
 * store or the scheduler for the others: a number of watchlists and of names
 * over all of them (USERSCOUT_WATCHLIST_MAX_PER_KEY, _MAX_NAMES_PER_KEY). Pure.
 */
import { UserscoutError } from '../errors.js';
import type { Watchlist, WatchlistSpec } from '../store/watchlists.js';

export interface KeyLimits {
  readonly maxWatchlists: number;
  readonly maxNames: number;
}

/**
 * The error that refuses `spec` as the key's new watchlist (`replacing`
 * undefined) or as the new spec of `replacing`, given all the key's
 * watchlists; undefined when it fits.
 */
export function keyLimitError(
  owned: readonly Watchlist[],
  spec: WatchlistSpec,
  replacing: string | undefined,
  limits: KeyLimits,
): UserscoutError | undefined {
  const others = owned.filter((w) => w.id !== replacing);
  if (replacing === undefined && others.length >= limits.maxWatchlists)
    return new UserscoutError(
      'watchlist_limit',
      `An API key may have at most ${limits.maxWatchlists} watchlists (USERSCOUT_WATCHLIST_MAX_PER_KEY); delete one first`,
      { details: { limit: limits.maxWatchlists } },
    );
  const names = others.reduce((n, w) => n + w.spec.names.length, 0) + spec.names.length;
  if (names > limits.maxNames)
    return new UserscoutError(
      'watchlist_limit',
      `An API key's watchlists may hold at most ${limits.maxNames} names together (USERSCOUT_WATCHLIST_MAX_NAMES_PER_KEY); this would make ${names}`,
      { details: { limit: limits.maxNames, names } },
    );
  return undefined;
}
