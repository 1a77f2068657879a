/**
 * A site's limit as we learned it for one egress identity, and the rules that move it. Pure:
 * times are wall-clock ms passed in, as a limit learned by one process is read by others.
 *
 * A 429 (or a 503 with rate-limit headers) lowers the rate: straight to the rate the site
 * states (RateLimit-Policy), else by `LIMIT_DECREASE_FACTOR` (multiplicative decrease). The rate then climbs
 * back by `recoveryPerMinute` a minute (additive increase) toward the catalogue's budget,
 * which stays the ceiling; a stated rate is held as stated until it expires, the site's
 * own word being better than a guess. Never below `floor`. A learned limit sends one
 * request at a time (a burst of 1): the site has shown it counts closely. A wait the site
 * asks for (Retry-After, the reset of a spent quota) holds every request to it until then.
 */

import { LEARNED_BURST, LIMIT_DECREASE_FACTOR } from '../tuning.js';
import type { BudgetLimit } from './rate-budget.js';
import type { RateSignals } from './rate-signals.js';

/** What is kept of a site's limit for one identity (shared across processes, so plain data). */
export interface LearnedLimit {
  /** Requests a second the site allowed at `at`. */
  readonly perSecond: number;
  /** Whether the site stated that rate (it is held), or it was guessed (it recovers). */
  readonly stated: boolean;
  /** When it was learned (wall-clock ms): answers to requests sent before then are old news. */
  readonly at: number;
  /** When it is forgotten (wall-clock ms). */
  readonly expiresAt: number;
  /** Nothing is sent before then (wall-clock ms): the site asked us to wait (Retry-After, a spent quota). */
  readonly quietUntil?: number;
}

/** A learned limit with the (site, identity) it is of. */
export interface LearnedLimitEntry {
  readonly origin: string;
  readonly identity: string;
  readonly limit: LearnedLimit;
}

export interface LearningSettings {
  /** Lowest rate ever learned (requests a second). */
  readonly floor: number;
  /** Requests a second regained each minute after a guessed limit. */
  readonly recoveryPerMinute: number;
  /** How long a learned limit is kept (ms). */
  readonly ttlMs: number;
}

/** How long (ms from `now`) nothing may be sent under `learned`, as the site asked. */
export function quietMs(learned: LearnedLimit | undefined, now: number): number {
  if (!learned?.quietUntil || learned.expiresAt <= now) return 0;
  return Math.max(0, learned.quietUntil - now);
}

/** The rate of `learned` at `now`: its own, plus what it has recovered since, within the ceiling. */
export function currentRate(
  learned: LearnedLimit,
  ceiling: number,
  settings: LearningSettings,
  now: number,
): number {
  const recovered = learned.stated
    ? learned.perSecond
    : learned.perSecond + (settings.recoveryPerMinute * Math.max(0, now - learned.at)) / 60_000;
  return Math.max(settings.floor, Math.min(ceiling, recovered));
}

/**
 * The budget to send within: the catalogue's `ceiling`, or the learned limit while it is
 * lower and not expired.
 */
export function effectiveLimit(
  learned: LearnedLimit | undefined,
  ceiling: BudgetLimit,
  settings: LearningSettings,
  now: number,
): BudgetLimit {
  if (!learned || learned.expiresAt <= now) return ceiling;
  const perSecond = currentRate(learned, ceiling.perSecond, settings, now);
  if (perSecond >= ceiling.perSecond) return ceiling;
  return { perSecond, burst: Math.min(ceiling.burst, LEARNED_BURST) };
}

/**
 * What an answer to a request sent at `sentAt` teaches, given what was known (`learned`):
 * the new limit, or undefined when it changes nothing. A rate-limited answer (`limited`)
 * lowers the rate; any other teaches only what its policy states (sites that follow the
 * IETF draft state it on every answer, so a client can keep within it before a 429). An
 * answer to a request sent before the last lesson tells of the rate then, not now, so it
 * lowers nothing again (many answers to requests sent together would otherwise halve the
 * rate many times over).
 */
export function learn(
  learned: LearnedLimit | undefined,
  signals: RateSignals,
  ceiling: BudgetLimit,
  settings: LearningSettings,
  sentAt: number,
  now: number,
  limited = true,
): LearnedLimit | undefined {
  const known = learned && learned.expiresAt > now ? learned : undefined;
  const rated = lowered(known, signals, ceiling, settings, sentAt, now, limited);
  const asked = signals.waitMs === undefined ? undefined : now + Math.min(signals.waitMs, settings.ttlMs);
  const quietUntil = Math.max(known?.quietUntil ?? 0, asked ?? 0);
  if (!rated) {
    // The rate stands; a longer wait asked for is still kept.
    if (!known || quietUntil <= (known.quietUntil ?? 0)) return undefined;
    return { ...known, quietUntil };
  }
  return quietUntil > now ? { ...rated, quietUntil } : rated;
}

/** The lowered rate a rate-limited answer teaches, or undefined when the rate stands. */
function lowered(
  known: LearnedLimit | undefined,
  signals: RateSignals,
  ceiling: BudgetLimit,
  settings: LearningSettings,
  sentAt: number,
  now: number,
  limited: boolean,
): LearnedLimit | undefined {
  const expiresAt = now + settings.ttlMs;
  const stated = signals.statedPerSecond;
  // A policy at or above the ceiling, on an answer that went through, says nothing new.
  if (!limited && (stated === undefined || (!known && stated >= ceiling.perSecond))) return undefined;
  if (stated !== undefined) {
    const perSecond = Math.max(settings.floor, Math.min(ceiling.perSecond, stated));
    // The same word again: kept as it is, unless half its time is gone.
    if (known?.stated && known.perSecond === perSecond && known.expiresAt - now > settings.ttlMs / 2)
      return undefined;
    return { perSecond, stated: true, at: now, expiresAt };
  }
  if (known && sentAt < known.at) return undefined;
  const from = known ? currentRate(known, ceiling.perSecond, settings, now) : ceiling.perSecond;
  const perSecond = Math.max(settings.floor, from * LIMIT_DECREASE_FACTOR);
  return { perSecond, stated: false, at: now, expiresAt };
}
