/**
 * POST /api/search starts a search (and, when asked, one per lookalike name);
 * GET /api/search?id= reports it. A start is checked (name, platforms, room in
 * the queue) before the search limit counts it, so only a started search uses
 * up the limit (src/api/start-searches.ts).
 */

import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { checkUsername } from '../../catalogue/check-username.js';
import { unansweredReasons } from '../../engine/coverage.js';
import { accountLinks, ProfileUrlMatcher } from '../../engine/linked-accounts.js';
import { UserscoutError } from '../../errors.js';
import { AnswerCache } from '../answer-cache.js';
import type { AppDeps } from '../deps.js';
import { followUpsOf } from '../follow-ups.js';
import {
  errorResponses,
  SearchQuery,
  SearchResponse,
  StartSearchBody,
  StartSearchResponse,
} from '../schemas.js';
import { canRead } from '../search-access.js';
import { everyOutcomeView, searchCoverage, searchResponse } from '../search-response.js';
import {
  calibrationOf,
  checkPrivate,
  choosePlatforms,
  planVariants,
  startSearches,
} from '../start-searches.js';

export async function searchRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const finished = new AnswerCache(deps.config.finishedAnswerCacheEntries);
  const profileUrls = new ProfileUrlMatcher(deps.catalogue.platforms);
  // Learns from each finished search how far the model's estimates run off on this deployment.
  const calibration = calibrationOf(deps);

  api.post(
    '/api/search',
    {
      // The search limit is counted by startSearches (src/api/search-quota.ts), not by the request limit.
      config: { rateLimit: false },
      schema: {
        tags: ['search'],
        summary: 'Start a search',
        operationId: 'startSearch',
        description:
          'Starts checking the username on every platform (or the chosen categories/platforms) and answers at once. Counts against the search limit of the tier: free 10 per 15 minutes per client address, professional 1000 per hour per key. Only a started search counts: a refused username, a request that matches no enabled platform and a 503 queue_full do not. With variants: true, lookalike names are searched too, each as a search of its own that counts as one; all start or none (429 when the limit does not hold them all). With recursive: true, once completed, the new names in its hits’ profiles start follow-up searches (depth 1, each counted as one, past the limit listed as not searched): see followUps in GET /api/search.',
        body: StartSearchBody,
        response: {
          200: StartSearchResponse,
          401: { $ref: 'Error#' },
          403: { $ref: 'Error#' },
          413: { $ref: 'Error#' },
          415: { $ref: 'Error#' },
          503: { $ref: 'Error#' },
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const { username, categories, platforms, includeNsfw, variants } = request.body;
      checkUsername(username);
      checkPrivate(request.body.private, request.caller);
      const selected = choosePlatforms(deps, { categories, platforms, includeNsfw });
      const lookalikes = variants ? planVariants(deps, username, selected) : undefined;
      const [main, ...others] = await startSearches(
        deps,
        request,
        reply,
        [{ username, platforms: selected }, ...(lookalikes?.searched ?? [])],
        { private: request.body.private === true, recursive: request.body.recursive === true },
      );
      if (!lookalikes) return main!;
      return {
        ...main!,
        variants: lookalikes.searched.map((v, i) => ({ username: v.username, kind: v.kind, ...others[i]! })),
        variantsNotSearched: lookalikes.skipped,
      };
    },
  );

  api.get(
    '/api/search',
    {
      // Polled about once a second by every client: no log line per poll at the default level.
      logLevel: 'warn',
      schema: {
        tags: ['search'],
        summary: 'Get a search and its results',
        operationId: 'getSearch',
        description:
          'Poll until status is completed or error (about once a second). Anyone with the id can read a search, unless it was started with private: true, which only the key that started it can read (404 for anyone else, as for an unknown id). While running, results already hold the hits found so far and progress says how far it got and how many platforms answered. coverage is the share of the platforms checked that answered; a completed search with low coverage carries a warning, since a missing hit proves nothing where no answer came. include=all returns every outcome with its reason.',
        querystring: SearchQuery,
        response: {
          200: SearchResponse,
          404: { $ref: 'Error#' },
          401: { $ref: 'Error#' },
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const { id, include } = request.query;
      const all = include === 'all';
      // A private search's answer is cached under its owner too, so no other caller meets it.
      const shared = `${id} ${all ? 'all' : 'hits'}`;
      const owned = `${shared} ${request.caller.client}`;
      const cached = finished.get(shared) ?? finished.get(owned);
      if (cached !== undefined) return reply.type('application/json; charset=utf-8').send(cached);
      // One store read per poll: the search, its counts and its outcomes together.
      const snapshot = await deps.store.snapshot(id, all ? {} : { statuses: ['hit'] });
      if (!snapshot || !canRead(snapshot.search, request.caller))
        throw new UserscoutError('search_not_found');
      let { search } = snapshot;
      const results = snapshot.outcomes.map((s) => s.outcome);
      if (search.state === 'completed' && search.recursive) {
        // The first answer of a completed recursive search starts its follow-ups (src/api/follow-ups.ts).
        const followUps = await followUpsOf(deps, search, results, profileUrls, request.log);
        search = { ...search, followUps };
      }
      const percent = deps.config.coverageWarningPercent;
      // Every link comes from a hit's profile, and hits are in both answers.
      const links = accountLinks(results, profileUrls);
      let view: Parameters<typeof searchResponse>[0];
      if (all) {
        view = everyOutcomeView(search, results, links);
      } else {
        view = { search, total: search.platformIds.length, progress: snapshot.progress, results, links };
        // The warning's reasons need the outcomes that did not answer: read only when it shows.
        if (searchCoverage(view, percent).warns) {
          const unanswered = await deps.store.listOutcomes(id, { statuses: ['unknown', 'error'] });
          view = { ...view, unansweredReasons: unansweredReasons(unanswered.map((s) => s.outcome)) };
        }
      }
      const body = searchResponse(view, percent);
      if (search.state !== 'completed' && search.state !== 'error') return body;
      // Its follow-ups are being started by another process: not final yet.
      if (search.recursive && search.state === 'completed' && !search.followUps) return body;
      // Seen finished for the first time here: how long it took against what it was told.
      const seenBefore = finished.get(`${id} ${all ? 'hits' : 'all'}`) !== undefined;
      if (search.state === 'completed' && search.finishedAt !== undefined && !seenBefore)
        calibration.observe(search.estimatedSeconds, search.finishedAt - search.createdAt);
      // Finished: it never changes again, so it is serialized once and served from memory.
      const serialized = reply.serialize(body) as string;
      finished.set(search.private ? owned : shared, serialized);
      return reply.type('application/json; charset=utf-8').send(serialized);
    },
  );
}
