import { describe, expect, it } from 'vitest';
import type { Outcome } from '../engine/verdict/outcome.js';
import { CHECK_SECONDS_BUCKETS, OutcomeTally } from './outcome-tally.js';

function outcome(
  o: Omit<Partial<Outcome>, 'evidence'> & { evidence?: Record<string, unknown> } = {},
): Outcome {
  return {
    platform: 'Alpha',
    platformId: 'alpha',
    category: 'social',
    url: 'https://alpha.test/u/sam',
    status: 'miss',
    responseTime: 100,
    ...o,
    evidence: { rule: 'r', attempts: 1, httpStatus: 404, ...o.evidence },
  } as Outcome;
}

describe('an outcome tally', () => {
  it('counts outcomes by status and reason, every pair counted at least once', () => {
    const tally = new OutcomeTally();
    tally.add(outcome({ status: 'hit' }));
    tally.add(outcome({ status: 'hit' }));
    tally.add(outcome({ status: 'unknown', reason: 'rate_limited' }));
    tally.add(outcome({ status: 'error', reason: 'timeout', evidence: { httpStatus: undefined } }));
    tally.add(outcome({ status: 'invalid', reason: 'unsafe_username', responseTime: 0 }));
    expect(tally.read().checks).toEqual([
      { status: 'hit', reason: '', count: 2 },
      { status: 'unknown', reason: 'rate_limited', count: 1 },
      { status: 'error', reason: 'timeout', count: 1 },
      { status: 'invalid', reason: 'unsafe_username', count: 1 },
    ]);
  });

  it('times what was sent now: not the invalid, not the cached; counts the transport of what was answered', () => {
    const tally = new OutcomeTally();
    tally.add(outcome({ responseTime: 50 })); // on the bound: in its bucket
    tally.add(outcome({ responseTime: 1500, evidence: { transport: 'browser' } }));
    tally.add(outcome({ responseTime: 60_000, evidence: { transport: 'impersonate' } })); // past the last bound
    tally.add(
      outcome({ status: 'error', reason: 'dns', responseTime: 200, evidence: { httpStatus: undefined } }),
    );
    tally.add(
      outcome({
        status: 'invalid',
        reason: 'username_rule',
        responseTime: 0,
        evidence: { httpStatus: undefined },
      }),
    );
    tally.add(outcome({ status: 'hit', responseTime: 30, evidence: { cachedAt: 5 } }));
    const { seconds, transports } = tally.read();
    expect(CHECK_SECONDS_BUCKETS).toEqual([0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 16]);
    expect(seconds.buckets).toEqual([1, 1, 2, 2, 2, 3, 3, 3, 3]);
    expect(seconds.count).toBe(4);
    expect(seconds.sum).toBeCloseTo(0.05 + 1.5 + 60 + 0.2, 9);
    expect(transports).toEqual({ http: 1, impersonate: 1, browser: 1 });
  });

  it('counts a reason or status this version does not know, under its status (or unknown) with no reason', () => {
    const tally = new OutcomeTally();
    tally.add(outcome({ status: 'unknown', reason: 'from_a_later_version' as Outcome['reason'] }));
    tally.add(outcome({ status: 'vanished' as Outcome['status'] }));
    tally.add(outcome({ responseTime: Number.NaN }));
    const { checks, seconds } = tally.read();
    expect(checks).toEqual([
      { status: 'miss', reason: '', count: 1 },
      { status: 'unknown', reason: '', count: 2 },
    ]);
    expect(seconds.count).toBe(3);
    // The NaN as no time; the others at 100 ms.
    expect(seconds.buckets.slice(0, 2)).toEqual([1, 3]);
  });

  it('is one count for tallies over one buffer (as the search threads and the API share it)', () => {
    const api = new OutcomeTally();
    const thread = new OutcomeTally(api.buffer);
    thread.add(outcome({ status: 'hit' }));
    api.add(outcome({ status: 'hit', responseTime: 3000 }));
    for (const tally of [api, thread]) {
      const reading = tally.read();
      expect(reading.checks).toEqual([{ status: 'hit', reason: '', count: 2 }]);
      expect(reading.seconds.count).toBe(2);
      expect(reading.transports.http).toBe(2);
    }
    expect(() => new OutcomeTally(new SharedArrayBuffer(8))).toThrow(RangeError);
  });
});
