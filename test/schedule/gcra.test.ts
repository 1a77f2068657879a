import { describe, expect, it } from 'vitest';
import { earliestSlot, emissionIntervalMs, gcraReserve } from '../../src/schedule/gcra.js';

/** Sends `count` requests as early as the budget allows, from a fresh key; returns their send times. */
function sendTimes(count: number, intervalMs: number, burst: number, start = 1000): number[] {
  let tat = 0;
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const slot = gcraReserve(tat, start, intervalMs, burst, Number.POSITIVE_INFINITY)!;
    times.push(start + slot.waitMs);
    tat = slot.tat;
  }
  return times;
}

describe('gcraReserve', () => {
  it('lets a burst through at once, then one request per interval', () => {
    expect(sendTimes(6, 250, 3)).toEqual([1000, 1000, 1000, 1250, 1500, 1750]);
  });

  it('with a burst of 1 spaces every request one interval apart', () => {
    expect(sendTimes(3, 1000, 1)).toEqual([1000, 2000, 3000]);
  });

  it('never allows more than burst + rate × T requests in any window of T', () => {
    const times = sendTimes(40, 250, 4);
    for (const from of times) {
      const inWindow = times.filter((t) => t >= from && t < from + 1000).length;
      expect(inWindow).toBeLessThanOrEqual(4 + 4);
    }
  });

  it('refills while idle, up to the burst and no further', () => {
    // Two used at 0; by 10 s the bucket is full again: a burst of 3, not more.
    let tat = gcraReserve(0, 0, 500, 3, 0)!.tat;
    tat = gcraReserve(tat, 0, 500, 3, 0)!.tat;
    const waits: number[] = [];
    for (let i = 0; i < 4; i++) {
      const slot = gcraReserve(tat, 10_000, 500, 3, Number.POSITIVE_INFINITY)!;
      waits.push(slot.waitMs);
      tat = slot.tat;
    }
    expect(waits).toEqual([0, 0, 0, 500]);
  });

  it('refuses a slot further away than maxWaitMs and leaves the key unchanged', () => {
    const tat = 3000; // two intervals ahead with a burst of 1
    expect(gcraReserve(tat, 1000, 1000, 1, 1999)).toBeUndefined();
    expect(gcraReserve(tat, 1000, 1000, 1, 2000)).toEqual({ waitMs: 2000, tat: 4000 });
  });

  it('turns requests a second into an interval', () => {
    expect(emissionIntervalMs({ perSecond: 4, burst: 1 })).toBe(250);
    expect(emissionIntervalMs({ perSecond: 0.5, burst: 1 })).toBe(2000);
  });
});

describe('earliestSlot', () => {
  it('takes the soonest slot, then the least used key, and -1 when there is none', () => {
    expect(
      earliestSlot([
        { waitMs: 100, tat: 1 },
        { waitMs: 0, tat: 9 },
      ]),
    ).toBe(1);
    expect(
      earliestSlot([
        { waitMs: 0, tat: 9 },
        { waitMs: 0, tat: 5 },
      ]),
    ).toBe(1);
    expect(earliestSlot([undefined, { waitMs: 50, tat: 5 }])).toBe(1);
    expect(earliestSlot([undefined, undefined])).toBe(-1);
  });

  it('among equally soon slots takes one of its own before a less used one, never a later one', () => {
    const slots = [
      { waitMs: 0, tat: 5 },
      { waitMs: 0, tat: 9 },
      { waitMs: 0, tat: 7 },
    ];
    expect(earliestSlot(slots, (i) => i === 1)).toBe(1);
    expect(earliestSlot(slots, (i) => i === 1 || i === 2)).toBe(2);
    expect(
      earliestSlot(
        [
          { waitMs: 0, tat: 9 },
          { waitMs: 10, tat: 1 },
        ],
        (i) => i === 1,
      ),
    ).toBe(0);
  });
});
