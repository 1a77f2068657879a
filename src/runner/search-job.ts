/**
 * Runs one search to its end: checks every platform not yet stored (so a
 * resumed search never checks a platform twice), reuses cached outcomes,
 * stores each outcome as it arrives and publishes it. Also the job's
 * dependencies (`searchJobDeps`) and the one way a search ends in error
 * (`failSearch`). Shared by every runner.
 */
import type { Catalogue, Platform } from '../catalogue/platform.js';
import type { Config } from '../config.js';
import type { Engine } from '../engine/engine.js';
import type { Outcome } from '../engine/outcome.js';
import { isUserscoutError } from '../errors.js';
import { recentLatencies, type SearchRecord, type Store } from '../store/store.js';
import { type CacheTtls, cacheExpiry, cacheTtlsOf } from './cache-policy.js';
import { slowestFirst } from './check-order.js';
import { type EventHub, type ProgressSnapshot, progressSnapshot } from './events.js';

export interface SearchJobDeps {
  readonly engine: Engine;
  readonly store: Store;
  readonly events: EventHub;
  readonly platformsById: ReadonlyMap<string, Platform>;
  readonly cache: CacheTtls;
  /** What a platform never measured counts as when checks are ordered (ms). */
  readonly unmeasuredLatencyMs: number;
  readonly now: () => number;
  /** Called for every stored outcome (metrics). */
  readonly onOutcome?: (outcome: Outcome) => void;
}

export type SearchJobConfig = Pick<
  Config,
  'cacheHitSeconds' | 'cacheMissSeconds' | 'cacheOtherSeconds' | 'unmeasuredLatencyMs'
>;

/** The job's dependencies from the configuration and its collaborators: built here for every runner. */
export function searchJobDeps(
  config: SearchJobConfig,
  parts: {
    readonly engine: Engine;
    readonly store: Store;
    readonly events: EventHub;
    readonly catalogue: Pick<Catalogue, 'platforms'>;
    readonly now: () => number;
    readonly onOutcome?: (outcome: Outcome) => void;
  },
): SearchJobDeps {
  return {
    engine: parts.engine,
    store: parts.store,
    events: parts.events,
    platformsById: new Map(parts.catalogue.platforms.map((p) => [p.id, p])),
    cache: cacheTtlsOf(config),
    unmeasuredLatencyMs: config.unmeasuredLatencyMs,
    now: parts.now,
    ...(parts.onOutcome ? { onOutcome: parts.onOutcome } : {}),
  };
}

/** Priority of a search's checks in the engine: professional searches are served first. */
export const CHECK_PRIORITY = { free: 0, professional: 1 } as const;

export class SearchCancelledError extends Error {
  override readonly name = 'SearchCancelledError';
}

export async function runSearchJob(
  search: SearchRecord,
  deps: SearchJobDeps,
  signal: AbortSignal,
): Promise<void> {
  const { store, events, engine } = deps;
  const done = new Set((await store.listOutcomes(search.id)).map((s) => s.outcome.platformId));
  const initial = await store.progress(search.id);
  let checked = initial.checked;
  const byStatus = { ...initial.byStatus };
  const snapshot = (): ProgressSnapshot => progressSnapshot(search.platformIds.length, { checked, byStatus });

  if (search.state !== 'running')
    await store.updateSearch(search.id, { state: 'running', startedAt: deps.now() });
  events.publish(search.id, { type: 'started', progress: snapshot() });

  const record = async (outcome: Outcome) => {
    const seq = await store.addOutcome(search.id, outcome);
    if (seq === undefined) return; // already stored: never counted twice
    checked++;
    byStatus[outcome.status]++;
    deps.onOutcome?.(outcome);
    events.publish(search.id, { type: 'result', seq, outcome, progress: snapshot() });
  };

  try {
    const pending: Platform[] = [];
    for (const id of search.platformIds) {
      if (done.has(id)) continue;
      const platform = deps.platformsById.get(id);
      // Not in this process's catalogue (a new one since the search began): it cannot be
      // checked, and an outcome could not truly name its category or address, so it has none.
      if (!platform) continue;
      const cached = await store.getCachedOutcome(search.username, id, deps.now());
      if (cached) await record(cached);
      else pending.push(platform);
    }
    // Slowest first: the long waits overlap the short checks instead of coming last.
    const recent = await recentLatencies(store);
    const ordered = slowestFirst(pending, recent, deps.unmeasuredLatencyMs);
    const priority = CHECK_PRIORITY[search.tier];
    for await (const outcome of engine.search(search.username, ordered, signal, { priority })) {
      await record(outcome);
      const now = deps.now();
      if (outcome.status !== 'invalid')
        await store.recordCheck(outcome.platformId, outcome.status, outcome.responseTime, now);
      const expiresAt = cacheExpiry(outcome, now, deps.cache);
      if (expiresAt !== undefined)
        await store.putCachedOutcome(
          search.username,
          { ...outcome, evidence: { ...outcome.evidence, cachedAt: now } },
          expiresAt,
        );
    }
    signal.throwIfAborted();
    await store.updateSearch(search.id, { state: 'completed', finishedAt: deps.now() });
    events.publish(search.id, { type: 'done', state: 'completed', progress: snapshot() });
  } catch (error) {
    // A stop (shutdown, lost worker) leaves the search running: it resumes from what is stored.
    if (signal.aborted)
      throw new SearchCancelledError('search interrupted; it will resume', { cause: error });
    // So does a store that cannot be reached (cluster mode): the runner retries once it is back.
    if (isUserscoutError(error) && error.code === 'store_unavailable') throw error;
    await failSearch(search.id, error instanceof Error ? error.message : String(error), deps);
  }
}

/**
 * Ends a search as an error: stored, then said once to its listeners with the
 * progress it reached. A search already finished (or swept) is left as it is.
 */
export async function failSearch(
  searchId: string,
  message: string,
  deps: Pick<SearchJobDeps, 'store' | 'events' | 'now'>,
): Promise<void> {
  const search = await deps.store.getSearch(searchId);
  if (!search || search.state === 'completed' || search.state === 'error') return;
  await deps.store.updateSearch(searchId, { state: 'error', finishedAt: deps.now(), error: message });
  const progress = await deps.store.progress(searchId);
  deps.events.publish(searchId, {
    type: 'done',
    state: 'error',
    error: message,
    progress: progressSnapshot(search.platformIds.length, progress),
  });
}
