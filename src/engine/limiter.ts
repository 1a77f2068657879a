/**
 * Bounds the checks in flight: at most `global` at once, and at most `perHost`
 * to any one origin; with a rate budget, also the pace of requests to each
 * origin. A check waits for its host first, then for its budget slot (sleeping
 * exactly as long as the budget says), then for a global slot, so checks queued
 * behind a busy host never hold a global slot. Global slots go to the highest
 * priority first (a professional search's checks before a free one's), first
 * come first served within one.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pLimit, { type LimitFunction } from 'p-limit';
import PQueue from 'p-queue';
import type { BudgetLimit, RateBudget } from './rate-budget.js';

/** The rate budget a limiter applies to every origin. */
export interface LimiterBudget {
  readonly budget: RateBudget;
  readonly limit: BudgetLimit;
  /** Longest wait for a slot; a check that would wait longer is refused. */
  readonly maxWaitMs: number;
}

export class CheckLimiter {
  readonly #global: PQueue;
  readonly #perHost = new Map<string, LimitFunction>();
  readonly #perHostLimit: number;
  readonly #budget: LimiterBudget | undefined;

  constructor(global: number, perHost: number, budget?: LimiterBudget) {
    this.#global = new PQueue({ concurrency: global });
    this.#perHostLimit = perHost;
    this.#budget = budget;
  }

  /**
   * Runs `task` when its origin, its budget and a global slot allow; higher
   * `priority` first. When the budget has no slot within its longest wait,
   * `refused` answers instead and nothing is sent.
   */
  run<T>(origin: string, task: () => Promise<T>, priority = 0, refused?: () => T): Promise<T> {
    let host = this.#perHost.get(origin);
    if (!host) {
      host = pLimit(this.#perHostLimit);
      this.#perHost.set(origin, host);
    }
    const hostLimit = host;
    const inGlobal = () => this.#global.add(task, { priority });
    const budget = this.#budget;
    const paced = budget
      ? async () => {
          const slot = await budget.budget.reserve([origin], budget.limit, budget.maxWaitMs);
          if (!slot) {
            if (refused) return refused();
            throw new Error(`no request budget for ${origin} within ${budget.maxWaitMs} ms`);
          }
          if (slot.waitMs > 0) await sleep(slot.waitMs);
          return inGlobal();
        }
      : inGlobal;
    return hostLimit(paced).finally(() => {
      if (hostLimit.activeCount === 0 && hostLimit.pendingCount === 0) this.#perHost.delete(origin);
    });
  }

  get active(): number {
    return this.#global.pending;
  }

  get pending(): number {
    return this.#global.size;
  }
}
