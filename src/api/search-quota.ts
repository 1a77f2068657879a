/**
 * The search limit: how many searches a client may start per window, by tier
 * (free: per client address, professional: per key). Our own counter rather
 * than the rate-limit plugin's, because a batch, or a search with its lookalike
 * names, takes several searches at once, all or none, and `GET /api/usage`
 * reads the count without taking one. A fixed window, as the plugin's: it
 * opens with the first search counted and lasts the tier's window.
 *
 * The counter lives in memory (one process) or in Redis (cluster mode:
 * src/api/search-quota-redis.ts); both keep the same contract
 * (test/search-quota.test.ts runs one suite against each).
 */
import type { FastifyReply } from 'fastify';
import type { Config } from '../config.js';
import { UserscoutError } from '../errors.js';
import type { Tier } from '../store/store.js';

/** A client's window: searches counted in it and ms until it ends (0: no window open). */
export interface QuotaWindow {
  readonly used: number;
  readonly resetMs: number;
}

export interface SearchQuota {
  /**
   * Counts `n` searches in `key`'s window when they all fit under `limit`
   * (opening a window of `windowMs` if none is open); otherwise counts none.
   */
  take(key: string, n: number, limit: number, windowMs: number): Promise<QuotaWindow & { granted: boolean }>;
  /** Gives back `n` searches counted but not started; never below zero. */
  release(key: string, n: number): Promise<void>;
  /** The window as it is, counting nothing. */
  peek(key: string): Promise<QuotaWindow>;
}

export type SearchLimitConfig = Pick<Config, 'freeLimit' | 'freeWindowMs' | 'proLimit' | 'proWindowMs'>;

/** The tier's search limit: the one place it is read from the configuration. */
export function searchLimitOf(tier: Tier, config: SearchLimitConfig): { limit: number; windowMs: number } {
  return tier === 'professional'
    ? { limit: config.proLimit, windowMs: config.proWindowMs }
    : { limit: config.freeLimit, windowMs: config.freeWindowMs };
}

/** The counter's key of a client (`ip:…` or `key:…`). */
export const quotaKey = (client: string): string => `search:${client}`;

/** A window in words: 'hour', '15 minutes'. */
function humanWindow(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes >= 60 && minutes % 60 === 0) return minutes === 60 ? 'hour' : `${minutes / 60} hours`;
  return minutes === 1 ? 'minute' : `${minutes} minutes`;
}

/** A wait in words: '45 seconds', '14 minutes'. */
function inWords(seconds: number): string {
  if (seconds < 120) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  return `${Math.round(seconds / 60)} minutes`;
}

/** The 429 for `requested` searches that do not fit: how many are left, and when the window ends. */
export function searchLimitError(
  tier: Tier,
  config: SearchLimitConfig,
  window: QuotaWindow,
  requested: number,
): UserscoutError {
  const { limit, windowMs } = searchLimitOf(tier, config);
  const retryAfter = Math.max(1, Math.ceil(window.resetMs / 1000));
  const remaining = Math.max(0, limit - window.used);
  const asked = requested === 1 ? '' : ` This request needs ${requested}; ${remaining} left, none started.`;
  return new UserscoutError(
    'rate_limited',
    `Search limit reached: ${limit} searches per ${humanWindow(windowMs)} on the ${tier} tier.${asked} Retry in ${inWords(retryAfter)}${tier === 'free' ? ', or use a professional API key' : ''}.`,
    { details: { retryAfter, limit, tier, remaining, requested } },
  );
}

/** The IETF draft RateLimit-* headers of the search limit, as the other routes carry the request limit's. */
export function setSearchLimitHeaders(reply: FastifyReply, limit: number, window: QuotaWindow): void {
  reply.header('ratelimit-limit', String(limit));
  reply.header('ratelimit-remaining', String(Math.max(0, limit - window.used)));
  reply.header('ratelimit-reset', String(Math.ceil(window.resetMs / 1000)));
}

/** Counters beyond this many are swept of ended windows before a new one is added. */
const LOCAL_SWEEP_AT = 10_000;

/** The counter of one process. */
export class LocalSearchQuota implements SearchQuota {
  readonly #windows = new Map<string, { used: number; endsAt: number }>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  #open(key: string): { used: number; endsAt: number } | undefined {
    const window = this.#windows.get(key);
    if (window && window.endsAt > this.#now()) return window;
    if (window) this.#windows.delete(key);
    return undefined;
  }

  async take(key: string, n: number, limit: number, windowMs: number) {
    const now = this.#now();
    const window = this.#open(key);
    const used = window?.used ?? 0;
    const resetMs = window ? window.endsAt - now : windowMs;
    if (used + n > limit) return { granted: false, used, resetMs: window ? resetMs : 0 };
    if (window) window.used += n;
    else {
      if (this.#windows.size >= LOCAL_SWEEP_AT)
        for (const [k, w] of this.#windows) if (w.endsAt <= now) this.#windows.delete(k);
      this.#windows.set(key, { used: n, endsAt: now + windowMs });
    }
    return { granted: true, used: used + n, resetMs };
  }

  async release(key: string, n: number): Promise<void> {
    const window = this.#open(key);
    if (window) window.used = Math.max(0, window.used - n);
  }

  async peek(key: string): Promise<QuotaWindow> {
    const window = this.#open(key);
    return window ? { used: window.used, resetMs: window.endsAt - this.#now() } : { used: 0, resetMs: 0 };
  }
}
