/**
 * POST /api/search starts a search (and, when asked, one per lookalike name);
 * GET /api/search?id= reports it. A start is checked (name, platforms, room in
 * the queue) before the search limit counts it, so only a started search uses
 * up the limit (src/api/start-searches.ts).
 */

import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { UserscoutError } from '../../errors.js';
import { Lru } from '../../lru.js';
import { isFinished } from '../../store/store.js';
import { AnswerJson } from '../answer-json.js';
import type { AppDeps } from '../deps.js';
import { platformOrder } from '../platform-order.js';
import {
  errorResponses,
  Result,
  SearchQuery,
  SearchResponse,
  StartSearchBody,
  StartSearchResponse,
  startErrorResponses,
} from '../schemas.js';
import type { SearchView } from '../search-response.js';
import { searchResponse } from '../search-response.js';
import { searchViewReader } from '../search-view.js';
import { calibrationOf, startSearchFor } from '../start-searches.js';

const JSON_TYPE = 'application/json; charset=utf-8';

export async function searchRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  // Serialized answers of finished searches: a finished search never changes, so polling it again reads nothing.
  const finished = new Lru<string, Buffer>(deps.config.finishedAnswerCacheEntries);
  // A running search's hits are serialised once each, not on every poll.
  const answerJson = new AnswerJson();
  // Answers of searches not finished, by their view: the same view (nothing stored since, search-view.ts) is the same answer.
  const unfinished = new WeakMap<SearchView, Buffer>();
  // Results by platform name, compared by catalogue rank: a running search's hits are sorted on every poll.
  const order = platformOrder(deps.catalogue.platforms.map((p) => p.name));
  // The same view of a search as its report (src/api/search-view.ts).
  const read = searchViewReader(deps);
  // Learns from each finished search how far the model's estimates run off on this deployment.
  const calibration = calibrationOf(deps);

  api.post(
    '/api/search',
    {
      // The search limit is counted by startSearchFor (src/api/search-quota.ts), not by the request limit.
      config: { rateLimit: false },
      schema: {
        tags: ['search'],
        summary: 'Start a search',
        operationId: 'startSearch',
        description:
          'Starts checking the username on every platform (or the chosen categories/platforms) and answers at once. Counts against the search limit of the tier: free 10 per 15 minutes per client address, professional 1000 per hour per key. Only a started search counts: a refused username, a request that matches no enabled platform and a 503 queue_full do not. With variants: true, lookalike names are searched too, each as a search of its own that counts as one; all start or none (429 when the limit does not hold them all). With recursive: true, once completed, the new names in its hits’ profiles start follow-up searches (depth 1, each counted as one, past the limit listed as not searched), whether or not anyone reads the search: see followUps (and followUpsPending until they are recorded) in GET /api/search.',
        body: StartSearchBody,
        response: {
          200: StartSearchResponse,
          ...startErrorResponses,
        },
      },
    },
    async (request, reply) => startSearchFor(deps, request, request.body, reply),
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
      if (cached !== undefined) return reply.type(JSON_TYPE).send(cached);
      const found = await read(id, request.caller, { all, log: request.log });
      if (!found) throw new UserscoutError('search_not_found');
      const { search, view } = found;
      const running = !isFinished(search.state);
      const same = running ? unfinished.get(view) : undefined;
      if (same !== undefined) return reply.type(JSON_TYPE).send(same);
      const percent = deps.config.coverageWarningPercent;
      const body = searchResponse(view, percent, order);
      const json = () =>
        answerJson.serialize(
          body,
          (answer) => reply.serialize(answer) as string,
          reply.compileSerializationSchema(Result) as (item: object) => string,
        );
      if (running) {
        const serialized = json();
        unfinished.set(view, serialized);
        return reply.type(JSON_TYPE).send(serialized);
      }
      // Its follow-ups are being started: not final yet.
      if (body.followUpsPending) return reply.type(JSON_TYPE).send(json());
      // Seen finished for the first time here: how long it took against what it was told.
      const seenBefore = finished.get(`${id} ${all ? 'hits' : 'all'}`) !== undefined;
      if (search.state === 'completed' && search.finishedAt !== undefined && !seenBefore)
        calibration.observe(search.estimatedSeconds, search.finishedAt - search.createdAt, search.id);
      // Finished: it never changes again, so it is serialized once and served from memory.
      const serialized = json();
      finished.set(search.private ? owned : shared, serialized);
      return reply.type(JSON_TYPE).send(serialized);
    },
  );
}
