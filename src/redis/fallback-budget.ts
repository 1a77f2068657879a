/**
 * A rate budget that survives a Redis outage: it asks the cluster's budget,
 * and when that fails (Redis refused, lost, timed out, or any other error) it
 * reserves from the process's own budget instead, so checks go ahead, still
 * rate-limited, and no error reaches them. While Redis is away each process
 * keeps its own pace only; the shared budgets resume with the next answer.
 */
import type { BudgetLimit, RateBudget, Reservation } from '../schedule/rate-budget.js';

export interface FallbackRateBudgetOptions {
  /** The shared budget (Redis). */
  readonly primary: RateBudget;
  /** The process's own budget, used while `primary` fails. */
  readonly fallback: RateBudget;
  /** Whether `primary` can answer now; false skips it without a try (Redis known to be down). */
  readonly available?: () => boolean;
  readonly onError?: (error: unknown) => void;
}

export class FallbackRateBudget implements RateBudget {
  readonly #options: FallbackRateBudgetOptions;

  constructor(options: FallbackRateBudgetOptions) {
    this.#options = options;
  }

  async reserve(
    keys: readonly string[],
    limit: BudgetLimit,
    maxWaitMs: number,
  ): Promise<Reservation | undefined> {
    const { primary, fallback, available, onError } = this.#options;
    if (available?.() !== false) {
      try {
        return await primary.reserve(keys, limit, maxWaitMs);
      } catch (error) {
        onError?.(error);
      }
    }
    return fallback.reserve(keys, limit, maxWaitMs);
  }
}
