import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { BudgetLimit } from '../../src/schedule/rate-budget.js';

/**
 * How late a request may reach the simulated web after its budget slot and
 * still count as on time: a sender's or the simulated web's event loop runs
 * late on a loaded machine (200 ms and more seen with several test processes
 * on 2 cores), and the web logs a request when its loop gets to it.
 */
export const LATE_MS = 400;

/**
 * The most requests a budget's slots put within any `windowMs` (half-open, as
 * busiestWindow counts), widened by `lateMs`: what the simulated web's log can
 * hold in such a window when every request goes at or after its slot.
 */
export function budgetAllows(limit: BudgetLimit, windowMs: number, lateMs = LATE_MS): number {
  return limit.burst + Math.ceil(((windowMs + lateMs) * limit.perSecond) / 1000) - 1;
}

/**
 * Runs `work` and gives how late a request sent on time may have reached a simulated web
 * on this thread: LATE_MS plus this event loop's worst stall meanwhile (a busy machine
 * stalls it beyond LATE_MS, and requests sent on time are then logged together).
 */
export async function watchingStalls<T>(work: () => Promise<T>): Promise<{ result: T; lateMs: number }> {
  const stall = monitorEventLoopDelay({ resolution: 10 });
  stall.enable();
  try {
    const result = await work();
    return { result, lateMs: LATE_MS + stall.max / 1e6 };
  } finally {
    stall.disable();
  }
}
