/**
 * Runs one search to its end: checks every platform not yet stored (so a
 * resumed search never checks a platform twice), reuses cached outcomes,
 * stores outcomes as they arrive and publishes each one once stored. Also the
 * job's dependencies (`searchJobDeps`) and the one way a search ends in error
 * (`failSearch`). Shared by every runner.
 *
 * Outcomes are stored in batches (`OutcomeBatcher`): those that arrive within
 * `OUTCOME_FLUSH_MS`, or `OUTCOME_BATCH_MAX` of them, go to the store in one
 * write, and each is published with its seq once that write is done. The
 * batch is always written before the search ends, fails or stops. A crash
 * loses at most the unwritten batch, never counted anywhere: the search
 * resumes from what is stored and checks those platforms again.
 */
import type { Catalogue, Platform } from '../catalogue/platform.js';
import type { Config } from '../config.js';
import { type ControlRecord, judgeHit } from '../engine/control.js';
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

/** How long an outcome may wait for others to be stored with it, ms (a store write per batch, not per outcome). */
export const OUTCOME_FLUSH_MS = 25;
/** Outcomes written at once at most: a batch this long is written without waiting. */
export const OUTCOME_BATCH_MAX = 64;

/**
 * Gathers a search's outcomes and writes them with `addOutcomes`, one batch
 * at a time in arrival order; `stored` is called for each with its seq (or
 * undefined: stored already). A failed write is thrown by the next `add` or
 * by `drain`, and nothing after it is written.
 */
export class OutcomeBatcher {
  readonly #write: (outcomes: readonly Outcome[]) => Promise<(number | undefined)[]>;
  readonly #stored: (outcome: Outcome, seq: number | undefined) => void;
  #buffer: Outcome[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #writing: Promise<void> = Promise.resolve();
  #failed: { error: unknown } | undefined;

  constructor(
    write: (outcomes: readonly Outcome[]) => Promise<(number | undefined)[]>,
    stored: (outcome: Outcome, seq: number | undefined) => void,
  ) {
    this.#write = write;
    this.#stored = stored;
  }

  add(outcome: Outcome): void {
    if (this.#failed) throw this.#failed.error;
    this.#buffer.push(outcome);
    if (this.#buffer.length >= OUTCOME_BATCH_MAX) this.#flush();
    else this.#timer ??= setTimeout(() => this.#flush(), OUTCOME_FLUSH_MS);
  }

  /** Writes what is gathered and waits for every write; throws the first failure. */
  async drain(): Promise<void> {
    this.#flush();
    await this.#writing;
    if (this.#failed) throw this.#failed.error;
  }

  #flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#buffer.length === 0) return;
    const batch = this.#buffer;
    this.#buffer = [];
    this.#writing = this.#writing.then(async () => {
      if (this.#failed) return;
      try {
        const seqs = await this.#write(batch);
        for (const [i, outcome] of batch.entries()) this.#stored(outcome, seqs[i]);
      } catch (error) {
        this.#failed = { error };
      }
    });
  }
}

export async function runSearchJob(
  search: SearchRecord,
  deps: SearchJobDeps,
  signal: AbortSignal,
): Promise<void> {
  const { store, events, engine } = deps;
  // Ended meanwhile (cancelled while it waited): it stays as it was ended.
  if (await hasEnded(store, search.id)) return;
  const done = new Set((await store.listOutcomes(search.id)).map((s) => s.outcome.platformId));
  const initial = await store.progress(search.id);
  let checked = initial.checked;
  const byStatus = { ...initial.byStatus };
  const snapshot = (): ProgressSnapshot => progressSnapshot(search.platformIds.length, { checked, byStatus });

  if (search.state !== 'running')
    await store.updateSearch(search.id, { state: 'running', startedAt: deps.now() });
  events.publish(search.id, { type: 'started', progress: snapshot() });

  const outcomes = new OutcomeBatcher(
    (batch) => store.addOutcomes(search.id, batch),
    (outcome, seq) => {
      if (seq === undefined) return; // already stored: never counted twice
      checked++;
      byStatus[outcome.status]++;
      deps.onOutcome?.(outcome);
      events.publish(search.id, { type: 'result', seq, outcome, progress: snapshot() });
    },
  );
  const record = (outcome: Outcome) => outcomes.add(outcome);

  try {
    const pending: Platform[] = [];
    // A cached hit found before its platform's rule drifted is not passed on as a hit.
    let controls: Promise<ReadonlyMap<string, ControlRecord>> | undefined;
    const drifted = async (hit: Outcome): Promise<Outcome> => {
      controls ??= store.listControls().then(driftedControls);
      return judgeHit(hit, undefined, (await controls).get(hit.platformId));
    };
    for (const id of search.platformIds) {
      if (done.has(id)) continue;
      const platform = deps.platformsById.get(id);
      // Not in this process's catalogue (a new one since the search began): it cannot be
      // checked, and an outcome could not truly name its category or address, so it has none.
      if (!platform) continue;
      const cached = await store.getCachedOutcome(search.username, id, deps.now());
      if (cached) record(cached.status === 'hit' ? await drifted(cached) : cached);
      else pending.push(platform);
    }
    // Slowest first: the long waits overlap the short checks instead of coming last.
    const recent = await recentLatencies(store);
    const ordered = slowestFirst(pending, recent, deps.unmeasuredLatencyMs);
    const priority = CHECK_PRIORITY[search.tier];
    for await (const outcome of engine.search(search.username, ordered, signal, { priority })) {
      record(outcome);
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
    await outcomes.drain();
    signal.throwIfAborted();
    // Cancelled while its last checks ran: it stays cancelled.
    if (await hasEnded(store, search.id)) return;
    await store.updateSearch(search.id, { state: 'completed', finishedAt: deps.now() });
    events.publish(search.id, { type: 'done', state: 'completed', progress: snapshot() });
  } catch (error) {
    // What was gathered is kept whatever ended the search (a failed write is already `error`).
    await outcomes.drain().catch(() => {});
    // A stop (shutdown, lost worker) leaves the search running: it resumes from what is stored.
    if (signal.aborted)
      throw new SearchCancelledError('search interrupted; it will resume', { cause: error });
    // So does a store that cannot be reached (cluster mode): the runner retries once it is back.
    if (isUserscoutError(error) && error.code === 'store_unavailable') throw error;
    await failSearch(search.id, error instanceof Error ? error.message : String(error), deps);
  }
}

/** The drifted control of each platform (any egress identity), by platform id. */
function driftedControls(records: readonly ControlRecord[]): ReadonlyMap<string, ControlRecord> {
  return new Map(records.filter((r) => r.drift).map((r) => [r.platformId, r]));
}

/** Whether the search is completed, failed or cancelled (or gone). */
async function hasEnded(store: Store, id: string): Promise<boolean> {
  const current = await store.getSearch(id);
  return !current || current.state === 'completed' || current.state === 'error';
}

/** The error text of a search cancelled by its owner (DELETE /api/search/{id}). */
export const CANCELLED = 'cancelled';

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
