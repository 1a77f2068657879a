/**
 * A clock for the scheduler's tests (src/schedule/clock.ts): time moves only when
 * the test fires the next timer, or stalls, as a blocked event loop does (timers
 * then fire late, all at once).
 */
export { seededRandom as seeded } from '../../src/sim/random.js';

import type { Clock } from '../../src/schedule/clock.js';

interface Timer {
  readonly at: number;
  readonly seq: number;
  readonly fn: () => void;
}

export class FakeClock implements Clock {
  #now = 0;
  #seq = 0;
  #timers: Timer[] = [];

  now(): number {
    return this.#now;
  }

  setTimer(fn: () => void, ms: number): unknown {
    const timer = { at: this.#now + Math.max(0, ms), seq: this.#seq++, fn };
    this.#timers.push(timer);
    return timer;
  }

  clearTimer(handle: unknown): void {
    this.#timers = this.#timers.filter((t) => t !== handle);
  }

  /** Timers not fired yet. */
  get pending(): number {
    return this.#timers.length;
  }

  /** Time passes without any timer firing (a stall of the event loop). */
  stall(ms: number): void {
    this.#now += ms;
  }

  /** Fires the earliest timer (late if a stall passed its time); false when none is set. */
  fireNext(): boolean {
    if (this.#timers.length === 0) return false;
    let first = 0;
    for (let i = 1; i < this.#timers.length; i++) {
      const t = this.#timers[i]!;
      const f = this.#timers[first]!;
      if (t.at < f.at || (t.at === f.at && t.seq < f.seq)) first = i;
    }
    const [timer] = this.#timers.splice(first, 1);
    this.#now = Math.max(this.#now, timer!.at);
    timer!.fn();
    return true;
  }
}

/** Lets every pending promise reaction run (the scheduler's awaits), the clock standing still. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Fires timers, letting reactions run between, until none is left (or `maxSteps`). */
export async function runOut(clock: FakeClock, maxSteps = 1_000_000, between?: () => void): Promise<void> {
  await settle();
  for (let step = 0; step < maxSteps; step++) {
    between?.();
    if (!clock.fireNext()) return;
    await settle();
  }
  throw new Error(`timers still set after ${maxSteps} steps`);
}
