/**
 * How long a search is expected to take, in seconds, pure: the longer of what
 * its platforms' response times need (a search lasts until its slowest platform
 * answers or times out) and what its origins' request budgets allow with the
 * requests not yet sent there (read from the scheduler's ledger where the engine
 * runs in this thread, else guessed from the searches running) and the searches
 * queued ahead of it, and its wait for a running slot.
 */

import { pacedMs } from '../schedule/politeness-bound.js';
import type { BudgetLimit } from '../schedule/rate-budget.js';
import { UNMEASURED_SLOW_SHARE } from '../tuning.js';

export interface EstimateInput {
  /** Recent response time per platform of the search (ms); undefined when never measured. */
  readonly latenciesMs: readonly (number | undefined)[];
  /** Typical response time of a platform never measured (ms). */
  readonly defaultLatencyMs: number;
  /** No check takes longer than this. */
  readonly timeoutMs: number;
  /** Checks in flight at once. */
  readonly concurrency: number;
  /**
   * The search's platforms per origin their checks count against, that origin's budget, and
   * the requests not yet sent there as the scheduler counts them (src/schedule/scheduler.ts
   * `unsent`), when it can be read; absent: each running search is taken to send as many.
   */
  readonly origins: readonly {
    readonly platforms: number;
    readonly limit: BudgetLimit;
    readonly unsent?: number | undefined;
  }[];
  /** Egress identities the budgets are per. */
  readonly identities: number;
  /** Searches running now, which share the origins' budgets with this one. */
  readonly running: number;
  /** Searches waiting before this one, and how many run at once. */
  readonly queuedAhead: number;
  readonly maxRunning: number;
  /**
   * The search's browser checks: their platforms' recent response times (ms, undefined when
   * never measured) and the browser checks the deployment runs at once. Absent: none.
   */
  readonly browser?: {
    readonly latenciesMs: readonly (number | undefined)[];
    readonly slots: number;
  };
}

/**
 * How long the search's own checks take through `concurrency` slots. Checks go
 * slowest first (check-order.ts), a platform never measured counting as a
 * typical answer: the slowest measured ones start at once and the rest fill the
 * other slots, so the search lasts its slowest measured platform or its work
 * spread over the slots, whichever is longer. A platform never measured may be
 * slow (UNMEASURED_SLOW_SHARE each, at the timeout): it starts once the
 * platforms ordered before it (measured slower than a typical answer, and the
 * other unmeasured) have had their waves, each wave a median answer.
 */
function slotsBoundMs(
  input: EstimateInput,
  measured: readonly number[],
  unmeasured: number,
  median: number,
): number {
  const slots = Math.max(1, input.concurrency);
  const unmeasuredMs = Math.min(input.defaultLatencyMs, input.timeoutMs);
  let workMs = unmeasured * unmeasuredMs;
  let slowestMeasured = 0;
  let ahead = 0;
  for (const ms of measured) {
    workMs += ms;
    if (ms > slowestMeasured) slowestMeasured = ms;
    if (ms > unmeasuredMs) ahead++;
  }
  let unmeasuredDoneMs = 0;
  if (unmeasured > 0) {
    const someTimeout = 1 - (1 - UNMEASURED_SLOW_SHARE) ** unmeasured;
    const startMs = (Math.ceil((ahead + unmeasured) / slots) - 1) * median;
    unmeasuredDoneMs = startMs + someTimeout * input.timeoutMs + (1 - someTimeout) * unmeasuredMs;
  }
  return Math.max(slowestMeasured, unmeasuredDoneMs, workMs / slots);
}

export function estimateSeconds(input: EstimateInput): number {
  if (input.latenciesMs.length === 0) return 1;
  const measured: number[] = [];
  let unmeasured = 0;
  for (const l of input.latenciesMs) {
    if (l === undefined) unmeasured += 1;
    else measured.push(Math.min(l, input.timeoutMs));
  }
  const typical = [
    ...measured,
    ...Array<number>(unmeasured).fill(Math.min(input.defaultLatencyMs, input.timeoutMs)),
  ];
  const median = typical.sort((a, b) => a - b)[Math.floor(typical.length / 2)]!;
  const searchMs = slotsBoundMs(input, measured, unmeasured, median);
  // What is not sent yet at each origin goes before this search's last request, and every
  // search queued ahead sends it as many as this one (the same platforms, as an estimate):
  // the busiest origin's budget sets when that goes, and a typical answer follows.
  const ahead = (o: EstimateInput['origins'][number]) =>
    (o.unsent ?? input.running * o.platforms) + (input.queuedAhead + 1) * o.platforms;
  const politeMs =
    Math.max(0, ...input.origins.map((o) => pacedMs(ahead(o), o.limit, input.identities))) + median;
  // Searches queued ahead run in rounds of maxRunning before this one starts.
  const rounds = Math.ceil(input.queuedAhead / Math.max(1, input.maxRunning));
  const slotsMs = (rounds + 1) * searchMs;
  // Browser checks go through few slots, shared with the searches running and queued ahead
  // (the same platforms, as an estimate): their work spread over those slots.
  let browserMs = 0;
  if (input.browser && input.browser.latenciesMs.length > 0) {
    let workMs = 0;
    for (const l of input.browser.latenciesMs)
      workMs += Math.min(l ?? input.defaultLatencyMs, input.timeoutMs);
    const searches = input.running + input.queuedAhead + 1;
    browserMs = (searches * workMs) / Math.max(1, input.browser.slots);
  }
  // The politeness bound already counts the queued searches' requests: not added to the rounds again.
  return Math.max(1, Math.ceil(Math.max(slotsMs, politeMs, browserMs) / 1000));
}
