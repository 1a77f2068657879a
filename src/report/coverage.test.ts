import { describe, expect, it } from 'vitest';
import {
  countReasons,
  countStatuses,
  coverageOf,
  coverageWarning,
  roundedShare,
  unansweredReasons,
} from './coverage.js';

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

describe('coverageWarning', () => {
  it('says how many answered and why the others did not, when coverage is low', () => {
    const outcomes = [
      ...Array.from({ length: 6 }, () => ({ status: 'miss' as const })),
      ...Array.from({ length: 900 }, () => ({ status: 'error' as const, reason: 'timeout' as const })),
      ...Array.from({ length: 85 }, () => ({ status: 'error' as const, reason: 'dns' as const })),
      { status: 'invalid' as const, reason: 'username_rule' as const },
    ];
    const coverage = coverageOf(countStatuses(outcomes), 50);
    expect(roundedShare(coverage)).toBe(0.006);
    expect(unansweredReasons(outcomes)).toEqual([
      ['timeout', 900],
      ['dns', 85],
    ]);
    expect(coverageWarning(coverage, unansweredReasons(outcomes))).toBe(
      'Only 6 of 991 platforms answered; 985 could not be reached or could not tell (timeout 900, dns 85). A missing hit on those proves nothing.',
    );
  });

  it('merges the reasons of unknown and error, and gives nothing when coverage is not low', () => {
    const outcomes = [
      { status: 'unknown' as const, reason: 'waf' as const },
      { status: 'error' as const, reason: 'timeout' as const },
      { status: 'unknown' as const, reason: 'waf' as const },
      { status: 'hit' as const },
    ];
    expect(unansweredReasons(outcomes)).toEqual([
      ['waf', 2],
      ['timeout', 1],
    ]);
    expect(coverageWarning(coverageOf(countStatuses(outcomes), 50), [])).toMatch(/^Only 1 of 4 platforms/);
    expect(coverageWarning(coverageOf(countStatuses(outcomes), 25), [])).toBeUndefined();
  });
});
