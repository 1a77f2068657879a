/**
 * The rules every RateBudget keeps (src/schedule/rate-budget.ts), as one suite:
 * `describeRateBudgetContract` runs it against a budget made per test, on the
 * real clock. Each test uses keys of its own, so a shared Redis needs no
 * cleanup between tests. Waits are checked against the GCRA bounds, allowing
 * for the time each call took (a slot lies within the call's round trip).
 */
import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import type { BudgetLimit, RateBudget, Reservation } from '../src/schedule/rate-budget.js';

/** One reservation and the local times around the call. */
export interface Reserved {
  readonly before: number;
  readonly after: number;
  readonly slot: Reservation;
}

/** Reserves on `keys` and records the call's start and end. */
export async function reserveTimed(
  budget: RateBudget,
  keys: readonly string[],
  limit: BudgetLimit,
  maxWaitMs = 60_000,
): Promise<Reserved> {
  const before = performance.now();
  const slot = await budget.reserve(keys, limit, maxWaitMs);
  const after = performance.now();
  if (!slot) throw new Error(`no slot on ${keys.join(',')} within ${maxWaitMs} ms`);
  return { before, after, slot };
}

/**
 * GCRA's promise for one key, whoever reserved: the j-th slot in time order is
 * at least (j - k - burst + 1) intervals after the k-th. Each slot is only
 * known within its call's round trip, so the latest it can be is compared
 * with the earliest the other can be (order statistics keep those bounds).
 */
export function expectWithinBudget(reserved: readonly Reserved[], limit: BudgetLimit): void {
  const interval = 1000 / limit.perSecond;
  const latest = reserved.map((r) => r.after + r.slot.waitMs).sort((a, b) => a - b);
  // waitMs is rounded up: the slot may be up to 1 ms before `before + waitMs`.
  const earliest = reserved.map((r) => r.before + r.slot.waitMs - 1).sort((a, b) => a - b);
  for (let k = 0; k < reserved.length; k++)
    for (let j = k + 1; j < reserved.length; j++) {
      const least = (j - k - limit.burst + 1) * interval;
      if (least > 0)
        expect(latest[j]! - earliest[k]!, `slot ${j} after slot ${k}`).toBeGreaterThanOrEqual(least);
    }
}

export function uniqueKey(label: string): string {
  return `https://${label}-${randomBytes(4).toString('hex')}.test|id0`;
}

export function describeRateBudgetContract(make: () => RateBudget): void {
  it('gives a burst at once, then one slot per interval, and is never slower than its rate', async () => {
    const budget = make();
    const limit = { perSecond: 5, burst: 3 };
    const key = uniqueKey('rate');
    const reserved: Reserved[] = [];
    for (let i = 0; i < 12; i++) reserved.push(await reserveTimed(budget, [key], limit));
    expect(reserved.slice(0, 3).map((r) => r.slot)).toEqual(
      [0, 0, 0].map((waitMs) => ({ index: 0, waitMs })),
    );
    expectWithinBudget(reserved, limit);
    // Never more than the schedule asks: the k-th waits at most (k - burst + 1) intervals.
    for (const [k, r] of reserved.entries())
      expect(r.slot.waitMs).toBeLessThanOrEqual(Math.max(0, k - 2) * 200 + 1);
  });

  it('picks the key (egress identity) whose slot comes first', async () => {
    const budget = make();
    const limit = { perSecond: 0.1, burst: 1 }; // one slot every 10 s
    const [a, b] = [uniqueKey('first-a'), uniqueKey('first-b')];
    expect(await budget.reserve([a, b], limit, 60_000)).toEqual({ index: 0, waitMs: 0 }); // ties: the first
    expect(await budget.reserve([a, b], limit, 60_000)).toEqual({ index: 1, waitMs: 0 }); // a is busy
    // Both busy, a since earlier: a's next slot (10 s after its first) comes first, in either order.
    const next = await budget.reserve([b, a], limit, 60_000);
    expect(next?.index).toBe(1);
    expect(next?.waitMs).toBeGreaterThan(5_000);
    expect(next?.waitMs).toBeLessThanOrEqual(10_000);
    const then = await budget.reserve([a, b], limit, 60_000);
    expect(then?.index).toBe(1); // a is now 20 s out, b 10 s
    expect(then?.waitMs).toBeLessThanOrEqual(10_000);
  });

  it('refuses when no slot comes within the longest wait, and then reserves nothing', async () => {
    const budget = make();
    const limit = { perSecond: 0.1, burst: 1 };
    const [a, b] = [uniqueKey('refuse-a'), uniqueKey('refuse-b')];
    await budget.reserve([a], limit, 0);
    await budget.reserve([b], limit, 0);
    expect(await budget.reserve([a, b], limit, 1_000)).toBeUndefined();
    expect(await budget.reserve([a], limit, 1_000)).toBeUndefined();
    // Had a refusal taken a slot, the next one would be 20 s out.
    const after = await budget.reserve([a], limit, 60_000);
    expect(after?.waitMs).toBeGreaterThan(5_000);
    expect(after?.waitMs).toBeLessThanOrEqual(10_000);
  });

  it('forgets a key once its slots have passed: a full burst again', async () => {
    const budget = make();
    const limit = { perSecond: 20, burst: 2 };
    const key = uniqueKey('idle');
    for (let i = 0; i < 4; i++) await budget.reserve([key], limit, 60_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await budget.reserve([key], limit, 60_000)).toEqual({ index: 0, waitMs: 0 });
    expect(await budget.reserve([key], limit, 60_000)).toEqual({ index: 0, waitMs: 0 });
  });
}
