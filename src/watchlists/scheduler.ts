/**
 * Runs watchlists when they are due and delivers their webhooks, from the
 * store: every due run and pending delivery is claimed under a lease
 * (src/store/watchlists.ts), so with any number of processes each is done
 * once, and work left by a process that died is taken up when its lease ends.
 *
 * A run is advanced a step per claim: it starts the searches not started yet
 * (one ordinary search per name, through `startSearch`, which counts it
 * against the owner's limit), then, once every search has finished, compares
 * the outcomes with the baseline and stores the changes and the webhook
 * delivery together with the next due time.
 *
 * Deliveries are claimed fairly across keys: each claim first skips the keys
 * with the most attempts in flight here, and no key has more than
 * `maxDeliveriesPerKey` in flight, so a receiver that answers slowly (or never)
 * holds its own key's slots, not the others'. Each attempt is recorded before
 * it is sent (delivery-policy.ts says what a crash then leaves).
 */

import { randomUUID } from 'node:crypto';
import type { Outcome } from '../engine/verdict/outcome.js';
import type { SearchStore } from '../store/roles/search-store.js';
import type {
  DeliveryRecord,
  Leased,
  LeasedDelivery,
  RunSummary,
  Watchlist,
  WatchlistState,
  WatchlistStore,
  WatchRun,
} from '../store/watchlists.js';
import { compareRun } from './compare-run.js';
import { afterAttempt, type RetryPolicy, resumeDelivery, startAttempt } from './delivery-policy.js';
import { sendWebhook } from './send-webhook.js';
import { nextRunAt, watchEventOf } from './watch-event.js';
import { watchedNames } from './watched-names.js';
import type { Resolve } from './webhook-url.js';

/** What starting one search for a watchlist gave: its id, or why it was not started. */
export type StartedSearch = { readonly queryId: string } | { readonly skipped: string };

export type StartSearch = (watchlist: Watchlist, username: string) => Promise<StartedSearch>;

export interface SchedulerOptions {
  readonly store: Pick<SearchStore, 'getSearch' | 'listOutcomes'> & { readonly watchlists: WatchlistStore };
  readonly startSearch: StartSearch;
  readonly now: () => number;
  /** How often the store is asked for due work, ms. */
  readonly tickMs: number;
  /** How long a claimed run step may take before another process may take it, ms. */
  readonly leaseMs: number;
  /** A run whose searches have not all finished after this long ends without them, ms. */
  readonly maxRunMs: number;
  /** Lookalike names per name of a watchlist with `variants` (USERSCOUT_MAX_VARIANTS). @default 0 */
  readonly maxVariants?: number;
  readonly retry: RetryPolicy;
  readonly webhookTimeoutMs: number;
  readonly allowPrivate: boolean;
  /** Webhook deliveries in flight at once. */
  readonly maxDeliveries: number;
  /** Webhook deliveries of one key in flight at once (USERSCOUT_WEBHOOK_MAX_IN_FLIGHT_PER_KEY). */
  readonly maxDeliveriesPerKey: number;
  /** Deliveries kept per key, and for how long once ended (ms): trimmed when a run of the key ends. */
  readonly keptDeliveries: { readonly perKey: number; readonly retentionMs: number };
  readonly resolve?: Resolve;
  readonly onError: (error: unknown, what: string) => void;
  /** Called once a run has ended and its changes are stored (logs). */
  readonly onRunFinished?: (watchlist: Watchlist, run: RunSummary) => void;
}

/** Runs and deliveries claimed per tick at most: every loop over the store is bounded. */
const CLAIMS_PER_TICK = 50;

export class WatchlistScheduler {
  readonly #o: SchedulerOptions;
  #timer: NodeJS.Timeout | undefined;
  #running = false;
  #ticking: Promise<void> | undefined;
  #again = false;
  readonly #deliveries = new Set<Promise<void>>();
  /** Owner → its deliveries in flight here. */
  readonly #inFlight = new Map<string, number>();
  /** Aborted by `stop`: attempts under way end at once, are logged as aborted, and are made again after the backoff. */
  readonly #stopping = new AbortController();

  constructor(options: SchedulerOptions) {
    this.#o = options;
  }

  start(): void {
    this.#running = true;
    this.poke();
  }

  /** Looks for due work now (after a run was asked for), rather than at the next tick. */
  poke(): void {
    if (!this.#running) return;
    if (this.#ticking) {
      this.#again = true;
      return;
    }
    clearTimeout(this.#timer);
    this.#ticking = this.#tick().finally(() => {
      this.#ticking = undefined;
      if (!this.#running) return;
      if (this.#again) {
        this.#again = false;
        this.poke();
        return;
      }
      this.#timer = setTimeout(() => this.poke(), this.#o.tickMs);
      this.#timer.unref();
    });
  }

  /** Stops claiming; waits for the step and the deliveries under way. */
  async stop(): Promise<void> {
    this.#running = false;
    clearTimeout(this.#timer);
    this.#stopping.abort();
    await this.#ticking;
    await Promise.allSettled([...this.#deliveries]);
  }

  async #tick(): Promise<void> {
    const { store } = this.#o;
    try {
      for (let i = 0; i < CLAIMS_PER_TICK && this.#running; i++) {
        const claimed = await store.watchlists.claimDueWatchlist(this.#o.now(), this.#o.leaseMs);
        if (!claimed) break;
        await this.#advance(claimed).catch((error: unknown) => this.#o.onError(error, 'watchlist run'));
      }
      for (let i = 0; i < CLAIMS_PER_TICK && this.#running; i++) {
        if (this.#deliveries.size >= this.#o.maxDeliveries) break;
        const claimed = await this.#claimFairly();
        if (!claimed) break;
        const { owner } = claimed;
        this.#inFlight.set(owner, (this.#inFlight.get(owner) ?? 0) + 1);
        const delivery = this.#deliver(claimed)
          .catch((error: unknown) => this.#o.onError(error, 'webhook delivery'))
          .finally(() => {
            this.#deliveries.delete(delivery);
            const left = (this.#inFlight.get(owner) ?? 1) - 1;
            if (left > 0) this.#inFlight.set(owner, left);
            else this.#inFlight.delete(owner);
          });
        this.#deliveries.add(delivery);
      }
    } catch (error) {
      this.#o.onError(error, 'watchlist scheduler');
    }
  }

  /** A delivery's lease: its attempt's deadline and a margin to record how it went. */
  get #deliveryLeaseMs(): number {
    return this.#o.webhookTimeoutMs + 5_000;
  }

  /**
   * Round robin across keys: a due delivery of a key with nothing in flight
   * here first, then of one with one in flight, and so on below the per-key cap.
   */
  async #claimFairly(): Promise<LeasedDelivery | undefined> {
    for (let level = 1; level <= this.#o.maxDeliveriesPerKey; level++) {
      const skip = [...this.#inFlight].filter(([, n]) => n >= level).map(([owner]) => owner);
      const claimed = await this.#o.store.watchlists.claimDueDelivery(
        this.#o.now(),
        this.#deliveryLeaseMs,
        skip,
      );
      if (claimed) return claimed;
      // Nothing due whatever was skipped: no higher level finds more.
      if (skip.length === 0) return undefined;
    }
    return undefined;
  }

  async #advance({ value: watchlist, token }: Leased<Watchlist>): Promise<void> {
    const { store, now } = this.#o;
    const save = (state: WatchlistState, dueAt: number) =>
      store.watchlists.saveWatchlistState(watchlist.id, token, state, dueAt);
    let run: WatchRun = watchlist.state.run ?? {
      id: randomUUID(),
      startedAt: now(),
      searches: {},
      skipped: {},
    };
    // Names not started yet: all of them on a new run; those left by a process that died, on a resumed one.
    const missing = watchedNames(watchlist.spec, this.#o.maxVariants ?? 0).filter(
      (n) => !(n in run.searches) && !(n in run.skipped),
    );
    if (!watchlist.state.run && !(await save({ ...watchlist.state, run }, now() + this.#o.leaseMs))) return;
    for (const name of missing) {
      if (!this.#running) return;
      const started = await this.#o.startSearch(watchlist, name);
      run =
        'queryId' in started
          ? { ...run, searches: { ...run.searches, [name]: started.queryId } }
          : { ...run, skipped: { ...run.skipped, [name]: started.skipped } };
      if (!(await save({ ...watchlist.state, run }, now() + this.#o.leaseMs))) return;
    }

    const results = new Map<string, Outcome[]>();
    const skipped: Record<string, string> = { ...run.skipped };
    const overdue = now() - run.startedAt > this.#o.maxRunMs;
    for (const [name, id] of Object.entries(run.searches)) {
      const search = await store.getSearch(id);
      if (!search) {
        skipped[name] = 'its search expired before the run ended';
        continue;
      }
      if (search.state === 'queued' || search.state === 'running') {
        if (!overdue) {
          // Nothing changed but when to look again: the state (with its baseline) is not written again.
          await store.watchlists.deferWatchlist(watchlist.id, token, now() + this.#o.tickMs);
          return;
        }
        skipped[name] = 'its search did not finish in time';
        continue;
      }
      results.set(
        name,
        (await store.listOutcomes(id)).map((s) => s.outcome),
      );
    }

    const finishedAt = now();
    const { changes, baseline } = compareRun(watchlist.state.baseline, results);
    const summary = { ...run, skipped, finishedAt, changes: changes.length };
    const event = watchEventOf(watchlist, summary, changes, `evt_${randomUUID()}`);
    const deliveries: DeliveryRecord[] =
      event && watchlist.spec.webhookUrl
        ? [
            {
              id: randomUUID(),
              watchlistId: watchlist.id,
              eventId: event.id,
              eventType: event.type,
              body: JSON.stringify(event),
              url: watchlist.spec.webhookUrl,
              state: 'pending',
              createdAt: finishedAt,
              attempts: [],
              nextAttemptAt: finishedAt,
            },
          ]
        : [];
    const next = nextRunAt(watchlist.state.nextRunAt, watchlist.spec.intervalMs, finishedAt);
    const finished = await store.watchlists.finishWatchlistRun(watchlist.id, token, {
      state: { nextRunAt: next, lastRun: summary, runs: watchlist.state.runs + 1, baseline },
      dueAt: next,
      changes: changes.map((c) => ({ ...c, watchlistId: watchlist.id, runId: run.id, at: finishedAt })),
      deliveries,
    });
    if (!finished) return;
    this.#o.onRunFinished?.(watchlist, summary);
    // The key's old deliveries go as its new ones come (or as its runs go on without any).
    await store.watchlists.trimDeliveries(watchlist.owner, {
      keep: this.#o.keptDeliveries.perKey,
      createdBefore: finishedAt - this.#o.keptDeliveries.retentionMs,
    });
    if (deliveries.length > 0) this.#again = true;
  }

  async #deliver({ value, token }: LeasedDelivery): Promise<void> {
    const { store, now } = this.#o;
    const delivery = resumeDelivery(value);
    if (delivery.state !== 'pending') {
      await store.watchlists.saveDelivery(delivery, token);
      return;
    }
    const watchlist = await store.watchlists.getWatchlist(delivery.watchlistId);
    if (!watchlist) return;
    // Recorded before it is sent: a process that dies now leaves it in flight for the next claim to see.
    const at = now();
    const started = startAttempt(delivery, at, at + this.#deliveryLeaseMs);
    if (!(await store.watchlists.saveDelivery(started, token))) return;
    const attempt = await sendWebhook(started, {
      secret: watchlist.spec.webhookSecret,
      timeoutMs: this.#o.webhookTimeoutMs,
      allowPrivate: this.#o.allowPrivate,
      now,
      signal: this.#stopping.signal,
      ...(this.#o.resolve ? { resolve: this.#o.resolve } : {}),
    });
    // Cut short by our own shutdown: logged as it is ('aborted before an answer came'), retried as any failure.
    await store.watchlists.saveDelivery(afterAttempt(started, attempt, this.#o.retry), token);
  }
}
