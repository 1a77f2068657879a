/**
 * Watchlists for API-key holders: create, list, read, change and delete them,
 * ask for a run, and read their changes and webhook deliveries (with
 * redelivery). Each key sees only its own; without a key the answer is 401
 * `api_key_required`. Runs themselves happen in the scheduler
 * (src/watchlists/scheduler.ts).
 */

import { randomUUID } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { checkUsername } from '../../catalogue/check-username.js';
import { selectPlatforms } from '../../catalogue/select.js';
import { UserscoutError } from '../../errors.js';
import type {
  DeliveryRecord,
  RunSummary,
  Watchlist,
  WatchlistSpec,
  WatchRun,
} from '../../store/watchlists.js';
import { keyLimitError } from '../../watchlists/key-limits.js';
import { OwnerTurns } from '../../watchlists/owner-turns.js';
import { newWebhookSecret } from '../../watchlists/signature.js';
import { watchedNames } from '../../watchlists/watched-names.js';
import { refusedDestination } from '../../watchlists/webhook-url.js';
import type { AppDeps } from '../deps.js';
import { errorResponses } from '../schemas.js';
import {
  ChangesQuery,
  ChangesResponse,
  CreateWatchlistBody,
  DeliveriesResponse,
  DeliveryParams,
  DeliveryResponse,
  RunResponse,
  UpdateWatchlistBody,
  WatchlistList,
  WatchlistParams,
} from '../watchlist-schemas.js';

const iso = (ms: number) => new Date(ms).toISOString();

function runView(run: WatchRun | RunSummary) {
  return {
    id: run.id,
    startedAt: iso(run.startedAt),
    searches: run.searches,
    skipped: run.skipped,
    ...('finishedAt' in run ? { finishedAt: iso(run.finishedAt), changes: run.changes } : {}),
  };
}

function watchlistView(w: Watchlist, maxVariants: number, withSecret = false) {
  const { spec, state } = w;
  return {
    id: w.id,
    names: [...spec.names],
    ...(spec.categories ? { categories: [...spec.categories] } : {}),
    ...(spec.platforms ? { platforms: [...spec.platforms] } : {}),
    ...(spec.includeNsfw !== undefined ? { includeNsfw: spec.includeNsfw } : {}),
    intervalSeconds: Math.round(spec.intervalMs / 1000),
    ...(spec.webhookUrl ? { webhookUrl: spec.webhookUrl } : {}),
    ...(withSecret ? { webhookSecret: spec.webhookSecret } : {}),
    notify: spec.notify,
    ...(spec.variants ? { variants: true, watchedNames: watchedNames(spec, maxVariants) } : {}),
    createdAt: iso(w.createdAt),
    updatedAt: iso(w.updatedAt),
    nextRunAt: iso(state.nextRunAt),
    runs: state.runs,
    ...(state.run ? { running: runView(state.run) } : {}),
    ...(state.lastRun ? { lastRun: runView(state.lastRun) } : {}),
  };
}

function deliveryView(d: DeliveryRecord) {
  return {
    id: d.id,
    eventId: d.eventId,
    eventType: d.eventType as 'watchlist.changes' | 'watchlist.run',
    url: d.url,
    state: d.state,
    createdAt: iso(d.createdAt),
    ...(d.nextAttemptAt !== undefined && d.state === 'pending'
      ? { nextAttemptAt: iso(d.nextAttemptAt) }
      : {}),
    ...(d.deliveredAt !== undefined ? { deliveredAt: iso(d.deliveredAt) } : {}),
    ...(d.redeliveryOf ? { redeliveryOf: d.redeliveryOf } : {}),
    attempts: d.attempts.map((a) => ({
      at: iso(a.at),
      ...(a.phase !== undefined ? { phase: a.phase } : {}),
      ...(a.status !== undefined ? { status: a.status } : {}),
      ...(a.error !== undefined ? { error: a.error } : {}),
      durationMs: Math.round(a.durationMs),
    })),
    event: JSON.parse(d.body) as unknown,
  };
}

/** The window of the redelivery limit (USERSCOUT_WEBHOOK_REDELIVER_LIMIT is per hour). */
const REDELIVER_WINDOW_MS = 3_600_000;

/** The caller's key as a watchlist owner; a caller without a key is refused. */
function ownerOf(request: FastifyRequest): string {
  if (!request.caller.client.startsWith('key:')) throw new UserscoutError('api_key_required');
  return request.caller.client;
}

export async function watchlistRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const store = deps.store.watchlists;
  const { config } = deps;

  const own = async (request: FastifyRequest, id: string): Promise<Watchlist> => {
    const owner = ownerOf(request);
    const w = await store.getWatchlist(id);
    if (!w || w.owner !== owner) throw new UserscoutError('watchlist_not_found');
    return w;
  };

  /** The spec checked against the settings and the catalogue: one rule for create and update. */
  const checked = async (spec: WatchlistSpec): Promise<WatchlistSpec> => {
    const unique = [...new Set(spec.names)];
    if (unique.length > config.watchlistMaxNames)
      throw new UserscoutError(
        'bad_request',
        `A watchlist holds at most ${config.watchlistMaxNames} names (USERSCOUT_WATCHLIST_MAX_NAMES); received ${unique.length}`,
      );
    for (const name of unique) checkUsername(name, true);
    if (spec.intervalMs < config.watchlistMinIntervalMs)
      throw new UserscoutError(
        'bad_request',
        `intervalSeconds must be at least ${Math.ceil(config.watchlistMinIntervalMs / 1000)} (USERSCOUT_WATCHLIST_MIN_INTERVAL_MS); received ${spec.intervalMs / 1000}`,
      );
    const selected = selectPlatforms(deps.catalogue, {
      categories: spec.categories,
      platforms: spec.platforms,
      includeNsfw: spec.includeNsfw ?? config.includeNsfw,
    });
    if (selected.length === 0)
      throw new UserscoutError('bad_request', 'No enabled platform matches the watchlist');
    if (spec.webhookUrl) {
      const refused = await refusedDestination(spec.webhookUrl, config.webhookAllowPrivate);
      if (refused) throw new UserscoutError('webhook_url_refused', refused);
    }
    return { ...spec, names: unique };
  };

  const turns = new OwnerTurns();
  /** Refuses what would take the key past its watchlists or names (`replacing`: the watchlist changed). Called in the owner's turn. */
  const withinKeyLimits = async (owner: string, spec: WatchlistSpec, replacing?: string): Promise<void> => {
    const error = keyLimitError(await store.listWatchlists(owner), spec, replacing, {
      maxWatchlists: config.watchlistMaxPerKey,
      maxNames: config.watchlistMaxNamesPerKey,
    });
    if (error) throw error;
  };

  const tags = ['watchlists'];
  const security: { [label: string]: string[] }[] = [{ apiKey: [] }, { bearer: [] }];
  const refused = { 401: { $ref: 'Error#' }, ...errorResponses };

  api.post(
    '/api/watchlists',
    {
      schema: {
        tags,
        security,
        summary: 'Create a watchlist',
        operationId: 'createWatchlist',
        description:
          "Watches names: a search per name now and then every intervalSeconds, each counted against the key's search limit; changes against the previous run are kept and sent to webhookUrl, signed. The answer holds webhookSecret, generated when not given: it is not shown again.",
        body: CreateWatchlistBody,
        response: { 201: Type.Ref('Watchlist'), 409: { $ref: 'Error#' }, ...refused },
      },
    },
    async (request, reply) => {
      const owner = ownerOf(request);
      const body = request.body;
      const spec = await checked({
        names: body.names,
        categories: body.categories,
        platforms: body.platforms,
        includeNsfw: body.includeNsfw,
        intervalMs: (body.intervalSeconds ?? Math.ceil(config.watchlistMinIntervalMs / 1000)) * 1000,
        webhookUrl: body.webhookUrl,
        webhookSecret: body.webhookSecret ?? newWebhookSecret(),
        notify: body.notify ?? 'changes',
        variants: body.variants,
      });
      const watchlist = await turns.run(owner, async () => {
        await withinKeyLimits(owner, spec);
        const now = deps.now();
        const created: Watchlist = {
          id: randomUUID(),
          owner,
          createdAt: now,
          updatedAt: now,
          spec: JSON.parse(JSON.stringify(spec)) as WatchlistSpec,
          // The first run is at once: it sets the baseline later runs are compared with.
          state: { nextRunAt: now, runs: 0, baseline: {} },
        };
        await store.createWatchlist(created);
        return created;
      });
      deps.watchlistScheduler?.poke();
      request.log.info({ watchlistId: watchlist.id, names: spec.names.length }, 'watchlist created');
      return reply.code(201).send(watchlistView(watchlist, config.maxVariantsPerRequest, true));
    },
  );

  api.get(
    '/api/watchlists',
    {
      schema: {
        tags,
        security,
        summary: "List the key's watchlists",
        operationId: 'listWatchlists',
        response: { 200: WatchlistList, ...refused },
      },
    },
    async (request) => ({
      watchlists: (await store.listWatchlists(ownerOf(request))).map((w) =>
        watchlistView(w, config.maxVariantsPerRequest),
      ),
    }),
  );

  api.get(
    '/api/watchlists/:id',
    {
      schema: {
        tags,
        security,
        summary: 'Get a watchlist',
        operationId: 'getWatchlist',
        params: WatchlistParams,
        response: { 200: Type.Ref('Watchlist'), 404: { $ref: 'Error#' }, ...refused },
      },
    },
    async (request) => watchlistView(await own(request, request.params.id), config.maxVariantsPerRequest),
  );

  api.patch(
    '/api/watchlists/:id',
    {
      schema: {
        tags,
        security,
        summary: 'Change a watchlist',
        operationId: 'updateWatchlist',
        description:
          'Fields given replace the current ones; null removes categories, platforms or webhookUrl. rotateSecret: true generates a new secret, answered once. The baseline of a name that stays is kept.',
        params: WatchlistParams,
        body: UpdateWatchlistBody,
        response: {
          200: Type.Ref('Watchlist'),
          404: { $ref: 'Error#' },
          409: { $ref: 'Error#' },
          ...refused,
        },
      },
    },
    async (request) => {
      const current = await own(request, request.params.id);
      const b = request.body;
      const newSecret = b.rotateSecret ? newWebhookSecret() : b.webhookSecret;
      const pick = <T>(given: T | null | undefined, kept: T | undefined): T | undefined =>
        given === null ? undefined : (given ?? kept);
      const spec = await checked({
        names: b.names ?? current.spec.names,
        categories: pick(b.categories, current.spec.categories),
        platforms: pick(b.platforms, current.spec.platforms),
        includeNsfw: b.includeNsfw ?? current.spec.includeNsfw,
        intervalMs: b.intervalSeconds !== undefined ? b.intervalSeconds * 1000 : current.spec.intervalMs,
        webhookUrl: pick(b.webhookUrl, current.spec.webhookUrl),
        webhookSecret: newSecret ?? current.spec.webhookSecret,
        notify: b.notify ?? current.spec.notify,
        variants: b.variants ?? current.spec.variants,
      });
      const now = deps.now();
      const stored = JSON.parse(JSON.stringify(spec)) as WatchlistSpec;
      await turns.run(current.owner, async () => {
        await withinKeyLimits(current.owner, spec, current.id);
        if (!(await store.updateWatchlistSpec(current.id, stored, now)))
          throw new UserscoutError('watchlist_not_found');
      });
      return watchlistView(
        { ...current, spec: stored, updatedAt: now },
        config.maxVariantsPerRequest,
        newSecret !== undefined,
      );
    },
  );

  api.delete(
    '/api/watchlists/:id',
    {
      schema: {
        tags,
        security,
        summary: 'Delete a watchlist',
        operationId: 'deleteWatchlist',
        description: 'Deletes it with its changes and deliveries; pending deliveries are not sent.',
        params: WatchlistParams,
        response: { 204: Type.Null({ description: 'Deleted' }), 404: { $ref: 'Error#' }, ...refused },
      },
    },
    async (request, reply) => {
      const w = await own(request, request.params.id);
      await store.deleteWatchlist(w.id);
      return reply.code(204).send(null);
    },
  );

  api.post(
    '/api/watchlists/:id/run',
    {
      schema: {
        tags,
        security,
        summary: 'Run a watchlist now',
        operationId: 'runWatchlist',
        description:
          "Makes the watchlist due now; the next scheduled run then follows intervalSeconds after this one. Each name is a search, counted against the key's limit.",
        params: WatchlistParams,
        response: { 202: RunResponse, 404: { $ref: 'Error#' }, ...refused },
      },
    },
    async (request, reply) => {
      const w = await own(request, request.params.id);
      const status = await store.requestRun(w.id, deps.now());
      if (status === 'not_found') throw new UserscoutError('watchlist_not_found');
      deps.watchlistScheduler?.poke();
      return reply.code(202).send({ status });
    },
  );

  api.get(
    '/api/watchlists/:id/changes',
    {
      schema: {
        tags,
        security,
        summary: 'Changes found by the runs',
        operationId: 'listWatchlistChanges',
        description:
          "Oldest first. new_hit: an account appeared (miss → hit); gone: a hit became a miss; changed: a platform that did not answer in the previous run answered. Non-answers (unknown, error) never count as gone. A name's first run sets its baseline and reports nothing.",
        params: WatchlistParams,
        querystring: ChangesQuery,
        response: { 200: ChangesResponse, 404: { $ref: 'Error#' }, ...refused },
      },
    },
    async (request) => {
      const w = await own(request, request.params.id);
      const limit = Math.min(1000, Math.max(1, Number(request.query.limit ?? 100)));
      const changes = await store.listWatchChanges(w.id, {
        afterSeq: Number(request.query.after ?? 0),
        limit,
      });
      return {
        changes: changes.map((c) => ({
          seq: c.seq,
          runId: c.runId,
          at: iso(c.at),
          username: c.username,
          platform: c.platform,
          platformId: c.platformId,
          url: c.url,
          kind: c.kind,
          from: c.from,
          to: c.to,
        })),
      };
    },
  );

  api.get(
    '/api/watchlists/:id/deliveries',
    {
      schema: {
        tags,
        security,
        summary: 'Webhook delivery log',
        operationId: 'listWatchlistDeliveries',
        description:
          'Newest first, each with every attempt. Failed attempts are retried with exponential backoff for 24 hours (USERSCOUT_WEBHOOK_RETRY_FOR_MS), then the delivery is failed.',
        params: WatchlistParams,
        response: { 200: DeliveriesResponse, 404: { $ref: 'Error#' }, ...refused },
      },
    },
    async (request) => {
      const w = await own(request, request.params.id);
      return { deliveries: (await store.listDeliveries(w.id)).map(deliveryView) };
    },
  );

  api.post(
    '/api/watchlists/:id/deliveries/:deliveryId/redeliver',
    {
      schema: {
        tags,
        security,
        summary: 'Send an event again',
        operationId: 'redeliverWatchlistEvent',
        description:
          "Queues a new delivery of the same event (same eventId, signed anew) to the watchlist's current webhook URL. Counted against the key's redelivery limit (USERSCOUT_WEBHOOK_REDELIVER_LIMIT per hour; 429 rate_limited past it); refused with 409 delivery_limit while the key's stored deliveries (USERSCOUT_WEBHOOK_MAX_STORED_PER_KEY) are all pending.",
        params: DeliveryParams,
        response: {
          202: DeliveryResponse,
          404: { $ref: 'Error#' },
          409: { $ref: 'Error#' },
          ...refused,
        },
      },
    },
    async (request, reply) => {
      const w = await own(request, request.params.id);
      const original = await store.getDelivery(request.params.deliveryId);
      if (!original || original.watchlistId !== w.id) throw new UserscoutError('delivery_not_found');
      if (!w.spec.webhookUrl)
        throw new UserscoutError('bad_request', 'The watchlist has no webhookUrl to deliver to');
      const now = deps.now();
      // Room for one more: the oldest ended deliveries go; pending ones are never dropped.
      const stored = await store.trimDeliveries(w.owner, {
        keep: config.webhookMaxStoredPerKey - 1,
        createdBefore: now - config.webhookRetentionMs,
      });
      if (stored >= config.webhookMaxStoredPerKey)
        throw new UserscoutError(
          'delivery_limit',
          `This API key has ${stored} webhook deliveries pending, as many as it may keep (USERSCOUT_WEBHOOK_MAX_STORED_PER_KEY); wait for them to end`,
          { details: { limit: config.webhookMaxStoredPerKey } },
        );
      const limit = config.webhookRedeliverLimit;
      const window = await deps.searchQuota.take(`redeliver:${w.owner}`, 1, limit, REDELIVER_WINDOW_MS);
      if (!window.granted) {
        const retryAfter = Math.max(1, Math.ceil(window.resetMs / 1000));
        throw new UserscoutError(
          'rate_limited',
          `Redelivery limit reached: ${limit} per hour for this API key (USERSCOUT_WEBHOOK_REDELIVER_LIMIT). Retry in ${retryAfter} seconds.`,
          { details: { retryAfter, limit } },
        );
      }
      const delivery: DeliveryRecord = {
        id: randomUUID(),
        watchlistId: w.id,
        eventId: original.eventId,
        eventType: original.eventType,
        body: original.body,
        url: w.spec.webhookUrl,
        state: 'pending',
        createdAt: now,
        attempts: [],
        nextAttemptAt: now,
        redeliveryOf: original.id,
      };
      await store.createDelivery(delivery);
      deps.watchlistScheduler?.poke();
      return reply.code(202).send(deliveryView(delivery));
    },
  );
}
