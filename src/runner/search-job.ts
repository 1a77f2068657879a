/**
 * Runs one search to its end: checks every platform not yet stored (so a
 * resumed search never checks a platform twice), reuses cached outcomes,
 * stores outcomes as they arrive and publishes each one once stored; each is
 * counted (outcome-tally.ts) as it is handed to be stored. Also the
 * job's dependencies (`searchJobDeps`) and the one way a search ends in error
 * (`failSearch`). Shared by every runner.
 *
 * Outcomes are stored in batches (`OutcomeBatcher`): those that arrive within
 * `OUTCOME_FLUSH_MS`, or `OUTCOME_BATCH_MAX` of them, go to the store in one
 * write, and each is published with its seq once that write is done. The
 * checks made since the last batch are noted beside it (platform statistics,
 * the outcome cache: `noteChecks`), never one store round trip per check in
 * the loop over the engine's results. The batch is always written before the
 * search ends, fails or stops. A crash loses at most the unwritten batch,
 * never counted anywhere: the search resumes from what is stored and checks
 * those platforms again.
 *
 * A platform that had not answered (error, unknown) and that a hit's profile
 * links to (its profile of the searched name) is checked once more, whichever
 * came first (linked-recheck.ts): before its outcome is stored when the link
 * came first, else once the link is seen, the later answer then replacing the
 * stored one (`Store.replaceOutcome`: a new seq, published as a `result`; the
 * progress moves one count from the old status to the new). A resumed search
 * does the same for outcomes stored by its earlier run. Each platform is
 * checked again at most once; a check that fails in the engine leaves the
 * first answer; a stop aborts these checks with the others.
 */
import type { Catalogue, Platform } from '../catalogue/platform.js';
import type { Config } from '../config.js';
import { type ControlRecord, judgeHit } from '../engine/controls/control.js';
import type { Engine } from '../engine/engine.js';
import { ProfileUrlMatcher } from '../engine/verdict/linked-accounts.js';
import type { Outcome } from '../engine/verdict/outcome.js';
import { isUserscoutError } from '../errors.js';
import { recentLatenciesReader } from '../store/recent-latencies.js';
import type { CoordinationStore } from '../store/roles/coordination-store.js';
import type { CacheEntry, OutcomeCache } from '../store/roles/outcome-cache.js';
import { isFinished, type SearchRecord, type SearchStore } from '../store/roles/search-store.js';
import type { CheckStat, StatsStore } from '../store/roles/stats-store.js';
import { OUTCOME_BATCH_MAX, OUTCOME_FLUSH_MS } from '../tuning.js';
import { type CacheTtls, cacheExpiry, cacheTtlsOf, sharesOutcomeCache } from './cache-policy.js';
import { expectedAnswerMs, slowestFirst } from './check-order.js';
import { type EventHub, type ProgressSnapshot, progressSnapshot } from './events.js';
import { LinkedRechecks } from './linked-recheck.js';
import type { OutcomeTally } from './outcome-tally.js';

/** The roles of the store a search job plays on: its search, the cache, statistics, controls. */
export type SearchJobStore = SearchStore & OutcomeCache & StatsStore & CoordinationStore;

export interface SearchJobDeps {
  readonly engine: Engine;
  readonly store: SearchJobStore;
  readonly events: EventHub;
  readonly platformsById: ReadonlyMap<string, Platform>;
  readonly cache: CacheTtls;
  /** Each measured platform's recent latency (`recentLatencies`), by which a search's checks are ordered. */
  readonly latencies: () => Promise<ReadonlyMap<string, number>>;
  /** What a platform never measured counts as when checks are ordered (ms). */
  readonly unmeasuredLatencyMs: number;
  readonly now: () => number;
  /** Where each outcome is counted (metrics), before it is stored: the process's, shared with its search threads. */
  readonly tally?: OutcomeTally;
  /** A platform statistic or cache entry that could not be written (the search goes on): logged. */
  readonly onNoteFailed?: (error: unknown, outcome: Outcome) => void;
  /** Profile URLs of the catalogue; without it, no platform is checked again for a link to it. */
  readonly linkMatcher?: ProfileUrlMatcher;
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
    readonly store: SearchJobStore;
    readonly events: EventHub;
    readonly catalogue: Pick<Catalogue, 'platforms'>;
    readonly now: () => number;
    readonly tally?: OutcomeTally;
    readonly onNoteFailed?: (error: unknown, outcome: Outcome) => void;
    /** The recent latencies to order checks by, when this thread already reads them (the API's estimates). */
    readonly latencies?: () => Promise<ReadonlyMap<string, number>>;
  },
): SearchJobDeps {
  return {
    engine: parts.engine,
    store: parts.store,
    events: parts.events,
    platformsById: new Map(parts.catalogue.platforms.map((p) => [p.id, p])),
    cache: cacheTtlsOf(config),
    latencies: parts.latencies ?? recentLatenciesReader(parts.store),
    unmeasuredLatencyMs: config.unmeasuredLatencyMs,
    now: parts.now,
    linkMatcher: new ProfileUrlMatcher(parts.catalogue.platforms),
    ...(parts.tally ? { tally: parts.tally } : {}),
    ...(parts.onNoteFailed ? { onNoteFailed: parts.onNoteFailed } : {}),
  };
}

/** Priority of a search's checks in the engine: professional searches are served first. */
export const CHECK_PRIORITY = { free: 0, professional: 1 } as const;

export class SearchCancelledError extends Error {
  override readonly name = 'SearchCancelledError';
}

/** A check the engine made, and when: noted in the platform's statistics and the outcome cache. */
export interface CheckMade {
  readonly outcome: Outcome;
  readonly at: number;
}

/** The writes an `OutcomeBatcher` makes. */
export interface OutcomeWrites {
  /** Stores a batch: each outcome's seq, or undefined (stored already). */
  readonly add: (outcomes: readonly Outcome[]) => Promise<(number | undefined)[]>;
  /** Stores a later answer in place of its platform's outcome: its new seq, or undefined (none stored). */
  readonly replace: (outcome: Outcome) => Promise<number | undefined>;
  /** Notes the checks made since the last batch, written beside it. */
  readonly note: (checks: readonly CheckMade[]) => Promise<void>;
}

/** What an `OutcomeBatcher` reports once a write is done, in the order of the writes. */
export interface OutcomeReports {
  /** An outcome added, with its seq (undefined: stored already). */
  readonly stored: (outcome: Outcome, seq: number | undefined) => void;
  /** A later answer stored in place of `first`, with its new seq. */
  readonly replaced: (first: Outcome, again: Outcome, seq: number) => void;
}

/**
 * Gathers a search's outcomes and the checks made, and writes them one batch
 * at a time in arrival order: outcomes with `add`, checks with `note` beside
 * them (so the search never waits for a store round trip per check). A
 * replacement is written after everything added before it. Each write is
 * reported once done, in order, so seqs are published ascending. A failed
 * write is thrown by the next `add`, `replace` or by `drain`, and nothing
 * after it is written.
 */
export class OutcomeBatcher {
  readonly #writes: OutcomeWrites;
  readonly #reports: OutcomeReports;
  #buffer: Outcome[] = [];
  #checks: CheckMade[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #writing: Promise<void> = Promise.resolve();
  /** Writes chained and not done yet. */
  #outstanding = 0;
  #failed: { error: unknown } | undefined;

  constructor(writes: OutcomeWrites, reports: OutcomeReports) {
    this.#writes = writes;
    this.#reports = reports;
  }

  add(outcome: Outcome): void {
    if (this.#failed) throw this.#failed.error;
    this.#buffer.push(outcome);
    this.#soon();
  }

  /** A check made: noted with the next batch. */
  note(check: CheckMade): void {
    this.#checks.push(check);
    this.#soon();
  }

  /** Replaces the stored `first` with a later answer, once everything added before is written. */
  replace(first: Outcome, again: Outcome): void {
    if (this.#failed) throw this.#failed.error;
    this.#flush();
    this.#chain(async () => {
      const seq = await this.#writes.replace(again);
      if (seq !== undefined) this.#reports.replaced(first, again, seq);
    });
  }

  /** Whether anything is gathered or being written (what `drain` would wait for, or more since). */
  get busy(): boolean {
    return this.#buffer.length > 0 || this.#checks.length > 0 || this.#outstanding > 0;
  }

  /** Writes what is gathered and waits for every write; throws the first failure. */
  async drain(): Promise<void> {
    this.#flush();
    await this.#writing;
    if (this.#failed) throw this.#failed.error;
  }

  #soon(): void {
    // Each on its own: a check noted comes with nearly every outcome, and is not half a batch.
    if (Math.max(this.#buffer.length, this.#checks.length) >= OUTCOME_BATCH_MAX) this.#flush();
    else this.#timer ??= setTimeout(() => this.#flush(), OUTCOME_FLUSH_MS);
  }

  #flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#buffer.length === 0 && this.#checks.length === 0) return;
    const batch = this.#buffer;
    const checks = this.#checks;
    this.#buffer = [];
    this.#checks = [];
    this.#chain(async () => {
      const [added, noted] = await Promise.allSettled([
        batch.length > 0 ? this.#writes.add(batch) : [],
        checks.length > 0 ? this.#writes.note(checks) : undefined,
      ]);
      if (added.status === 'fulfilled')
        for (const [i, outcome] of batch.entries()) this.#reports.stored(outcome, added.value[i]);
      if (added.status === 'rejected') throw added.reason;
      if (noted.status === 'rejected') throw noted.reason;
    });
  }

  /** Runs `write` after the writes before it, unless one failed; a failure stops every later write. */
  #chain(write: () => Promise<void>): void {
    this.#outstanding++;
    this.#writing = this.#writing.then(async () => {
      try {
        if (!this.#failed) await write();
      } catch (error) {
        this.#failed = { error };
      } finally {
        this.#outstanding--;
      }
    });
  }
}

/**
 * Notes the checks the engine made: their platforms' statistics, and the outcome cache while
 * each is fresh, one store write for each (a transaction in SQLite, not one per check). Both
 * are aids (a lost one costs a check later, never a result), so a write that fails does not
 * end the search, and each check it held is reported; a store that cannot be reached does
 * stop it, to resume.
 */
async function noteChecks(
  checks: readonly CheckMade[],
  search: Pick<SearchRecord, 'id' | 'username'>,
  deps: Pick<SearchJobDeps, 'store' | 'cache' | 'onNoteFailed'>,
  intoCache: boolean,
): Promise<void> {
  const stats: CheckStat[] = [];
  const cached: CacheEntry[] = [];
  const statOutcomes: Outcome[] = [];
  const cachedOutcomes: Outcome[] = [];
  for (const { outcome, at } of checks) {
    if (outcome.status !== 'invalid') {
      stats.push({
        platformId: outcome.platformId,
        status: outcome.status,
        responseTimeMs: outcome.responseTime,
        at,
      });
      statOutcomes.push(outcome);
    }
    const expiresAt = intoCache ? cacheExpiry(outcome, at, deps.cache) : undefined;
    if (expiresAt !== undefined) {
      cached.push({ searchId: search.id, platformId: outcome.platformId, cachedAt: at, expiresAt });
      cachedOutcomes.push(outcome);
    }
  }
  // Each write on its own: a failed statistic does not cost the cache entry, nor the reverse.
  const attempt = async (outcomes: readonly Outcome[], write: () => Promise<void>) => {
    if (outcomes.length === 0) return;
    try {
      await write();
    } catch (error) {
      if (isUserscoutError(error) && error.code === 'store_unavailable') throw error;
      for (const outcome of outcomes) deps.onNoteFailed?.(error, outcome);
    }
  };
  await attempt(statOutcomes, () => deps.store.recordChecks(stats));
  await attempt(cachedOutcomes, () => deps.store.putCachedOutcomes(search.username, cached));
}

export async function runSearchJob(
  search: SearchRecord,
  deps: SearchJobDeps,
  signal: AbortSignal,
): Promise<void> {
  const { store, events, engine } = deps;
  // Ended meanwhile (cancelled while it waited): it stays as it was ended.
  if (await hasEnded(store, search.id)) return;
  const stored = (await store.listOutcomes(search.id)).map((s) => s.outcome);
  const done = new Set(stored.map((o) => o.platformId));
  const initial = await store.progress(search.id);
  let checked = initial.checked;
  const byStatus = { ...initial.byStatus };
  const snapshot = (): ProgressSnapshot => progressSnapshot(search.platformIds.length, { checked, byStatus });

  if (search.state !== 'running')
    await store.updateSearch(search.id, { state: 'running', startedAt: deps.now() });
  events.publish(search.id, { type: 'started', progress: snapshot() });

  const rechecks = new LinkedRechecks(deps.linkMatcher, search.username);
  const outcomes = new OutcomeBatcher(
    {
      add: (batch) => store.addOutcomes(search.id, batch),
      replace: (outcome) => store.replaceOutcome(search.id, outcome),
      note: (checks) => noteChecks(checks, search, deps, sharesOutcomeCache(search)),
    },
    {
      stored: (outcome, seq) => {
        if (seq === undefined) return; // already stored: never counted twice in its progress
        checked++;
        byStatus[outcome.status]++;
        events.publish(search.id, { type: 'result', seq, outcome, progress: snapshot() });
        if (rechecks.stored(outcome)) recheck(outcome, true);
      },
      replaced: (first, again, seq) => {
        byStatus[first.status]--;
        byStatus[again.status]++;
        events.publish(search.id, { type: 'result', seq, outcome: again, progress: snapshot() });
      },
    },
  );
  // Counted once handed to be stored, not once stored: a search read completed is in /metrics
  // already (the tally is memory the API's thread reads, no message behind the store's write).
  // A hand-off refused (an earlier write failed) counts nothing.
  const keep = (outcome: Outcome) => {
    outcomes.add(outcome);
    deps.tally?.add(outcome);
  };
  const keepInstead = (first: Outcome, again: Outcome) => {
    outcomes.replace(first, again);
    deps.tally?.add(again);
  };
  const priority = CHECK_PRIORITY[search.tier];
  const checkMade = (outcome: Outcome) => outcomes.note({ outcome, at: deps.now() });
  /** Checks in flight for a link (linked-recheck.ts); none starts once the search is ending. */
  const inFlight = new Set<Promise<void>>();
  let ending = false;
  /** Checks `first`'s platform once more; the later answer is stored, or replaces `first` when it `wasStored`. */
  const recheck = (first: Outcome, wasStored: boolean): void => {
    const platform = deps.platformsById.get(first.platformId);
    if (ending || !platform) {
      if (!wasStored) keep(first);
      return;
    }
    const check = engine.check(platform, search.username, signal, priority).then(
      (again) => {
        checkMade(again);
        const { owed } = rechecks.arriving(again);
        if (wasStored) keepInstead(first, again);
        else keep(again);
        for (const o of owed) recheck(o, true);
      },
      (error: unknown) => {
        if (signal.aborted) throw error;
        if (!wasStored) keep(first); // the engine failed: the first answer stands
      },
    );
    inFlight.add(check);
    // Awaited below; this handler also keeps a rejection from going unhandled meanwhile.
    const settled = () => inFlight.delete(check);
    check.then(settled, settled);
  };
  /** Stores an outcome, or checks it once more first; checks again the stored ones its links vouch for. */
  const settle = (outcome: Outcome) => {
    const { checkFirst, owed } = rechecks.arriving(outcome);
    if (checkFirst) recheck(outcome, false);
    else keep(outcome);
    for (const o of owed) recheck(o, true);
  };

  try {
    for (const first of rechecks.resume(stored)) recheck(first, true);
    const pending: Platform[] = [];
    // A cached hit found before its platform's rule drifted is not passed on as a hit.
    let controls: Promise<ReadonlyMap<string, ControlRecord>> | undefined;
    const drifted = async (hit: Outcome): Promise<Outcome> => {
      controls ??= store.listControls().then(driftedControls);
      return judgeHit(hit, undefined, (await controls).get(hit.platformId));
    };
    // Not in this process's catalogue (a new one since the search began): it cannot be
    // checked, and an outcome could not truly name its category or address, so it has none.
    const toCheck = search.platformIds.flatMap((id) => {
      const platform = done.has(id) ? undefined : deps.platformsById.get(id);
      return platform ? [platform] : [];
    });
    // One read for the search's cached outcomes, not one per platform.
    const cachedOutcomes = sharesOutcomeCache(search)
      ? await store.getCachedOutcomes(
          search.username,
          toCheck.map((p) => p.id),
          deps.now(),
        )
      : new Map<string, Outcome>();
    for (const platform of toCheck) {
      const cached = cachedOutcomes.get(platform.id);
      if (cached) settle(cached.status === 'hit' ? await drifted(cached) : cached);
      else pending.push(platform);
    }
    // Slowest first: the long waits overlap the short checks instead of coming last.
    const recent = await deps.latencies();
    const ordered = slowestFirst(pending, recent, deps.unmeasuredLatencyMs);
    const expectedMs = expectedAnswerMs(recent, deps.unmeasuredLatencyMs);
    for await (const outcome of engine.search(search.username, ordered, signal, { priority, expectedMs })) {
      checkMade(outcome);
      settle(outcome);
    }
    // A later answer may link to more, a write may show a link came first, and a check again
    // ends in a write: until no check and no write is left (each platform is checked again once at most).
    do {
      await Promise.all(inFlight);
      await outcomes.drain();
    } while (inFlight.size > 0 || outcomes.busy);
    signal.throwIfAborted();
    // Cancelled while its last checks ran: it stays cancelled.
    if (await hasEnded(store, search.id)) return;
    await store.updateSearch(search.id, { state: 'completed', finishedAt: deps.now() });
    events.publish(search.id, { type: 'done', state: 'completed', progress: snapshot() });
  } catch (error) {
    // What was gathered is kept whatever ended the search (a failed write is already `error`).
    ending = true;
    await Promise.allSettled(inFlight);
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
export async function hasEnded(store: SearchStore, id: string): Promise<boolean> {
  const current = await store.getSearch(id);
  return !current || isFinished(current.state);
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
  if (!search || isFinished(search.state)) return;
  await deps.store.updateSearch(searchId, { state: 'error', finishedAt: deps.now(), error: message });
  const progress = await deps.store.progress(searchId);
  deps.events.publish(searchId, {
    type: 'done',
    state: 'error',
    error: message,
    progress: progressSnapshot(search.platformIds.length, progress),
  });
}
