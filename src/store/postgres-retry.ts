/**
 * When the PostgreSQL store runs a transaction again: PostgreSQL ended it so
 * that another could go on (a deadlock, or a serialization failure under
 * REPEATABLE READ or SERIALIZABLE, which a deployment may make the default).
 * Such a transaction was rolled back whole, so running it again is safe as
 * long as its body keeps nothing in memory until it commits (the vocabulary's
 * ids are interned in statements committed before, never inside it). Bounded:
 * a few attempts with a short jittered pause, then the last error as it came.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { retryDelay } from '../engine/retry-timing.js';

/** SQLSTATEs of a transaction ended by a conflict with another, worth running again: deadlock, serialization failure. */
export const CONFLICT_SQLSTATES = ['40P01', '40001'] as const;
export type ConflictSqlstate = (typeof CONFLICT_SQLSTATES)[number];

export interface ConflictRetryPolicy {
  /** Attempts in all, the first included. */
  readonly attempts: number;
  /** First pause in ms; doubles each attempt, jittered to [50%, 100%]. */
  readonly baseDelayMs: number;
  /** Longest pause in ms. */
  readonly maxDelayMs: number;
}

export const CONFLICT_RETRY: ConflictRetryPolicy = Object.freeze({
  attempts: 3,
  baseDelayMs: 20,
  maxDelayMs: 200,
});

const CONFLICT_CODES: ReadonlySet<string> = new Set(CONFLICT_SQLSTATES);

/** Whether PostgreSQL ended the work for a conflict with another transaction (see CONFLICT_SQLSTATES). */
export function isConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && CONFLICT_CODES.has(code);
}

/** The pause before attempt `attempt + 1` (attempt counts from 1), `random` in [0, 1). */
export function conflictPauseMs(attempt: number, random: number, policy = CONFLICT_RETRY): number {
  return retryDelay(attempt - 1, undefined, policy, 0, random);
}

export interface RetryOnConflictOptions {
  readonly policy?: ConflictRetryPolicy;
  readonly sleep?: (ms: number) => Promise<unknown>;
  readonly random?: () => number;
}

/** Runs `work` (each call a whole transaction) until it does not end in a conflict, at most `policy.attempts` times. */
export async function retryOnConflict<T>(
  work: (attempt: number) => Promise<T>,
  options: RetryOnConflictOptions = {},
): Promise<T> {
  const policy = options.policy ?? CONFLICT_RETRY;
  const pause = options.sleep ?? sleep;
  const random = options.random ?? Math.random;
  for (let attempt = 1; ; attempt++) {
    try {
      return await work(attempt);
    } catch (error) {
      if (attempt >= policy.attempts || !isConflict(error)) throw error;
      await pause(conflictPauseMs(attempt, random(), policy));
    }
  }
}
