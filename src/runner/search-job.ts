/**
 * Runs one search to its end: checks every platform not yet stored (so a
 * resumed search never checks a platform twice), reuses cached outcomes,
 * stores each outcome as it arrives and publishes it. Shared by every runner.
 */
import type { Platform } from '../catalogue/platform.js';
import type { Engine } from '../engine/engine.js';
import type { Outcome } from '../engine/outcome.js';
import { isUserscoutError } from '../errors.js';
import type { SearchRecord, Store } from '../store/store.js';
import { type CacheTtls, cacheExpiry } from './cache-policy.js';
import { slowestFirst } from './check-order.js';
import type { EventHub, ProgressSnapshot } from './events.js';

export interface SearchJobDeps {
  readonly engine: Engine;
  readonly store: Store;
  readonly events: EventHub;
  readonly platformsById: ReadonlyMap<string, Platform>;
  readonly cache: CacheTtls;
  readonly now: () => number;
  /** Called for every stored outcome (metrics). */
  readonly onOutcome?: (outcome: Outcome) => void;
}

/** What a platform never measured counts as when checks are ordered (ms): about a typical page. */
const UNMEASURED_LATENCY_MS = 1_000;

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
  const total = search.platformIds.length;
  const done = new Set((await store.listOutcomes(search.id)).map((s) => s.outcome.platformId));
  const initial = await store.progress(search.id);
  let checked = initial.checked;
  let hits = initial.hits;
  const snapshot = (): ProgressSnapshot => ({ checked, total, hits });

  if (search.state !== 'running')
    await store.updateSearch(search.id, { state: 'running', startedAt: deps.now() });
  events.publish(search.id, { type: 'started', progress: snapshot() });

  const record = async (outcome: Outcome) => {
    const seq = await store.addOutcome(search.id, outcome);
    if (seq === undefined) return; // already stored: never counted twice
    checked++;
    if (outcome.status === 'hit') hits++;
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
    const recent = new Map((await store.platformStats()).map((s) => [s.platformId, s.recentMs]));
    const ordered = slowestFirst(pending, recent, UNMEASURED_LATENCY_MS);
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
    await failSearch(search, error instanceof Error ? error.message : String(error), deps);
  }
}

/** Ends a search as an error: stored, then said once to its listeners with the progress it reached. */
export async function failSearch(
  search: SearchRecord,
  message: string,
  deps: Pick<SearchJobDeps, 'store' | 'events' | 'now'>,
): Promise<void> {
  const progress = await deps.store.progress(search.id);
  await deps.store.updateSearch(search.id, { state: 'error', finishedAt: deps.now(), error: message });
  deps.events.publish(search.id, {
    type: 'done',
    state: 'error',
    error: message,
    progress: { checked: progress.checked, total: search.platformIds.length, hits: progress.hits },
  });
}
