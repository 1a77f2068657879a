import { describe, expect, it } from 'vitest';
import { countReasons, countStatuses, coverageOf } from './coverage.js';

describe('coverageOf', () => {
  it('counts hit and miss as answered, out of every platform a request was meant for', () => {
    const c = coverageOf({ hit: 0, miss: 6, unknown: 4, error: 985, invalid: 5 }, 50);
    expect(c).toEqual({ answered: 6, checked: 995, share: 6 / 995, low: true });
  });

  it('is not low at or above the threshold, nor when nothing was checked', () => {
    expect(coverageOf({ hit: 1, miss: 1, unknown: 0, error: 2, invalid: 0 }, 50).low).toBe(false);
    expect(coverageOf({ hit: 0, miss: 0, unknown: 0, error: 0, invalid: 3 }, 50)).toMatchObject({
      share: 1,
      low: false,
    });
    expect(coverageOf({ hit: 0, miss: 0, unknown: 0, error: 9, invalid: 0 }, 0).low).toBe(false);
  });
});

describe('countStatuses and countReasons', () => {
  it('count each status, and the reasons of one status, most frequent first', () => {
    const outcomes = [
      { status: 'error' as const, reason: 'dns' as const },
      { status: 'error' as const, reason: 'timeout' as const },
      { status: 'error' as const, reason: 'timeout' as const },
      { status: 'unknown' as const, reason: 'waf' as const },
      { status: 'hit' as const },
    ];
    expect(countStatuses(outcomes)).toEqual({ hit: 1, miss: 0, unknown: 1, error: 3, invalid: 0 });
    expect(countReasons(outcomes, 'error')).toEqual([
      ['timeout', 2],
      ['dns', 1],
    ]);
  });
});
