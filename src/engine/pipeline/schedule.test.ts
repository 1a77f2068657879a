import type { Dispatcher } from 'undici';
import { describe, expect, it } from 'vitest';
import { catalogueOf, entry } from '../../../test/support/catalogue.js';
import { checkOf } from '../../../test/support/check.js';
import { outcomeOf } from '../../../test/support/outcome.js';
import type { CheckBooking, Scheduled, Scheduler } from '../../schedule/scheduler.js';
import type { BookCheck, Check, Dispatch } from './dispatch.js';
import { schedule } from './schedule.js';

const [platform] = catalogueOf([entry('Alpha')]).platforms;
const routes = [
  { name: 'a', dispatcher: { id: 'a' } as unknown as Dispatcher },
  { name: 'b', dispatcher: { id: 'b' } as unknown as Dispatcher },
];

/** A scheduler whose paces are recorded and granted, with `others` checks to each site. */
function fakeScheduler(others: boolean) {
  const paced: unknown[][] = [];
  const scheduler = {
    book: () => Promise.reject(new Error('booked through the check')),
    pace: async (...args: unknown[]) => {
      paced.push(args);
      return true;
    },
    othersFor: () => others,
  } as unknown as Scheduler;
  return { scheduler, paced };
}

describe('the schedule step', () => {
  it('books the send time with its site, ceiling, priority and deadline, and goes on through its identity', async () => {
    const { scheduler, paced } = fakeScheduler(false);
    const bookings: CheckBooking<unknown>[] = [];
    const book: BookCheck = async <T>(request: CheckBooking<T>): Promise<Scheduled<T>> => {
      bookings.push(request as CheckBooking<unknown>);
      return { sent: true, value: await request.run(1) };
    };
    const cancel = {};
    const check = checkOf(platform!, 'alice', { book, cancel, priority: 2 });
    let seen: Check | undefined;
    const next: Dispatch = async (c) => {
      seen = c;
      return { outcome: outcomeOf('alpha', 'miss') };
    };
    const step = schedule({ scheduler, egress: routes, timeoutMs: 4_000, keepIdleConnections: false })(next);
    expect((await step(check)).outcome.status).toBe('miss');
    expect(bookings).toHaveLength(1);
    expect(bookings[0]).toMatchObject({
      site: check.site,
      ceiling: check.ceiling,
      priority: 2,
      maxWaitMs: 4_000,
      cancel,
    });
    expect(seen?.egress).toMatchObject({ index: 1, name: 'b', dispatcher: routes[1]!.dispatcher });
    // Its retries and control wait for send times through the same identity, within the same budget.
    expect(await seen?.egress.slot?.(1_500)).toBe(true);
    expect(paced).toEqual([[check.site, 1, check.ceiling, 1_500, undefined]]);
    // Alone at its site, with idle connections not kept: its connection closes after the answer.
    expect(seen?.egress.closeAfter?.()).toBe(true);
  });

  it('reads budget_exhausted, sending nothing, when no send time came within its deadline', async () => {
    const { scheduler } = fakeScheduler(true);
    const book: BookCheck = async () => ({ sent: false, waitedMs: 4_000 });
    let sent = 0;
    const step = schedule({ scheduler, egress: routes, timeoutMs: 4_000, keepIdleConnections: true })(
      async () => {
        sent++;
        return { outcome: outcomeOf('alpha', 'miss') };
      },
    );
    const { outcome } = await step(checkOf(platform!, 'alice', { book }));
    expect(sent).toBe(0);
    expect(outcome).toMatchObject({ status: 'unknown', reason: 'budget_exhausted' });
    expect(outcome.evidence.rule).toBe(
      'not sent: the local request budget for this origin (1/s, burst 1, per egress identity) had no free slot within the deadline (waited 4000 ms)',
    );
  });

  it('does not send a check whose engine closed while it waited', async () => {
    const { scheduler } = fakeScheduler(false);
    const closing = new AbortController();
    const book: BookCheck = async <T>(request: CheckBooking<T>): Promise<Scheduled<T>> => {
      closing.abort(new Error('engine closed'));
      return { sent: true, value: await request.run(0) };
    };
    let sent = 0;
    const step = schedule({ scheduler, egress: routes, timeoutMs: 4_000, keepIdleConnections: true })(
      async () => {
        sent++;
        return { outcome: outcomeOf('alpha', 'miss') };
      },
    );
    await expect(step(checkOf(platform!, 'alice', { book, signal: closing.signal }))).rejects.toThrow(
      'engine closed',
    );
    expect(sent).toBe(0);
  });
});
