/**
 * Starting searches, one or many at once (POST /api/search with its lookalike
 * names, POST /api/searches, a watchlist's run for its owner through
 * `startSearchFor`): the platforms each covers, the search limit
 * (all or none: a request that needs more searches than are left starts none),
 * then for each an estimate, the stored record and the queue. Everything that
 * can refuse a request (a name, the platforms, a full queue, the limit) is
 * checked before anything is counted or stored.
 */

import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Category } from '../catalogue/categories.js';
import { checkUsername } from '../catalogue/check-username.js';
import { lookalikeNames, platformsForVariant, type VariantKind } from '../catalogue/lookalike-names.js';
import type { Platform } from '../catalogue/platform.js';
import { selectPlatforms } from '../catalogue/select.js';
import { browserChecksAtOnce } from '../engine/transport/browser-slots.js';
import { UserscoutError } from '../errors.js';
import { estimateSeconds } from '../runner/estimate.js';
import { EstimateCalibration } from '../runner/estimate-calibration.js';
import { failSearch } from '../runner/search-job.js';
import { originLoads } from '../schedule/politeness-bound.js';
import type { SearchRecord } from '../store/store.js';
import type { Caller } from './auth.js';
import type { AppDeps } from './deps.js';
import { quotaKey, searchLimitError, searchLimitOf, setSearchLimitHeaders } from './search-quota.js';

export interface PlatformChoice {
  readonly categories?: readonly Category[] | undefined;
  readonly platforms?: readonly string[] | undefined;
  readonly tags?: readonly string[] | undefined;
  readonly top?: boolean | undefined;
  readonly includeNsfw?: boolean | undefined;
}

/** One search to start: a name and the platforms it covers. */
export interface PlannedSearch {
  readonly username: string;
  readonly platforms: readonly Platform[];
  /** Its new names are searched once it completes (src/api/follow-ups.ts); never given to follow-ups or lookalike names. */
  readonly recursive?: boolean | undefined;
}

export interface StartOptions {
  /** Readable only with the key that started them (checked by `checkPrivate` first). */
  readonly private?: boolean | undefined;
  /** The id to store it under (a follow-up's, src/api/follow-ups.ts); a new random one otherwise. Taken already: duplicate_id. */
  readonly id?: string | undefined;
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

/** What a start asks for: POST /api/search's body, or a watched name with its watchlist's choices. */
export interface SearchAsk extends PlatformChoice {
  readonly username: string;
  /** Its lookalike names too, each a search of its own. */
  readonly variants?: boolean | undefined;
  readonly private?: boolean | undefined;
  readonly recursive?: boolean | undefined;
}

/** The search asked for, with its lookalike names when they were asked for. */
export interface StartedAsk extends StartedSearch {
  readonly variants?: (StartedSearch & { username: string; kind: VariantKind })[];
  readonly variantsNotSearched?: { username: string; kind: VariantKind }[];
}

/** The enabled, healthy platforms the request chose; 400 when none is left. */
export function choosePlatforms(deps: AppDeps, choice: PlatformChoice): Platform[] {
  const selected = selectPlatforms(deps.catalogue, {
    categories: choice.categories,
    platforms: choice.platforms,
    tags: choice.tags,
    top: choice.top,
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
 * Starts the search `ask` names for `originator`, with its lookalike names when
 * asked: the one way a search is started on someone's behalf, whether by their
 * own request (POST /api/search) or by their watchlist's run. It meets every
 * check and counts against the originator's search limit (see `startSearches`).
 * `reply`, when a request asked: where the search limit's RateLimit-* headers go.
 */
export async function startSearchFor(
  deps: AppDeps,
  originator: Originator,
  ask: SearchAsk,
  reply?: FastifyReply,
): Promise<StartedAsk> {
  const { username, categories, platforms, tags, top, includeNsfw, variants } = ask;
  checkUsername(username);
  checkPrivate(ask.private, originator.caller);
  const selected = choosePlatforms(deps, { categories, platforms, tags, top, includeNsfw });
  const lookalikes = variants ? planVariants(deps, username, selected) : undefined;
  const [main, ...others] = await startSearches(
    deps,
    originator,
    // Only the name asked for is recursive: lookalike names are not followed up.
    [{ username, platforms: selected, recursive: ask.recursive === true }, ...(lookalikes?.searched ?? [])],
    { private: ask.private === true },
    reply,
  );
  if (!lookalikes) return main!;
  return {
    ...main!,
    variants: lookalikes.searched.map((v, i) => ({ username: v.username, kind: v.kind, ...others[i]! })),
    variantsNotSearched: lookalikes.skipped,
  };
}

/**
 * Starts every planned search, or none: the queue must have room and the
 * originator's search limit must hold all of them (else 429 with how many are
 * left). Sets the search limit's RateLimit-* headers on `reply` when given. A
 * search the queue refuses after the count is given back to the limit, with
 * those after it; searches already started stay started.
 */
export async function startSearches(
  deps: AppDeps,
  originator: Originator,
  plans: readonly PlannedSearch[],
  options: StartOptions = {},
  reply?: FastifyReply,
): Promise<StartedSearch[]> {
  const { tier, client } = originator.caller;
  await deps.runner.admit(tier);
  const { limit, windowMs } = searchLimitOf(tier, deps.config);
  const key = quotaKey(client);
  const window = await deps.searchQuota.take(key, plans.length, limit, windowMs);
  if (reply) setSearchLimitHeaders(reply, limit, window);
  if (!window.granted) throw searchLimitError(tier, deps.config, window, plans.length);
  const started: StartedSearch[] = [];
  try {
    for (const plan of plans) started.push(await startSearch(deps, originator, plan, options));
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

/** Whether the caller may start private searches: professional keys only. */
export function mayStartPrivate(caller: Pick<Caller, 'tier'>): boolean {
  return caller.tier === 'professional';
}

/** Throws 403 private_not_allowed when a private search is asked for without a professional key. */
export function checkPrivate(asked: boolean | undefined, caller: Pick<Caller, 'tier'>): void {
  if (asked && !mayStartPrivate(caller)) throw new UserscoutError('private_not_allowed');
}

/** The error of a search stored and then refused by the runner's queue: it never ran. */
export const NOT_QUEUED = 'not queued';

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
  const latenciesMs = selected.map((p) => latencies.get(p.id));
  const modelSeconds = estimateSeconds({
    latenciesMs,
    defaultLatencyMs: deps.config.unmeasuredLatencyMs,
    timeoutMs: deps.config.timeoutMs,
    concurrency: deps.config.concurrency,
    origins: originLoads(selected, budget).map((o) => ({
      platforms: o.platforms.length,
      limit: o.limit,
      unsent: deps.unsentAt?.(o.origin),
    })),
    identities: Math.max(1, deps.config.egress.length),
    running: stats.running,
    queuedAhead,
    maxRunning: deps.config.maxRunningSearches,
    browser: {
      latenciesMs: selected.filter((p) => p.transport === 'browser').map((p) => latencies.get(p.id)),
      slots: browserChecksAtOnce(deps.config, deps.config.redisUrl !== ''),
    },
  });
  const calibration = calibrationOf(deps);
  const estimatedSeconds = calibration.apply(modelSeconds);
  const id = options.id ?? randomUUID();
  calibration.estimated(id, latenciesMs.length, latenciesMs.filter((l) => l === undefined).length);
  const search: SearchRecord = {
    id,
    username: plan.username,
    state: 'queued',
    tier: request.caller.tier,
    client: request.caller.client,
    platformIds: selected.map((p) => p.id),
    estimatedSeconds,
    createdAt: deps.now(),
    ...(options.private ? { private: true as const } : {}),
    ...(plan.recursive ? { recursive: true as const } : {}),
  };
  await deps.store.createSearch(search);
  try {
    await deps.runner.enqueue(search);
  } catch (error) {
    await failSearch(search.id, NOT_QUEUED, deps);
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
