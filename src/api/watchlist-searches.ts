/**
 * How a watchlist's run starts its searches: as ordinary POST /api/search
 * requests made by the service to itself (inject) on behalf of the owner's
 * key, so each is checked, counted against the key's search limit, queued and
 * estimated exactly as one a client starts.
 */
import type { FastifyInstance } from 'fastify';
import type { StartSearch } from '../watchlists/scheduler.js';
import { INTERNAL_TOKEN_HEADER, ON_BEHALF_HEADER } from './auth.js';

export function injectedSearchStarter(app: FastifyInstance, internalToken: string): StartSearch {
  return async (watchlist, username) => {
    const { spec } = watchlist;
    const response = await app.inject({
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
      }),
    });
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
