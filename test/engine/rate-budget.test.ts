/**
 * The GCRA step on a clock of the test's own, and the process-local budget
 * against the rate-budget contract (the Redis budget runs the same contract in
 * test/cluster/rate-budget.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { gcraReserve } from '../../src/engine/gcra.js';
import { LocalRateBudget } from '../../src/engine/local-budget.js';
import { describeRateBudgetContract } from '../rate-budget.contract.js';

describe('gcraReserve', () => {
  const limit = { perSecond: 4, burst: 2 }; // 250 ms apart, 2 at once

  it('allows a burst, then one request per interval', () => {
    let tat: number | undefined;
    const waits: number[] = [];
    for (let i = 0; i < 5; i++) {
      const slot = gcraReserve([tat], 1_000, limit, 10_000)!;
      waits.push(slot.waitMs);
      tat = slot.tat;
    }
    expect(waits).toEqual([0, 0, 250, 500, 750]);
    expect(tat).toBe(2_250);
  });

  it('refills as time passes, never beyond the burst', () => {
    // Idle for a long time: the stored TAT is far in the past, worth only the burst.
    expect(gcraReserve([0], 100_000, limit, 0)).toEqual({ index: 0, waitMs: 0, tat: 100_250 });
    expect(gcraReserve([100_250], 100_000, limit, 0)).toEqual({ index: 0, waitMs: 0, tat: 100_500 });
    expect(gcraReserve([100_500], 100_000, limit, 0)).toBeUndefined();
    expect(gcraReserve([100_500], 100_100, limit, 150)).toEqual({ index: 0, waitMs: 150, tat: 100_750 });
  });

  it('picks the key whose slot comes first, the first of equals', () => {
    expect(gcraReserve([2_000, 1_500, 1_500], 1_000, limit, 10_000)).toEqual({
      index: 1,
      waitMs: 250,
      tat: 1_750,
    });
    expect(gcraReserve([undefined, undefined], 1_000, limit, 0)?.index).toBe(0);
  });

  it('refuses past the longest wait, and when there is no key', () => {
    expect(gcraReserve([3_000], 1_000, limit, 1_749)).toBeUndefined();
    expect(gcraReserve([3_000], 1_000, limit, 1_750)?.waitMs).toBe(1_750);
    expect(gcraReserve([], 1_000, limit, 10_000)).toBeUndefined();
  });

  it('rounds fractional intervals up to whole milliseconds of wait', () => {
    const slot = gcraReserve([1_000 + 1000 / 3], 1_000, { perSecond: 3, burst: 1 }, 10_000);
    expect(slot?.waitMs).toBe(334);
  });
});

describe('LocalRateBudget', () => {
  describeRateBudgetContract(() => new LocalRateBudget());

  it('drops keys whose slots have passed once it holds many', async () => {
    let now = 0;
    const budget = new LocalRateBudget(() => now);
    const limit = { perSecond: 10, burst: 1 };
    for (let i = 0; i < 5_000; i++) await budget.reserve([`k${i}`], limit, 0);
    expect(budget.size).toBe(5_000);
    now = 1_000;
    await budget.reserve(['late'], limit, 0);
    expect(budget.size).toBe(1);
  });
});
