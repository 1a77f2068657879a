/**
 * Runs searches in the background. The in-process runner is the embedded
 * default; the BullMQ runner spreads work over worker processes.
 */
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
  /** Searches ahead of a new one of this tier (for estimates). */
  queuedAhead(tier: SearchRecord['tier']): Promise<number>;
  stats(): Promise<RunnerStats>;
  /** Resumes searches left unfinished by an earlier process, then takes new work. */
  start(): Promise<void>;
  /** Stops taking work; running searches are interrupted and stay resumable. */
  stop(): Promise<void>;
}
