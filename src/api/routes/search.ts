/**
 * POST /api/search starts a search; GET /api/search?id= reports it.
 */
import { randomUUID } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { selectPlatforms } from '../../catalogue/select.js';
import { usernameProblem } from '../../catalogue/username-rule.js';
import { byPlatformName } from '../../engine/outcome.js';
import { UserscoutError } from '../../errors.js';
import { estimateSeconds } from '../../runner/estimate.js';
import { progressSnapshot } from '../../runner/events.js';
import { failSearch } from '../../runner/search-job.js';
import type { SearchRecord } from '../../store/store.js';
import type { AppDeps } from '../deps.js';
import { searchRateLimit } from '../rate-limits.js';
import {
  errorResponses,
  SearchQuery,
  SearchResponse,
  StartSearchBody,
  StartSearchResponse,
} from '../schemas.js';

export async function searchRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.post(
    '/api/search',
    {
      config: { rateLimit: searchRateLimit(deps.config) },
      schema: {
        tags: ['search'],
        summary: 'Start a search',
        operationId: 'startSearch',
        description:
          'Starts checking the username on every platform (or the chosen categories/platforms) and answers at once. Counts against the search limit of the tier: free 10 per 15 minutes per client address, professional 1000 per hour per key.',
        body: StartSearchBody,
        response: {
          200: StartSearchResponse,
          401: { $ref: 'Error#' },
          413: { $ref: 'Error#' },
          415: { $ref: 'Error#' },
          503: { $ref: 'Error#' },
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const { username, categories, platforms: only, includeNsfw } = request.body;
      const problem = usernameProblem(username);
      if (problem) throw new UserscoutError('invalid_username', `username ${problem}`);
      const selected = selectPlatforms(deps.catalogue, {
        categories,
        platforms: only,
        includeNsfw: includeNsfw ?? deps.config.includeNsfw,
        exclude: deps.health.unhealthyIds(),
      });
      if (selected.length === 0)
        throw new UserscoutError('bad_request', 'No enabled platform matches the request');
      const latencies = await deps.latencies();
      const estimatedSeconds = estimateSeconds({
        latenciesMs: selected.map((p) => latencies.get(p.id)),
        defaultLatencyMs: deps.config.unmeasuredLatencyMs,
        timeoutMs: deps.config.timeoutMs,
        concurrency: deps.config.concurrency,
        queuedAhead: await deps.runner.queuedAhead(request.caller.tier),
        maxRunning: deps.config.maxRunningSearches,
      });
      const search: SearchRecord = {
        id: randomUUID(),
        username,
        state: 'queued',
        tier: request.caller.tier,
        client: request.caller.client,
        platformIds: selected.map((p) => p.id),
        estimatedSeconds,
        createdAt: deps.now(),
      };
      await deps.store.createSearch(search);
      try {
        await deps.runner.enqueue(search);
      } catch (error) {
        await failSearch(search.id, 'not queued', deps);
        throw error;
      }
      deps.metrics.searches.inc({ tier: search.tier });
      request.log.info(
        { queryId: search.id, tier: search.tier, platforms: selected.length },
        'search started',
      );
      return {
        queryId: search.id,
        status: 'running' as const,
        totalPlatforms: selected.length,
        estimatedTime: estimatedSeconds,
      };
    },
  );

  api.get(
    '/api/search',
    {
      schema: {
        tags: ['search'],
        summary: 'Get a search and its results',
        operationId: 'getSearch',
        description:
          'Poll until status is completed or error (about once a second). While running, results already hold the hits found so far and progress says how far it got. include=all returns every outcome with its reason.',
        querystring: SearchQuery,
        response: {
          200: SearchResponse,
          404: { $ref: 'Error#' },
          401: { $ref: 'Error#' },
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const { id, include } = request.query;
      const search = await deps.store.getSearch(id);
      if (!search) throw new UserscoutError('search_not_found');
      const [stored, progress] = await Promise.all([
        deps.store.listOutcomes(id, include === 'all' ? {} : { statuses: ['hit'] }),
        deps.store.progress(id),
      ]);
      const results = stored.map((s) => s.outcome).sort(byPlatformName);
      return {
        queryId: search.id,
        status: search.state === 'queued' ? ('running' as const) : search.state,
        username: search.username,
        results,
        progress: { ...progressSnapshot(search, progress), queued: search.state === 'queued' },
        estimatedTime: search.estimatedSeconds,
        createdAt: new Date(search.createdAt).toISOString(),
        ...(search.finishedAt !== undefined
          ? { completedAt: new Date(search.finishedAt).toISOString() }
          : {}),
        ...(search.error !== undefined && search.state === 'error' ? { error: search.error } : {}),
      };
    },
  );
}
