/**
 * Searches in the plural: POST /api/searches starts one per name (a batch),
 * GET /api/searches lists a key's own searches, DELETE /api/search/{id}
 * cancels one.
 *
 * Decisions: a batch starts all its searches or none (one 429 saying how many
 * are left, rather than a partial batch the client must reconcile). History is
 * for API keys only: a client address can be shared (NAT, a proxy), so it
 * would show one person the names another searched. A search started with a
 * key can be cancelled only with that key; one started without a key by
 * anyone who holds its id, the same capability that reads it.
 */

import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { checkUsername } from '../../catalogue/check-username.js';
import { UserscoutError } from '../../errors.js';
import { CANCELLED, failSearch } from '../../runner/search-job.js';
import { isFinished, type SearchRecord } from '../../store/store.js';
import type { Caller } from '../auth.js';
import type { AppDeps } from '../deps.js';
import {
  EventsParams,
  errorResponses,
  SearchListQuery,
  SearchListResponse,
  StartBatchBody,
  StartBatchResponse,
  startErrorResponses,
} from '../schemas.js';
import { canRead } from '../search-access.js';
import { decodeCursor, encodeCursor } from '../search-cursor.js';
import { searchSummary } from '../search-response.js';
import { checkPrivate, choosePlatforms, startSearches } from '../start-searches.js';

/** Searches per page of GET /api/searches when the client does not say. */
const DEFAULT_PAGE_SIZE = 20;

/** Whether `caller` may cancel `search` (see the module comment). Pure. */
function mayCancel(search: Pick<SearchRecord, 'client'>, caller: Pick<Caller, 'client'>): boolean {
  return !search.client.startsWith('key:') || search.client === caller.client;
}

export async function searchesRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.post(
    '/api/searches',
    {
      // Each search counts against the search limit (start-searches), not the request limit.
      config: { rateLimit: false },
      schema: {
        tags: ['search'],
        summary: 'Start a search for each of several names',
        operationId: 'startSearches',
        description:
          'One search per name (at most the setting maxBatchNames, default 25; names distinct), on the same platforms. Each counts as one against the search limit. All start or none: when the limit does not hold them all, the answer is 429 rate_limited with details.remaining (how many are left) and nothing starts. An invalid name refuses the whole batch (400, naming it). With recursive: true, the search of each name is recursive as on POST /api/search: once completed, its follow-up searches start, each counted as one (past the limit listed as not searched, not refused with the batch).',
        body: StartBatchBody,
        response: {
          200: StartBatchResponse,
          ...startErrorResponses,
        },
      },
    },
    async (request, reply) => {
      const { usernames, categories, platforms, tags, top, includeNsfw } = request.body;
      checkPrivate(request.body.private, request.caller);
      if (usernames.length > deps.config.maxBatchNames)
        throw new UserscoutError(
          'bad_request',
          `body.usernames holds ${usernames.length} names; at most ${deps.config.maxBatchNames} (setting maxBatchNames)`,
          { details: { max: deps.config.maxBatchNames } },
        );
      for (const username of usernames) checkUsername(username, true);
      const selected = choosePlatforms(deps, { categories, platforms, tags, top, includeNsfw });
      const started = await startSearches(
        deps,
        request,
        usernames.map((username) => ({
          username,
          platforms: selected,
          recursive: request.body.recursive === true,
        })),
        { private: request.body.private === true },
        reply,
      );
      return { searches: started.map((s, i) => ({ username: usernames[i]!, ...s })) };
    },
  );

  api.get(
    '/api/searches',
    {
      schema: {
        tags: ['search'],
        summary: "List the key's own searches",
        operationId: 'listSearches',
        description:
          'The searches started with this API key, newest first, a page at a time: pass nextCursor as cursor for the next page (absent on the last). Needs a key: without one the answer is 401 api_key_required, since a client address may be shared. Searches are kept for the retention period (default 7 days).',
        querystring: SearchListQuery,
        response: {
          200: SearchListResponse,
          401: { $ref: 'Error#' },
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const { client } = request.caller;
      if (!client.startsWith('key:'))
        throw new UserscoutError(
          'api_key_required',
          'Listing searches needs an API key: searches are listed per key',
        );
      const limit = request.query.limit === undefined ? DEFAULT_PAGE_SIZE : Number(request.query.limit);
      const before = request.query.cursor === undefined ? undefined : decodeCursor(request.query.cursor);
      // One more than the page: whether another page follows, without an empty last page.
      const listed = await deps.store.listSearchesByClient(client, { limit: limit + 1, before });
      const page = listed.slice(0, limit);
      const last = page[page.length - 1];
      return {
        searches: page.map(searchSummary),
        ...(listed.length > limit && last ? { nextCursor: encodeCursor(last) } : {}),
      };
    },
  );

  api.delete(
    '/api/search/:id',
    {
      schema: {
        tags: ['search'],
        summary: 'Cancel a search',
        operationId: 'cancelSearch',
        description:
          'Stops a queued or running search: it ends with status error and error "cancelled", and keeps the results found so far (GET /api/search?id= shows them). A search started with an API key can be cancelled only with that key (else 403 not_owner; 404 for a private one, as for reading it); one started without a key by anyone who has its id. A search that has ended already is 409 search_finished. Does not give back the search it counted.',
        params: EventsParams,
        response: {
          200: { $ref: 'SearchSummary#' },
          401: { $ref: 'Error#' },
          403: { $ref: 'Error#' },
          404: { $ref: 'Error#' },
          409: { $ref: 'Error#' },
          503: { $ref: 'Error#' },
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const { id } = request.params;
      const search = await deps.store.getSearch(id);
      // A private search of another key is not revealed, as for reading it.
      if (!search || !canRead(search, request.caller)) throw new UserscoutError('search_not_found');
      if (!mayCancel(search, request.caller)) throw new UserscoutError('not_owner');
      const ended = () =>
        new UserscoutError(
          'search_finished',
          `The search has ended already (${search.state === 'completed' ? 'completed' : 'error'})`,
        );
      if (isFinished(search.state)) throw ended();
      // Ended first, so that no runner starts or completes it afterwards; then its work stops.
      await failSearch(id, CANCELLED, deps);
      await deps.runner.cancel(id);
      const now = await deps.store.getSearch(id);
      if (!now) throw new UserscoutError('search_not_found');
      // It completed (or failed) between the read and the cancel: say so.
      if (now.state !== 'error' || now.error !== CANCELLED)
        throw new UserscoutError('search_finished', `The search has ended already (${now.state})`);
      request.log.info({ queryId: id }, 'search cancelled');
      return searchSummary(now);
    },
  );
}
