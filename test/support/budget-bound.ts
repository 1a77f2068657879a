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
 * The turns of the event loop a request waits for between its send and the simulated web's
 * log of it (the dispatch, the connect, the TLS handshake's flights, the request's parse), each
 * as late as the worst stall on a loaded machine. The lateness shifts a window's count once: a
 * window several times as long as it still tells a client that breaks its budget.
 */
const TURNS_TO_ARRIVE = 4;

/** How late a request sent on time may reach the simulated web when its loop's worst stall was `stallNs` (a histogram's max). */
export function lateAfterStall(stallNs: number): number {
  return LATE_MS + (TURNS_TO_ARRIVE * stallNs) / 1e6;
}

/**
 * Runs `work` and gives how late a request sent on time may have reached a simulated web
 * on this thread: LATE_MS plus this event loop's worst stall meanwhile for each turn a
 * request waits for on its way.
 */
export async function watchingStalls<T>(work: () => Promise<T>): Promise<{ result: T; lateMs: number }> {
  const stall = monitorEventLoopDelay({ resolution: 10 });
  stall.enable();
  try {
    const result = await work();
    return { result, lateMs: lateAfterStall(stall.max) };
  } finally {
    stall.disable();
  }
}
