/**
 * A check's send time, booked through the scheduler (src/schedule/scheduler.ts): the check
 * goes on at that time through the identity the time came through, which it keeps for its
 * retries and its control; a check given no send time within its deadline is not sent.
 */
import type { Dispatcher } from 'undici';
import { DEFAULT_IDENTITY, type Scheduler } from '../../schedule/scheduler.js';
import type { BookCheck, Wrapper } from './dispatch.js';
import { budgetExhausted } from './unsent.js';

/** One way out to the network: its name keys its budgets, its dispatcher sends. */
export interface EgressRoute {
  readonly name: string;
  readonly dispatcher: Dispatcher;
}

export interface ScheduleOptions {
  readonly scheduler: Scheduler;
  /** The egress identities, in the scheduler's order. */
  readonly egress: readonly EgressRoute[];
  /** The wait for a send time may use the check's whole deadline; the send then has its own (ms). */
  readonly timeoutMs: number;
  /** false: a check that leaves no other check to its site closes its connection after the answer. */
  readonly keepIdleConnections: boolean;
}

export function schedule(options: ScheduleOptions): Wrapper {
  const { scheduler, egress, timeoutMs, keepIdleConnections } = options;
  return (next) => async (check) => {
    const { site, ceiling, signal } = check;
    const book: BookCheck = check.book ?? ((r) => scheduler.book(r));
    const scheduled = await book({
      site,
      ceiling,
      priority: check.priority,
      maxWaitMs: timeoutMs,
      cancel: check.cancel,
      run: async (identity) => {
        signal?.throwIfAborted();
        const route = egress[identity];
        return next({
          ...check,
          egress: {
            index: identity,
            name: route?.name ?? DEFAULT_IDENTITY,
            dispatcher: route?.dispatcher ?? check.egress.dispatcher,
            // A retry or a control is a request like any other: it waits for its own send time.
            slot: (maxWaitMs) => scheduler.pace(site, identity, ceiling, maxWaitMs, signal),
            // Asked at each request: a check queued meanwhile for this site keeps the connection.
            closeAfter: () => !keepIdleConnections && !scheduler.othersFor(site),
          },
        });
      },
    });
    return scheduled.sent
      ? scheduled.value
      : { outcome: budgetExhausted(check.platform, check.profileUrl, ceiling, scheduled.waitedMs) };
  };
}
