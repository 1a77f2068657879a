/**
 * Identical checks at the same time, shared beyond this process: in cluster
 * mode two workers checking the same username on the same platform send one
 * request (src/redis/shared-checks.ts). A step of the check pipeline asks it
 * (pipeline/send-once.ts), after the one that shares them inside a process.
 */
import type { Outcome } from './verdict/outcome.js';

export interface SharedChecks {
  /**
   * `check`'s outcome, or the outcome of the same check (same `key`) another process is
   * running now. `waiting` is called when it waits for another process's check instead of
   * running its own (this process then books no request for it: src/schedule/scheduler.ts).
   */
  run(key: string, check: () => Promise<Outcome>, waiting?: () => void): Promise<Outcome>;
}
