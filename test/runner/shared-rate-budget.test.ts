/**
 * The search threads' request budget in shared memory: the rate-budget
 * contract, one budget kept by two instances on one buffer (as two threads
 * hold it), and a table that takes over the slots of refilled keys and
 * refuses, reserving nothing, when every slot is still busy.
 */
import { describe, expect, it } from 'vitest';
import { SharedRateBudget } from '../../src/runner/shared-rate-budget.js';
import {
  describeRateBudgetContract,
  expectWithinBudget,
  type Reserved,
  reserveTimed,
  uniqueKey,
} from '../rate-budget.contract.js';

describe('SharedRateBudget', () => {
  describeRateBudgetContract(() => new SharedRateBudget(SharedRateBudget.createBuffer()));

  it('holds one budget for two instances on one buffer (two threads)', async () => {
    const limit = { perSecond: 5, burst: 2 };
    const key = uniqueKey('shared');
    const buffer = SharedRateBudget.createBuffer();
    const threads = [new SharedRateBudget(buffer), new SharedRateBudget(buffer)];
    const reserved: Reserved[] = [];
    await Promise.all(
      threads.map(async (budget) => {
        for (let i = 0; i < 8; i++) reserved.push(await reserveTimed(budget, [key], limit));
      }),
    );
    expect(reserved).toHaveLength(16);
    // Together they get the schedule of one budget: the 16th slot is 14 intervals out.
    expectWithinBudget(reserved, limit);
    expect(Math.max(...reserved.map((r) => r.slot.waitMs))).toBeGreaterThan(14 * 200 - 1_000);
  });

  it('reuses the slots of keys whose bucket has refilled, and refuses while every slot is busy', async () => {
    let now = 1_000;
    const buffer = SharedRateBudget.createBuffer(16); // 64 slots
    const budget = new SharedRateBudget(buffer, { index: 0, of: 1 }, () => now);
    const limit = { perSecond: 1, burst: 1 };
    const keys = Array.from({ length: 64 }, (_, i) => `https://k${i}.test|id0`);
    for (const key of keys) expect(await budget.reserve([key], limit, 0)).toEqual({ index: 0, waitMs: 0 });
    // Every slot holds a key whose next send is a second out: a new key cannot be noted.
    expect(await budget.reserve(['https://new.test|id0'], limit, 60_000)).toBeUndefined();
    // A key already held is still served, its slot an interval out.
    expect(await budget.reserve([keys[5]!], limit, 60_000)).toEqual({ index: 0, waitMs: 1_000 });
    now += 1_000;
    // The others have refilled: a new key takes one of their slots, and a full burst again.
    expect(await budget.reserve(['https://new.test|id0'], limit, 0)).toEqual({ index: 0, waitMs: 0 });
    // keys[5] was reserved twice: its next slot is still a second out, its state kept.
    expect(await budget.reserve([keys[5]!], limit, 60_000)).toEqual({ index: 0, waitMs: 1_000 });
  });

  it('takes an identity of its own thread among equally soon ones, another only when it comes sooner', async () => {
    const buffer = SharedRateBudget.createBuffer();
    const first = new SharedRateBudget(buffer, { index: 0, of: 2 });
    const second = new SharedRateBudget(buffer, { index: 1, of: 2 });
    const limit = { perSecond: 0.1, burst: 1 }; // one slot every 10 s
    const keys = ['a', 'b', 'c', 'd'].map((label) => uniqueKey(`affinity-${label}`));
    expect(await second.reserve(keys, limit, 60_000)).toEqual({ index: 1, waitMs: 0 });
    expect(await first.reserve(keys, limit, 60_000)).toEqual({ index: 0, waitMs: 0 });
    expect(await second.reserve(keys, limit, 60_000)).toEqual({ index: 3, waitMs: 0 });
    // Its own two are busy: the first thread's free identity comes sooner.
    expect(await second.reserve(keys, limit, 60_000)).toEqual({ index: 2, waitMs: 0 });
    // None is free: the soonest, whoever's (the second thread's first one, 10 s after its slot).
    const next = await first.reserve(keys, limit, 60_000);
    expect(next?.index).toBe(1);
    expect(next?.waitMs).toBeGreaterThan(5_000);
  });
});
