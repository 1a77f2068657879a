/**
 * Starting searches, one or many at once (POST /api/search with its lookalike
 * names, POST /api/searches): the platforms each covers, the search limit
 * (all or none: a request that needs more searches than are left starts none),
 * then for each an estimate, the stored record and the queue. Everything that
 * can refuse a request (a name, the platforms, a full queue, the limit) is
 * checked before anything is counted or stored.
 */

import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Category } from '../catalogue/categories.js';
import { lookalikeNames, platformsForVariant, type VariantKind } from '../catalogue/lookalike-names.js';
import type { Platform } from '../catalogue/platform.js';
import { selectPlatforms } from '../catalogue/select.js';
import { originLoads } from '../engine/politeness-bound.js';
import { UserscoutError } from '../errors.js';
import { estimateSeconds } from '../runner/estimate.js';
import { EstimateCalibration } from '../runner/estimate-calibration.js';
import { failSearch } from '../runner/search-job.js';
import type { SearchRecord } from '../store/store.js';
import type { Caller } from './auth.js';
import type { AppDeps } from './deps.js';
import { quotaKey, searchLimitError, searchLimitOf, setSearchLimitHeaders } from './search-quota.js';

export interface PlatformChoice {
  readonly categories?: readonly Category[] | undefined;
  readonly platforms?: readonly string[] | undefined;
  readonly includeNsfw?: boolean | undefined;
}

/** One search to start: a name and the platforms it covers. */
export interface PlannedSearch {
  readonly username: string;
  readonly platforms: readonly Platform[];
}

export interface StartOptions {
  /** Readable only with the key that started them (checked by `checkPrivate` first). */
  readonly private?: boolean | undefined;
  /** Its new names are searched once it completes (src/api/follow-ups.ts); never given to follow-ups. */
  readonly recursive?: boolean | undefined;
}

/** Whose search it is (counted against, readable by), and where its start is logged. */
export interface Originator {
  readonly caller: Pick<Caller, 'tier' | 'client'>;
  readonly log: FastifyRequest['log'];
}

export interface StartedSearch {
  readonly queryId: string;
  readonly status: 'running';
  readonly totalPlatforms: number;
  readonly estimatedTime: number;
}

/** The enabled, healthy platforms the request chose; 400 when none is left. */
export function choosePlatforms(deps: AppDeps, choice: PlatformChoice): Platform[] {
  const selected = selectPlatforms(deps.catalogue, {
    categories: choice.categories,
    platforms: choice.platforms,
    includeNsfw: choice.includeNsfw ?? deps.config.includeNsfw,
    exclude: deps.health.unhealthyIds(),
  });
  if (selected.length === 0)
    throw new UserscoutError('bad_request', 'No enabled platform matches the request');
  return selected;
}

export interface PlannedVariant extends PlannedSearch {
  readonly kind: VariantKind;
}

/**
 * The lookalike names of `username` worth searching, at most
 * `maxVariantsPerRequest`: each on the selected platforms whose rule accepts
 * it. A name no selected platform accepts is listed as not searched (it costs nothing).
 */
export function planVariants(
  deps: Pick<AppDeps, 'config'>,
  username: string,
  selected: readonly Platform[],
): { searched: PlannedVariant[]; skipped: { username: string; kind: VariantKind }[] } {
  const searched: PlannedVariant[] = [];
  const skipped: { username: string; kind: VariantKind }[] = [];
  for (const variant of lookalikeNames(username, deps.config.maxVariantsPerRequest)) {
    const platforms = platformsForVariant(variant, selected);
    if (platforms.length > 0) searched.push({ ...variant, platforms });
    else skipped.push(variant);
  }
  return { searched, skipped };
}

/**
 * Starts every planned search, or none: the queue must have room and the
 * caller's search limit must hold all of them (else 429 with how many are
 * left). Sets the search limit's RateLimit-* headers. A search the queue
 * refuses after the count is given back to the limit, with those after it;
 * searches already started stay started.
 */
export async function startSearches(
  deps: AppDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  plans: readonly PlannedSearch[],
  options: StartOptions = {},
): Promise<StartedSearch[]> {
  const { tier, client } = request.caller;
  await deps.runner.admit(tier);
  const { limit, windowMs } = searchLimitOf(tier, deps.config);
  const key = quotaKey(client);
  const window = await deps.searchQuota.take(key, plans.length, limit, windowMs);
  if (!window.granted) {
    setSearchLimitHeaders(reply, limit, window);
    throw searchLimitError(tier, deps.config, window, plans.length);
  }
  setSearchLimitHeaders(reply, limit, window);
  const started: StartedSearch[] = [];
  try {
    // Only the first (the name asked for) is recursive: lookalike names are not followed up.
    for (const [i, plan] of plans.entries())
      started.push(await startSearch(deps, request, plan, i === 0 ? options : { private: options.private }));
  } catch (error) {
    await deps.searchQuota.release(key, plans.length - started.length).catch(() => {});
    throw error;
  }
  return started;
}

/** The calibration of estimates of one app (shared by every route that starts or reports searches). */
const calibrations = new WeakMap<AppDeps, EstimateCalibration>();
export function calibrationOf(deps: AppDeps): EstimateCalibration {
  let calibration = calibrations.get(deps);
  if (!calibration) {
    calibration = new EstimateCalibration();
    calibrations.set(deps, calibration);
  }
  return calibration;
}

/** Throws 403 private_not_allowed when a private search is asked for without a professional key. */
export function checkPrivate(asked: boolean | undefined, caller: Caller): void {
  if (asked && caller.tier !== 'professional') throw new UserscoutError('private_not_allowed');
}

/** Stores and queues one search, already counted against the search limit. */
export async function startSearch(
  deps: AppDeps,
  request: Originator,
  plan: PlannedSearch,
  options: StartOptions,
): Promise<StartedSearch> {
  const selected = plan.platforms;
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
    origins: originLoads(selected, budget).map((o) => ({ platforms: o.platforms.length, limit: o.limit })),
    identities: Math.max(1, deps.config.egress.length),
    running: stats.running,
    queuedAhead,
    maxRunning: deps.config.maxRunningSearches,
  });
  const estimatedSeconds = calibrationOf(deps).apply(modelSeconds);
  const search: SearchRecord = {
    id: randomUUID(),
    username: plan.username,
    state: 'queued',
    tier: request.caller.tier,
    client: request.caller.client,
    platformIds: selected.map((p) => p.id),
    estimatedSeconds,
    createdAt: deps.now(),
    ...(options.private ? { private: true as const } : {}),
    ...(options.recursive ? { recursive: true as const } : {}),
  };
  await deps.store.createSearch(search);
  try {
    await deps.runner.enqueue(search);
  } catch (error) {
    await failSearch(search.id, 'not queued', deps);
    throw error;
  }
  deps.metrics.searches.inc({ tier: search.tier });
  request.log.info({ queryId: search.id, tier: search.tier, platforms: selected.length }, 'search started');
  return {
    queryId: search.id,
    status: 'running',
    totalPlatforms: selected.length,
    estimatedTime: estimatedSeconds,
  };
}
