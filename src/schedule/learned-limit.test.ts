import { describe, expect, it } from 'vitest';
import { currentRate, effectiveLimit, type LearnedLimit, learn, quietMs } from './learned-limit.js';

const CEILING = { perSecond: 4, burst: 2 };
const SETTINGS = { floor: 0.5, recoveryPerMinute: 0.6, ttlMs: 3_600_000 };
const T = 1_000_000;

describe('learn', () => {
  it('goes straight to the rate a policy states, within the ceiling and the floor', () => {
    expect(learn(undefined, { present: true, statedPerSecond: 2 }, CEILING, SETTINGS, T, T)).toEqual({
      perSecond: 2,
      stated: true,
      at: T,
      expiresAt: T + SETTINGS.ttlMs,
    });
    expect(
      learn(undefined, { present: true, statedPerSecond: 100 }, CEILING, SETTINGS, T, T)?.perSecond,
    ).toBe(4);
    expect(learn(undefined, { present: true, statedPerSecond: 0 }, CEILING, SETTINGS, T, T)?.perSecond).toBe(
      0.5,
    );
  });

  it('halves the rate without a stated one, down to the floor', () => {
    let learned: LearnedLimit | undefined;
    const rates: number[] = [];
    for (let i = 0; i < 5; i++) {
      const at = T + i * 1000;
      learned = learn(
        learned,
        { present: true, waitMs: 1000 },
        CEILING,
        { ...SETTINGS, recoveryPerMinute: 0 },
        at,
        at,
      );
      rates.push(learned!.perSecond);
    }
    expect(rates).toEqual([2, 1, 0.5, 0.5, 0.5]);
    expect(learned?.stated).toBe(false);
  });

  it('does not lower again for answers to requests sent before the last lesson', () => {
    const first = learn(undefined, { present: false }, CEILING, SETTINGS, T, T)!;
    expect(learn(first, { present: false }, CEILING, SETTINGS, T - 1, T + 500)).toBeUndefined();
    expect(learn(first, { present: false }, CEILING, SETTINGS, T + 1, T + 500)?.perSecond).toBeCloseTo(
      (2 + 0.6 * (500 / 60_000)) / 2,
    );
  });

  it('keeps the same stated rate as it is until half its time is gone', () => {
    const first = learn(undefined, { present: true, statedPerSecond: 2 }, CEILING, SETTINGS, T, T)!;
    expect(
      learn(first, { present: true, statedPerSecond: 2 }, CEILING, SETTINGS, T, T + 1000),
    ).toBeUndefined();
    const late = T + SETTINGS.ttlMs * 0.75;
    expect(
      learn(first, { present: true, statedPerSecond: 2 }, CEILING, SETTINGS, late, late)?.expiresAt,
    ).toBe(late + SETTINGS.ttlMs);
  });

  it('learns only a stated rate below the ceiling from an answer that went through', () => {
    const ok = (signals: Parameters<typeof learn>[1], known?: LearnedLimit) =>
      learn(known, signals, CEILING, SETTINGS, T, T, false);
    expect(ok({ present: true, statedPerSecond: 2 })?.perSecond).toBe(2);
    expect(ok({ present: true, statedPerSecond: 10 })).toBeUndefined();
    expect(ok({ present: true, waitMs: 1000 })).toBeUndefined();
    // A site that raised its limit: the stated rate moves up, within the ceiling.
    const known: LearnedLimit = { perSecond: 1, stated: true, at: T - 1000, expiresAt: T + 60_000 };
    expect(ok({ present: true, statedPerSecond: 10 }, known)?.perSecond).toBe(4);
  });

  it('starts again from the ceiling once a limit has expired', () => {
    const old: LearnedLimit = { perSecond: 0.5, stated: false, at: 0, expiresAt: T - 1 };
    expect(learn(old, { present: false }, CEILING, SETTINGS, T, T)?.perSecond).toBe(2);
  });
});

describe('effectiveLimit', () => {
  it('is the ceiling with nothing learned, or once it expired', () => {
    expect(effectiveLimit(undefined, CEILING, SETTINGS, T)).toBe(CEILING);
    const expired: LearnedLimit = { perSecond: 1, stated: true, at: 0, expiresAt: T };
    expect(effectiveLimit(expired, CEILING, SETTINGS, T)).toBe(CEILING);
  });

  it('sends one at a time within a learned limit', () => {
    const learned: LearnedLimit = { perSecond: 2, stated: true, at: T, expiresAt: T + 1000 };
    expect(effectiveLimit(learned, CEILING, SETTINGS, T + 500)).toEqual({ perSecond: 2, burst: 1 });
  });

  it('recovers a guessed limit additively, back to the ceiling, and holds a stated one', () => {
    const guessed: LearnedLimit = { perSecond: 1, stated: false, at: T, expiresAt: T + SETTINGS.ttlMs };
    expect(currentRate(guessed, 4, SETTINGS, T + 60_000)).toBeCloseTo(1.6);
    expect(effectiveLimit(guessed, CEILING, SETTINGS, T + 10 * 60_000)).toBe(CEILING);
    const stated = { ...guessed, stated: true };
    expect(currentRate(stated, 4, SETTINGS, T + 10 * 60_000)).toBe(1);
  });

  it('never goes below the floor', () => {
    const learned: LearnedLimit = { perSecond: 0.01, stated: true, at: T, expiresAt: T + 1000 };
    expect(effectiveLimit(learned, CEILING, SETTINGS, T).perSecond).toBe(0.5);
  });
});

describe('quiet periods', () => {
  it('holds every request until the wait the site asked for, the longest asked', () => {
    const first = learn(
      undefined,
      { present: true, waitMs: 2000, statedPerSecond: 2 },
      CEILING,
      SETTINGS,
      T,
      T,
    )!;
    expect(quietMs(first, T + 500)).toBe(1500);
    // The same rate again, with a longer wait: only the wait moves.
    const again = learn(
      first,
      { present: true, waitMs: 3000, statedPerSecond: 2 },
      CEILING,
      SETTINGS,
      T,
      T + 1000,
    )!;
    expect(again).toEqual({ ...first, quietUntil: T + 4000 });
    // A shorter one changes nothing.
    expect(
      learn(again, { present: true, waitMs: 100, statedPerSecond: 2 }, CEILING, SETTINGS, T, T + 1000),
    ).toBeUndefined();
    expect(quietMs(again, T + 5000)).toBe(0);
    expect(quietMs(undefined, T)).toBe(0);
  });
});
