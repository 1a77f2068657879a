/**
 * Runs searches in the background: the Runner interface and the errors its
 * `enqueue` refuses a search with. The in-process runner is the embedded
 * default; the BullMQ runner spreads work over worker processes.
 */
import { UserscoutError } from '../errors.js';
import type { SearchRecord } from '../store/store.js';

export interface RunnerStats {
  /** Searches waiting for a slot. */
  readonly queued: number;
  /** Searches being checked. */
  readonly running: number;
}

export interface Runner {
  /** Queues a stored search. Throws UserscoutError 'queue_full' when the queue is at its limit. */
  enqueue(search: SearchRecord): Promise<void>;
  /**
   * Throws what `enqueue` would throw now ('queue_full', 'unavailable'), without
   * queueing anything: checked before a search is counted against the caller's
   * limit, so a refused search costs nothing. `enqueue` checks again.
   */
  admit(tier: SearchRecord['tier']): Promise<void>;
  /** Searches ahead of a new one of this tier (for estimates). */
  queuedAhead(tier: SearchRecord['tier']): Promise<number>;
  stats(): Promise<RunnerStats>;
  /**
   * Stops the work of a search already marked ended (state `error`, by
   * `failSearch`): takes it out of the queue, or interrupts its checks wherever
   * they run; what it found stays stored. Nothing for a search not held.
   */
  cancel(searchId: string): Promise<void>;
  /** Resumes searches left unfinished by an earlier process, then takes new work. */
  start(): Promise<void>;
  /** Stops taking work; running searches are interrupted and stay resumable. */
  stop(): Promise<void>;
}

/** What a runner that is stopping (or not started) answers instead of taking work. */
export function notAcceptingError(): UserscoutError {
  return new UserscoutError('unavailable', 'The service is shutting down; try again shortly');
}

/** What `Runner.enqueue` throws when its queue is at its limit: the only place "queue full" is decided. */
export function queueFullError(retryAfterSeconds: number): UserscoutError {
  return new UserscoutError('queue_full', undefined, { details: { retryAfter: retryAfterSeconds } });
}
