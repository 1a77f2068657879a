/**
 * Watchlists in the store: the records, and the `WatchlistStore` every backend
 * implements as `store.watchlists` (`test/watchlist-store.contract.ts` runs the
 * same suite against each). Work that must happen once (a due run, a pending
 * webhook delivery) is claimed with a lease: claiming pushes its due time
 * `leaseMs` ahead and returns a fencing token; a save with a stale token is
 * refused, so a process that lost its lease cannot overwrite a newer one.
 * A process killed while holding a lease leaves the work due again when the
 * lease runs out: nothing is lost, and nothing is done twice as the store tells.
 */
import type { Category } from '../catalogue/categories.js';
import type { OutcomeStatus } from '../engine/verdict/outcome.js';

/** What a watched name's platform turned into since the last run. */
export const CHANGE_KINDS = ['new_hit', 'gone', 'changed'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

/** When a watchlist's webhook is called: on changes only, or after every finished run. */
export const NOTIFY_MODES = ['changes', 'every_run'] as const;
export type NotifyMode = (typeof NOTIFY_MODES)[number];

/** `cancelled`: its key was revoked before it was delivered. */
export const DELIVERY_STATES = ['pending', 'delivered', 'failed', 'cancelled'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/**
 * An attempt not ended yet: `in_flight`, recorded before its request is sent;
 * `interrupted`, found in flight by the next claim (the process that sent it
 * ended before it could record how it went: the receiver may have it).
 */
export const ATTEMPT_PHASES = ['in_flight', 'interrupted'] as const;
export type AttemptPhase = (typeof ATTEMPT_PHASES)[number];

/** What the owner of a watchlist chose; changed by PATCH, never by the scheduler. */
export interface WatchlistSpec {
  readonly names: readonly string[];
  readonly categories?: readonly Category[] | undefined;
  readonly platforms?: readonly string[] | undefined;
  readonly includeNsfw?: boolean | undefined;
  readonly intervalMs: number;
  readonly webhookUrl?: string | undefined;
  /** HMAC key of the webhook signature; shown to the owner once. */
  readonly webhookSecret: string;
  readonly notify: NotifyMode;
  /** Also watch lookalike names of each name (catalogue/lookalike-names.ts): each is one more search per run. */
  readonly variants?: boolean | undefined;
}

/** The last status seen for one name on one platform, and its last answer (hit or miss), if any. */
export interface BaselineEntry {
  readonly last: OutcomeStatus;
  readonly answer?: 'hit' | 'miss' | undefined;
}

/** Name → platform id → entry: what the next run is compared with. */
export type Baseline = Readonly<Record<string, Readonly<Record<string, BaselineEntry>>>>;

/** A run under way: a search per name, started one by one. */
export interface WatchRun {
  readonly id: string;
  readonly startedAt: number;
  /** Name → search id. */
  readonly searches: Readonly<Record<string, string>>;
  /** Name → why it was not searched in this run (e.g. the key's search limit). */
  readonly skipped: Readonly<Record<string, string>>;
}

export interface RunSummary extends WatchRun {
  readonly finishedAt: number;
  readonly changes: number;
}

/** What the scheduler keeps; written only under its lease. */
export interface WatchlistState {
  readonly nextRunAt: number;
  readonly run?: WatchRun | undefined;
  readonly lastRun?: RunSummary | undefined;
  readonly runs: number;
  readonly baseline: Baseline;
}

export interface Watchlist {
  readonly id: string;
  /** The owner: `key:KEYID`. */
  readonly owner: string;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly spec: WatchlistSpec;
  readonly state: WatchlistState;
}

export interface WatchChange {
  /** 1, 2, 3... per watchlist, in the order changes were stored. */
  readonly seq: number;
  readonly watchlistId: string;
  readonly runId: string;
  readonly at: number;
  readonly username: string;
  readonly platformId: string;
  readonly platform: string;
  readonly url: string;
  readonly kind: ChangeKind;
  readonly from: OutcomeStatus;
  readonly to: OutcomeStatus;
}

export interface DeliveryAttempt {
  readonly at: number;
  /** Absent once the attempt ended with an answer or an error. */
  readonly phase?: AttemptPhase | undefined;
  /** The receiver's HTTP status, when it answered. */
  readonly status?: number | undefined;
  readonly error?: string | undefined;
  readonly durationMs: number;
}

export interface DeliveryRecord {
  readonly id: string;
  readonly watchlistId: string;
  /** Same for a redelivery of the same event: what receivers deduplicate by. */
  readonly eventId: string;
  readonly eventType: string;
  /** The JSON event exactly as signed and sent. */
  readonly body: string;
  readonly url: string;
  readonly state: DeliveryState;
  readonly createdAt: number;
  readonly attempts: readonly DeliveryAttempt[];
  /** When the next attempt is due (pending only). */
  readonly nextAttemptAt?: number | undefined;
  readonly deliveredAt?: number | undefined;
  readonly redeliveryOf?: string | undefined;
}

export interface Leased<T> {
  readonly value: T;
  /** Fencing token: give it back to save; a newer claim makes it stale. */
  readonly token: number;
}

/** A claimed delivery, with the key its watchlist belongs to (what fair sending counts by). */
export interface LeasedDelivery extends Leased<DeliveryRecord> {
  readonly owner: string;
}

export interface WatchlistStore {
  /** Throws UserscoutError 'duplicate_id' when a watchlist has this id already. Due at `state.nextRunAt`. */
  createWatchlist(watchlist: Watchlist): Promise<void>;
  getWatchlist(id: string): Promise<Watchlist | undefined>;
  /** The owner's watchlists, oldest first. */
  listWatchlists(owner: string): Promise<Watchlist[]>;
  /** Replaces the spec; false when there is no such watchlist. */
  updateWatchlistSpec(id: string, spec: WatchlistSpec, updatedAt: number): Promise<boolean>;
  /** Deletes the watchlist with its changes and deliveries; false when there was none. */
  deleteWatchlist(id: string): Promise<boolean>;
  /**
   * Makes an idle watchlist due at `at` (sooner than planned). 'running' when a
   * run is under way (nothing changes), 'not_found' when there is no such watchlist.
   */
  requestRun(id: string, at: number): Promise<'queued' | 'running' | 'not_found'>;
  /** Claims one watchlist due at `now` or before (oldest due first), leasing it for `leaseMs`. */
  claimDueWatchlist(now: number, leaseMs: number): Promise<Leased<Watchlist> | undefined>;
  /** Saves the state under the lease and makes it due at `dueAt`; false when the token is stale. */
  saveWatchlistState(id: string, token: number, state: WatchlistState, dueAt: number): Promise<boolean>;
  /**
   * Makes the watchlist due at `dueAt` under the lease, its state untouched (a
   * run still waiting for its searches: nothing else changed); false when the token is stale.
   */
  deferWatchlist(id: string, token: number, dueAt: number): Promise<boolean>;
  /**
   * Ends a run, all or nothing: saves the state (due at `dueAt`), appends the
   * changes (numbered here) and adds the deliveries. False, storing nothing,
   * when the token is stale.
   */
  finishWatchlistRun(
    id: string,
    token: number,
    finish: {
      readonly state: WatchlistState;
      readonly dueAt: number;
      readonly changes: readonly Omit<WatchChange, 'seq'>[];
      readonly deliveries: readonly DeliveryRecord[];
    },
  ): Promise<boolean>;
  /** Changes in seq order, after `afterSeq` when given, at most `limit`. */
  listWatchChanges(
    watchlistId: string,
    options?: { afterSeq?: number; limit?: number },
  ): Promise<WatchChange[]>;

  /** Adds a delivery (a redelivery); pending ones are due at `nextAttemptAt`. Throws 'duplicate_id'. */
  createDelivery(delivery: DeliveryRecord): Promise<void>;
  getDelivery(id: string): Promise<DeliveryRecord | undefined>;
  /** The watchlist's deliveries, newest first, at most `limit`. */
  listDeliveries(watchlistId: string, limit?: number): Promise<DeliveryRecord[]>;
  /**
   * Claims one pending delivery due at `now` or before (due first), leasing it
   * for `leaseMs`, of a watchlist whose owner is not in `skipOwners`.
   */
  claimDueDelivery(
    now: number,
    leaseMs: number,
    skipOwners?: readonly string[],
  ): Promise<LeasedDelivery | undefined>;
  /** Saves a delivery under its lease (due at `nextAttemptAt` while pending); false when the token is stale. */
  saveDelivery(delivery: DeliveryRecord, token: number): Promise<boolean>;
  /**
   * Deletes the owner's ended deliveries (not pending ones) created before
   * `createdBefore`, and those past the newest `keep` of all its deliveries.
   * Returns how many deliveries the owner has stored after.
   */
  trimDeliveries(
    owner: string,
    limits: { readonly keep: number; readonly createdBefore: number },
  ): Promise<number>;
  /**
   * The owner's key is revoked: none of its watchlists is due again (a run
   * under way is abandoned: its lease is made stale) and each pending delivery
   * is `cancelled` (an attempt under way cannot save). Returns how many of each.
   */
  stopOwner(owner: string): Promise<{ readonly watchlists: number; readonly deliveries: number }>;
}

/** The due time of a watchlist that is never due again (its key was revoked). */
export const NEVER_DUE = Number.MAX_SAFE_INTEGER;

/** What a pending delivery becomes when its key is revoked: one rule for every backend. */
export function cancelledDelivery(delivery: DeliveryRecord): DeliveryRecord {
  const { nextAttemptAt: _next, ...rest } = delivery;
  return { ...rest, state: 'cancelled' };
}

/** Where a saved delivery is due next, if anywhere: one rule for every backend. */
export function deliveryDueAt(delivery: DeliveryRecord): number | undefined {
  return delivery.state === 'pending' ? (delivery.nextAttemptAt ?? delivery.createdAt) : undefined;
}
