/**
 * The one owner of what sites' limits we have learned, per (site, egress identity): the
 * budget asks it for the limit to send within (`limit`), the answer path tells it of each
 * rate-limited answer (`heard`). It answers from this process's copy, written through to
 * a shelf (the store, shared across a cluster) and read back from it now and then, so a
 * limit one process learns paces the others' next searches too.
 */

import {
  effectiveLimit,
  type LearnedLimitEntry,
  type LearningSettings,
  learn,
  quietMs,
} from './learned-limit.js';
import type { LimitSource } from './limits.js';
import type { BudgetLimit } from './rate-budget.js';
import { isRateLimited, type RateSignals } from './rate-signals.js';
import { MemoryShelf, SiteFacts } from './site-facts.js';

/** Where learned limits are kept for every process (the store's `siteLimits`). */
export interface LearnedLimitShelf {
  /** Every learned limit not expired at `now` (wall-clock ms). */
  learned(now: number): Promise<readonly LearnedLimitEntry[]>;
  /** Keeps `entry`, replacing its (origin, identity)'s, until its `expiresAt`. */
  keep(entry: LearnedLimitEntry): Promise<void>;
}

/** A shelf in this process's memory: the default of an engine with no store. */
export class MemoryLimitShelf implements LearnedLimitShelf {
  readonly #shelf = new MemoryShelf<LearnedLimitEntry>((entry) => entry.limit.expiresAt);

  learned(now: number): Promise<readonly LearnedLimitEntry[]> {
    return this.#shelf.entries(now);
  }

  keep(entry: LearnedLimitEntry): Promise<void> {
    return this.#shelf.keep(entry);
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

/** Of two lessons about one site: the later stands, whoever learned it; of one lesson, the longest wait and life. */
function laterLesson(mine: LearnedLimitEntry, theirs: LearnedLimitEntry): LearnedLimitEntry {
  if (theirs.limit.at > mine.limit.at) return theirs;
  if (theirs.limit.at < mine.limit.at) return mine;
  const quietUntil = Math.max(theirs.limit.quietUntil ?? 0, mine.limit.quietUntil ?? 0);
  return {
    ...mine,
    limit: {
      ...mine.limit,
      expiresAt: Math.max(theirs.limit.expiresAt, mine.limit.expiresAt),
      ...(quietUntil > 0 ? { quietUntil } : {}),
    },
  };
}

export class SiteLimitBook implements LimitSource {
  readonly #settings: LearningSettings;
  readonly #facts: SiteFacts<LearnedLimitEntry>;

  constructor(options: SiteLimitBookOptions) {
    this.#settings = options.settings;
    const shelf = options.shelf ?? new MemoryLimitShelf();
    this.#facts = new SiteFacts<LearnedLimitEntry>({
      read: (now) => shelf.learned(now),
      keep: (entry) => shelf.keep(entry),
      expiresAt: (entry) => entry.limit.expiresAt,
      merge: laterLesson,
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.refreshMs !== undefined ? { refreshMs: options.refreshMs } : {}),
      ...(options.onError ? { onError: options.onError } : {}),
    });
  }

  /** The budget to send to `origin` through `identity` within: `ceiling`, or what was learned when lower. */
  limit(origin: string, identity: string, ceiling: BudgetLimit): BudgetLimit {
    const now = this.#facts.now();
    const learned = this.#facts.get(origin, identity, now);
    return learned ? effectiveLimit(learned.limit, ceiling, this.#settings, now) : ceiling;
  }

  /** The scheduler's view (limits.ts): the same as `limit`. */
  limitOf(origin: string, identity: string, ceiling: BudgetLimit): BudgetLimit {
    return this.limit(origin, identity, ceiling);
  }

  /** How long (ms) nothing may be sent to `origin` through `identity`: the site asked us to wait. */
  quietMs(origin: string, identity: string): number {
    const now = this.#facts.now();
    const learned = this.#facts.get(origin, identity, now);
    return learned ? quietMs(learned.limit, now) : 0;
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
    const now = this.#facts.now();
    const next = learn(
      this.#facts.get(origin, identity, now)?.limit,
      signals,
      ceiling,
      this.#settings,
      sentAt,
      now,
      limited,
    );
    if (next) this.#facts.set({ origin, identity, limit: next });
  }

  /**
   * Reads the shelf again when this process's copy is older than the refresh interval (a
   * search asks before it starts), waiting a bounded time (shelf-refresh.ts).
   */
  fresh(): Promise<void> {
    return this.#facts.fresh();
  }
}
