/**
 * How a watchlist's run starts its searches: as ordinary POST /api/search
 * requests made by the service to itself (inject) on behalf of the owner's
 * key, so each is checked, counted against the key's search limit, queued and
 * estimated exactly as one a client starts. They are private to the key (only
 * it can read them) where its tier allows private searches.
 */
import type { FastifyInstance } from 'fastify';
import type { Watchlist } from '../store/watchlists.js';
import type { StartSearch } from '../watchlists/scheduler.js';
import { INTERNAL_TOKEN_HEADER, ON_BEHALF_HEADER } from './auth.js';

export function injectedSearchStarter(app: FastifyInstance, internalToken: string): StartSearch {
  const start = async (watchlist: Watchlist, username: string, asPrivate: boolean) => {
    const { spec } = watchlist;
    return app.inject({
      method: 'POST',
      url: '/api/search',
      headers: {
        'content-type': 'application/json',
        [INTERNAL_TOKEN_HEADER]: internalToken,
        [ON_BEHALF_HEADER]: watchlist.owner.replace(/^key:/, ''),
      },
      payload: JSON.stringify({
        username,
        ...(spec.categories ? { categories: spec.categories } : {}),
        ...(spec.platforms ? { platforms: spec.platforms } : {}),
        ...(spec.includeNsfw !== undefined ? { includeNsfw: spec.includeNsfw } : {}),
        ...(asPrivate ? { private: true } : {}),
      }),
    });
  };
  return async (watchlist, username) => {
    let response = await start(watchlist, username, true);
    // A key whose tier cannot start private searches still watches, with ordinary ones.
    if (response.statusCode === 403 && response.json<{ code?: string }>().code === 'private_not_allowed')
      response = await start(watchlist, username, false);
    let body: { queryId?: string; code?: string; error?: string } = {};
    try {
      body = response.json();
    } catch {
      // not JSON: said below by the status
    }
    if (response.statusCode === 200 && body.queryId) return { queryId: body.queryId };
    return { skipped: `${body.code ?? `HTTP ${response.statusCode}`}: ${body.error ?? 'not started'}` };
  };
}
