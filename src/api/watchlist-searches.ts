/**
 * How a watchlist's run starts its searches: as its owner's key, through the
 * same `startSearchFor` a client's POST /api/search goes through, so each is
 * checked, counted against the key's search limit, queued and estimated
 * exactly as one the key starts. They are private to the key (only it can read
 * them) where its tier allows private searches.
 */
import type { FastifyBaseLogger } from 'fastify';
import { ERROR_CODES, isUserscoutError } from '../errors.js';
import type { StartSearch } from '../watchlists/scheduler.js';
import { ownerCaller } from './auth.js';
import type { AppDeps } from './deps.js';
import { mayStartPrivate, startSearchFor } from './start-searches.js';

export function watchlistSearchStarter(deps: AppDeps, log: FastifyBaseLogger): StartSearch {
  return async (watchlist, username) => {
    const caller = await ownerCaller(deps.store, watchlist.owner);
    if (!caller) return { skipped: `unauthorized: ${ERROR_CODES.unauthorized.message}` };
    const { spec } = watchlist;
    try {
      const started = await startSearchFor(
        deps,
        { caller, log },
        {
          username,
          categories: spec.categories,
          platforms: spec.platforms,
          includeNsfw: spec.includeNsfw,
          // A key whose tier cannot start private searches still watches, with ordinary ones.
          private: mayStartPrivate(caller),
        },
      );
      return { queryId: started.queryId };
    } catch (error) {
      // Refused as a client's start would be (the limit, a full queue, no platform left): said in the run.
      if (isUserscoutError(error)) return { skipped: `${error.code}: ${error.message}` };
      log.error({ err: error, watchlistId: watchlist.id }, 'watchlist search not started');
      return { skipped: `internal: ${ERROR_CODES.internal.message}` };
    }
  };
}
