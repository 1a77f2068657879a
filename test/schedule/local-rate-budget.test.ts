import { describe, expect, it } from 'vitest';
import { LocalRateBudget } from '../../src/schedule/local-rate-budget.js';

const limit = { perSecond: 2, burst: 2 };

describe('LocalRateBudget', () => {
  it('hands out a burst, then slots one interval apart, by the injected clock', async () => {
    let now = 0;
    const budget = new LocalRateBudget(() => now);
    const waits: number[] = [];
    for (let i = 0; i < 4; i++) waits.push((await budget.reserve(['a'], limit, 10_000))!.waitMs);
    expect(waits).toEqual([0, 0, 500, 1000]);
    now = 5_000;
    expect(await budget.reserve(['a'], limit, 0)).toEqual({ index: 0, waitMs: 0 });
  });

  it('keeps one budget per key', async () => {
    const budget = new LocalRateBudget(() => 0);
    for (let i = 0; i < 2; i++) await budget.reserve(['a'], limit, 0);
    expect(await budget.reserve(['a'], limit, 0)).toBeUndefined();
    expect(await budget.reserve(['b'], limit, 0)).toEqual({ index: 0, waitMs: 0 });
  });

  it('puts a request on the key whose slot comes first, spreading equal ones', async () => {
    const budget = new LocalRateBudget(() => 0);
    const keys = ['o|id1', 'o|id2'];
    const picks: number[] = [];
    const waits: number[] = [];
    for (let i = 0; i < 6; i++) {
      const r = (await budget.reserve(keys, { perSecond: 1, burst: 1 }, 10_000))!;
      picks.push(r.index);
      waits.push(r.waitMs);
    }
    expect(picks).toEqual([0, 1, 0, 1, 0, 1]);
    expect(waits).toEqual([0, 0, 1000, 1000, 2000, 2000]);
  });

  it('reserves nothing when no key has a slot within maxWaitMs', async () => {
    const budget = new LocalRateBudget(() => 0);
    const strict = { perSecond: 1, burst: 1 };
    await budget.reserve(['a'], strict, 0);
    expect(await budget.reserve(['a'], strict, 999)).toBeUndefined();
    // The refusal took nothing: the next slot is still 1 s away, not 2 s.
    expect(await budget.reserve(['a'], strict, 1000)).toEqual({ index: 0, waitMs: 1000 });
  });

  it('forgets keys whose budget is full again once many are tracked', async () => {
    let now = 0;
    const budget = new LocalRateBudget(() => now);
    for (let i = 0; i < 5000; i++) await budget.reserve([`k${i}`], limit, 0);
    expect(budget.size).toBe(5000);
    now = 10_000;
    await budget.reserve(['fresh'], limit, 0);
    expect(budget.size).toBe(1);
  });
});
