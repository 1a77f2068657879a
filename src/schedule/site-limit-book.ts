/**
 * The one owner of what sites' limits we have learned, per (site, egress identity): the
 * budget asks it for the limit to send within (`limit`), the answer path tells it of each
 * rate-limited answer (`heard`). It answers from this process's copy, written through to
 * a shelf (the store, shared across a cluster) and read back from it now and then, so a
 * limit one process learns paces the others' next searches too.
 */
import type { BudgetLimit } from '../engine/rate-budget.js';
import {
  effectiveLimit,
  type LearnedLimit,
  type LearnedLimitEntry,
  type LearningSettings,
  learn,
  quietMs,
} from './learned-limit.js';
import { isRateLimited, type RateSignals } from './rate-signals.js';

/** Where learned limits are kept for every process (the store's `siteLimits`). */
export interface LearnedLimitShelf {
  /** Every learned limit not expired at `now` (wall-clock ms). */
  learned(now: number): Promise<readonly LearnedLimitEntry[]>;
  /** Keeps `entry`, replacing its (origin, identity)'s, until its `expiresAt`. */
  keep(entry: LearnedLimitEntry): Promise<void>;
}

/** A shelf in this process's memory: the default of an engine with no store. */
export class MemoryLimitShelf implements LearnedLimitShelf {
  readonly #entries = new Map<string, LearnedLimitEntry>();

  async learned(now: number): Promise<readonly LearnedLimitEntry[]> {
    for (const [key, entry] of this.#entries) if (entry.limit.expiresAt <= now) this.#entries.delete(key);
    return [...this.#entries.values()];
  }

  async keep(entry: LearnedLimitEntry): Promise<void> {
    this.#entries.set(keyOf(entry.origin, entry.identity), entry);
  }
}

export interface SiteLimitBookOptions {
  readonly settings: LearningSettings;
  /** @default a MemoryLimitShelf */
  readonly shelf?: LearnedLimitShelf;
  /** Wall clock (ms). @default Date.now */
  readonly clock?: () => number;
  /** How old this process's copy may be before the shelf is read again (ms). @default 5000 */
  readonly refreshMs?: number;
  /** Told when the shelf cannot be read or written: the copy here goes on meanwhile. */
  readonly onError?: (error: unknown) => void;
}

/** Longest a search waits for the shelf to be read before it starts (ms). */
const READ_WAIT_MS = 1_000;

function keyOf(origin: string, identity: string): string {
  return `${origin}\u0000${identity}`;
}

export class SiteLimitBook {
  readonly #settings: LearningSettings;
  readonly #shelf: LearnedLimitShelf;
  readonly #clock: () => number;
  readonly #refreshMs: number;
  readonly #onError: (error: unknown) => void;
  readonly #copy = new Map<string, LearnedLimit>();
  #readAt = Number.NEGATIVE_INFINITY;
  #reading: Promise<void> | undefined;

  constructor(options: SiteLimitBookOptions) {
    this.#settings = options.settings;
    this.#shelf = options.shelf ?? new MemoryLimitShelf();
    this.#clock = options.clock ?? Date.now;
    this.#refreshMs = options.refreshMs ?? 5_000;
    this.#onError = options.onError ?? (() => {});
  }

  /** The budget to send to `origin` through `identity` within: `ceiling`, or what was learned when lower. */
  limit(origin: string, identity: string, ceiling: BudgetLimit): BudgetLimit {
    if (this.#copy.size === 0) {
      if (this.#clock() - this.#readAt >= this.#refreshMs) void this.fresh();
      return ceiling;
    }
    const now = this.#clock();
    if (now - this.#readAt >= this.#refreshMs) void this.fresh();
    return effectiveLimit(this.#copy.get(keyOf(origin, identity)), ceiling, this.#settings, now);
  }

  /** How long (ms) nothing may be sent to `origin` through `identity`: the site asked us to wait. */
  quietMs(origin: string, identity: string): number {
    if (this.#copy.size === 0) return 0;
    return quietMs(this.#copy.get(keyOf(origin, identity)), this.#clock());
  }

  /**
   * An answer of `status` from `origin` through `identity`, to a request sent at `sentAt`
   * (wall-clock ms), with these rate signals: a rate-limited one lowers the limit, any other
   * sets what its policy states.
   */
  heard(
    origin: string,
    identity: string,
    status: number,
    signals: RateSignals,
    sentAt: number,
    ceiling: BudgetLimit,
  ): void {
    if (!(this.#settings.ttlMs > 0) || !signals.present) return;
    const limited = isRateLimited(status, signals);
    if (!limited && signals.statedPerSecond === undefined && signals.waitMs === undefined) return;
    const key = keyOf(origin, identity);
    const now = this.#clock();
    const next = learn(this.#copy.get(key), signals, ceiling, this.#settings, sentAt, now, limited);
    if (!next) return;
    this.#copy.set(key, next);
    this.#shelf.keep({ origin, identity, limit: next }).catch(this.#onError);
  }

  /**
   * Reads the shelf again when this process's copy is older than the refresh interval (a
   * search asks before it starts). Waits at most `READ_WAIT_MS`: a store that does not
   * answer (an outage, commands queued until it is back) holds no search; the read goes on.
   */
  fresh(): Promise<void> {
    if (this.#clock() - this.#readAt < this.#refreshMs) return Promise.resolve();
    this.#reading ??= this.#read().finally(() => {
      this.#reading = undefined;
    });
    const reading = this.#reading;
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, READ_WAIT_MS);
      void reading.finally(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  async #read(): Promise<void> {
    const now = this.#clock();
    let entries: readonly LearnedLimitEntry[];
    try {
      entries = await this.#shelf.learned(now);
    } catch (error) {
      this.#onError(error);
      // Tried again after an interval, not at every ask.
      this.#readAt = now;
      return;
    }
    this.#readAt = now;
    for (const [key, limit] of this.#copy) if (limit.expiresAt <= now) this.#copy.delete(key);
    for (const { origin, identity, limit } of entries) {
      const key = keyOf(origin, identity);
      const mine = this.#copy.get(key);
      // The later lesson stands, whoever learned it; of one lesson, the longest wait and life.
      if (!mine || limit.at > mine.at) this.#copy.set(key, limit);
      else if (limit.at === mine.at) {
        const quietUntil = Math.max(limit.quietUntil ?? 0, mine.quietUntil ?? 0);
        this.#copy.set(key, {
          ...mine,
          expiresAt: Math.max(limit.expiresAt, mine.expiresAt),
          ...(quietUntil > 0 ? { quietUntil } : {}),
        });
      }
    }
  }
}
