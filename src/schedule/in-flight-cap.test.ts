import { describe, expect, it } from 'vitest';
import { InFlightCap } from './in-flight-cap.js';

describe('InFlightCap', () => {
  it('serves the longest path first, then the higher priority among alike paths, then first come', () => {
    const cap = new InFlightCap(1);
    expect(cap.tryTake()).toBe(true);
    const served: string[] = [];
    const wait = (label: string, priority: number, pathMs: number) =>
      cap.wait(priority, pathMs, () => served.push(label));
    wait('quick free', 0, 100);
    wait('quick pro', 1, 300);
    wait('quick free 2', 0, 0);
    wait('slow free', 0, 10_000);
    wait('busy site free', 0, 20_000);
    wait('slow pro', 1, 9_000);
    expect(cap.tryTake()).toBe(false);
    for (let i = 0; i < 6; i++) cap.release();
    // 20 s reaches further than 9-10 s; 9 and 10 s are alike, so priority decides; so are 0-300 ms.
    expect(served).toEqual([
      'busy site free',
      'slow pro',
      'slow free',
      'quick pro',
      'quick free',
      'quick free 2',
    ]);
  });

  it('lets nobody take a slot past those waiting, and refuses a cap below one', () => {
    const cap = new InFlightCap(2);
    expect(cap.tryTake()).toBe(true);
    expect(cap.tryTake()).toBe(true);
    let granted = false;
    cap.wait(0, 0, () => {
      granted = true;
    });
    cap.release();
    expect(granted).toBe(true);
    expect(cap.tryTake()).toBe(false);
    expect(() => new InFlightCap(0)).toThrow(RangeError);
  });
});
