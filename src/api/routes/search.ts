/**
 * POST /api/search starts a search; GET /api/search?id= reports it. A start
 * is checked (name, platforms, room in the queue) before the search limit
 * counts it, so only a started search uses up the limit.
 */
import { randomUUID } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Platform } from '../../catalogue/platform.js';
import { selectPlatforms } from '../../catalogue/select.js';
import { usernameProblem } from '../../catalogue/username-rule.js';
import { countStatuses, unansweredReasons } from '../../engine/coverage.js';
import { originLoads } from '../../engine/politeness-bound.js';
import { UserscoutError } from '../../errors.js';
import { estimateSeconds } from '../../runner/estimate.js';
import { EstimateCalibration } from '../../runner/estimate-calibration.js';
import { failSearch } from '../../runner/search-job.js';
import type { SearchRecord } from '../../store/store.js';
import { AnswerCache } from '../answer-cache.js';
import type { AppDeps } from '../deps.js';
import { searchRateLimit } from '../rate-limits.js';
import {
  errorResponses,
  SearchQuery,
  SearchResponse,
  StartSearchBody,
  StartSearchResponse,
} from '../schemas.js';
import { canRead } from '../search-access.js';
import { searchCoverage, searchResponse } from '../search-response.js';

export async function searchRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  /** The platforms each accepted start covers, chosen before the limit counts it. */
  const selections = new WeakMap<FastifyRequest, Platform[]>();
  const finished = new AnswerCache(deps.config.finishedAnswerCacheEntries);
  // Learns from each finished search how far the model's estimates run off on this deployment.
  const calibration = new EstimateCalibration();

  api.post(
    '/api/search',
    {
      config: { rateLimit: searchRateLimit(deps.config) },
      // Route hooks run before the limit's own preHandler (the plugin appends it): a refused
      // name, a request that matches no platform or a full queue is answered without counting.
      preHandler: async (request) => {
        const { username, categories, platforms: only, includeNsfw } = request.body;
        const problem = usernameProblem(username);
        if (problem) throw new UserscoutError('invalid_username', `username ${problem}`);
        if (request.body.private && request.caller.tier !== 'professional')
          throw new UserscoutError('private_not_allowed');
        const selected = selectPlatforms(deps.catalogue, {
          categories,
          platforms: only,
          includeNsfw: includeNsfw ?? deps.config.includeNsfw,
          exclude: deps.health.unhealthyIds(),
        });
        if (selected.length === 0)
          throw new UserscoutError('bad_request', 'No enabled platform matches the request');
        await deps.runner.admit(request.caller.tier);
        selections.set(request, selected);
      },
      schema: {
        tags: ['search'],
        summary: 'Start a search',
        operationId: 'startSearch',
        description:
          'Starts checking the username on every platform (or the chosen categories/platforms) and answers at once. Counts against the search limit of the tier: free 10 per 15 minutes per client address, professional 1000 per hour per key. Only a started search counts: a refused username, a request that matches no enabled platform and a 503 queue_full do not.',
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
    async (request) => {
      const selected = selections.get(request)!;
      const { username } = request.body;
      // Independent reads (the queue's in cluster mode): one round trip's wait, not three.
      const [latencies, stats, queuedAhead] = await Promise.all([
        deps.latencies(),
        deps.runner.stats(),
        deps.runner.queuedAhead(request.caller.tier),
      ]);
      const budget = { perSecond: deps.config.budgetPerSecond, burst: deps.config.budgetBurst };
      const modelSeconds = estimateSeconds({
        latenciesMs: selected.map((p) => latencies.get(p.id)),
        defaultLatencyMs: deps.config.unmeasuredLatencyMs,
        timeoutMs: deps.config.timeoutMs,
        concurrency: deps.config.concurrency,
        origins: originLoads(selected, budget).map((o) => ({
          platforms: o.platforms.length,
          limit: o.limit,
        })),
        identities: Math.max(1, deps.config.egress.length),
        running: stats.running,
        queuedAhead,
        maxRunning: deps.config.maxRunningSearches,
      });
      const estimatedSeconds = calibration.apply(modelSeconds);
      const search: SearchRecord = {
        id: randomUUID(),
        username,
        state: 'queued',
        tier: request.caller.tier,
        client: request.caller.client,
        platformIds: selected.map((p) => p.id),
        estimatedSeconds,
        createdAt: deps.now(),
        ...(request.body.private ? { private: true as const } : {}),
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
      const { search } = snapshot;
      const percent = deps.config.coverageWarningPercent;
      const results = snapshot.outcomes.map((s) => s.outcome);
      let view: Parameters<typeof searchResponse>[0];
      if (all) {
        // Every outcome: the counts come from them, so they agree with the list.
        const progress = { checked: results.length, byStatus: countStatuses(results) };
        view = {
          search,
          total: search.platformIds.length,
          progress,
          results,
          unansweredReasons: unansweredReasons(results),
        };
      } else {
        view = { search, total: search.platformIds.length, progress: snapshot.progress, results };
        // The warning's reasons need the outcomes that did not answer: read only when it shows.
        if (searchCoverage(view, percent).warns) {
          const unanswered = await deps.store.listOutcomes(id, { statuses: ['unknown', 'error'] });
          view = { ...view, unansweredReasons: unansweredReasons(unanswered.map((s) => s.outcome)) };
        }
      }
      const body = searchResponse(view, percent);
      if (search.state !== 'completed' && search.state !== 'error') return body;
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
