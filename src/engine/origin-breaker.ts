/**
 * Stops sending to an origin that has stopped answering. After `threshold`
 * checks in a row to one origin end in a timeout, further checks to it end at
 * once as `error/timeout` for `cooldownMs`, instead of each holding one of the
 * origin's few slots for the whole timeout while the checks of other searches
 * queue behind it. After the cooldown one check goes through again: an answer
 * of any kind closes the breaker, another timeout opens it for a new cooldown.
 *
 * Only timeouts count: a refused connection or a DNS failure already ends fast.
 * A breaker never turns into `hit` or `miss`; it only saves waiting for an
 * answer that has not been coming. State is per process; no IO, and time
 * comes from the clock it is given.
 */
import type { Outcome } from './verdict/outcome.js';

export interface BreakerOptions {
  /** Timeouts in a row that open the breaker; 0 turns it off. */
  readonly threshold: number;
  /** How long an open breaker refuses checks (ms). */
  readonly cooldownMs: number;
  readonly now: () => number;
}

interface OriginState {
  /** Timeouts in a row since the last answer. */
  timeouts: number;
  /** While now < openUntil, checks are refused. */
  openUntil: number;
  /** A check let through after the cooldown, not yet ended. */
  probing: boolean;
}

/** Why a check was not sent, for its evidence. */
export interface BreakerRefusal {
  /** Timeouts in a row that opened the breaker. */
  readonly timeouts: number;
  /** How long until a check to the origin is sent again (ms). */
  readonly retryInMs: number;
}

/** How a sent check ended, as the breaker counts it. */
export type BreakerResult = 'timeout' | 'answered' | 'other';

/** Any answer (hit, miss, unknown) closes the breaker; only a timeout counts against it. */
export function breakerResult(outcome: Outcome): BreakerResult {
  if (outcome.status === 'error') return outcome.reason === 'timeout' ? 'timeout' : 'other';
  return outcome.status === 'invalid' ? 'other' : 'answered';
}

/** Origins remembered at most; the least recently touched are forgotten first. */
const MAX_ORIGINS = 10_000;

export class OriginBreaker {
  readonly #options: BreakerOptions;
  readonly #origins = new Map<string, OriginState>();

  constructor(options: BreakerOptions) {
    this.#options = options;
  }

  /** Why checks to `origin` are refused now, or undefined when one may be sent. Changes nothing. */
  refusal(origin: string): BreakerRefusal | undefined {
    if (this.#options.threshold <= 0) return undefined;
    const state = this.#origins.get(origin);
    if (!state || state.timeouts < this.#options.threshold) return undefined;
    const now = this.#options.now();
    if (now >= state.openUntil && !state.probing) return undefined;
    return { timeouts: state.timeouts, retryInMs: Math.max(0, state.openUntil - now) };
  }

  /**
   * Called when a check is about to be sent: undefined lets it go (after the
   * cooldown, as the one probe), a refusal stops it.
   */
  admit(origin: string): BreakerRefusal | undefined {
    const refused = this.refusal(origin);
    if (refused) return refused;
    const state = this.#origins.get(origin);
    if (state && state.timeouts >= this.#options.threshold) state.probing = true;
    return undefined;
  }

  /** Records how a sent check ended: `timeout` when it got no answer in time, `answered` when it got any. */
  record(origin: string, result: BreakerResult): void {
    if (this.#options.threshold <= 0 || result === 'other') {
      const state = this.#origins.get(origin);
      if (state) state.probing = false;
      return;
    }
    if (result === 'answered') {
      this.#origins.delete(origin);
      return;
    }
    let state = this.#origins.get(origin);
    if (state) this.#origins.delete(origin); // re-insert: most recently touched last
    state ??= { timeouts: 0, openUntil: 0, probing: false };
    state.timeouts++;
    state.probing = false;
    if (state.timeouts >= this.#options.threshold)
      state.openUntil = this.#options.now() + this.#options.cooldownMs;
    this.#origins.set(origin, state);
    if (this.#origins.size > MAX_ORIGINS) {
      const oldest = this.#origins.keys().next().value;
      if (oldest !== undefined) this.#origins.delete(oldest);
    }
  }
}
