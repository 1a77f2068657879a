import { describe, expect, it } from 'vitest';
import type { Outcome, OutcomeReason } from '../../src/engine/verdict/outcome.js';
import { searchSummary, statusCountsOf } from '../../src/web/summary.js';

const outcome = (i: number, status: Outcome['status'], reason?: OutcomeReason): Outcome => ({
  platform: `P${i}`,
  platformId: `p${i}`,
  category: 'social',
  url: `https://p${i}.test/u/x`,
  status,
  ...(reason ? { reason } : {}),
  responseTime: 10,
  evidence: { rule: 'test', attempts: 1 },
});

/** 6 answer (0 hits), 900 time out, 85 do not resolve: the machine that cannot reach the sites. */
const offline = [
  ...Array.from({ length: 6 }, (_, i) => outcome(i, 'miss')),
  ...Array.from({ length: 900 }, (_, i) => outcome(100 + i, 'error', 'timeout')),
  ...Array.from({ length: 85 }, (_, i) => outcome(2000 + i, 'error', 'dns')),
];
const progress = { checked: 991, total: 991, hits: 0 };

describe('searchSummary', () => {
  it('counts no hits among those that answered, and names the others', () => {
    const summary = searchSummary({ progress, outcomes: offline, running: false });
    expect(summary.text).toBe(
      'No hits among the 6 platforms that answered; 985 could not be reached (timeout 900, dns 85).',
    );
    expect(summary.text).not.toMatch(/no platform/i);
    expect(summary.coverage).toMatchObject({ answered: 6, checked: 991 });
    // Without the API's coverage, nothing is marked low: that is the service's call.
    expect(summary.coverage.low).toBe(false);
    expect(summary.low).toBe(false);
  });

  it("is the hits and the API's warning, once, when the service marks the coverage low", () => {
    const warning = 'Only 6 of 991 platforms answered; 985 could not be reached or could not tell.';
    const summary = searchSummary({
      progress,
      outcomes: offline,
      running: false,
      api: { coverage: 0.006, warning },
    });
    expect(summary.coverage).toMatchObject({ answered: 6, checked: 991, share: 0.006, low: true });
    expect(summary.low).toBe(true);
    expect(summary.text).toBe(`No hits. ${warning}`);
    const oneHit = searchSummary({
      progress: { ...progress, hits: 1 },
      outcomes: [outcome(1, 'hit'), ...offline.slice(1)],
      running: false,
      api: { coverage: 0.006, warning },
    });
    expect(oneHit.text).toBe(`1 hit. ${warning}`);
  });

  it("prefers the API's counts, which cover outcomes the page has not received", () => {
    const counts = statusCountsOf(
      { checked: 10, total: 20, hits: 2, answered: 7, unknown: 1, errors: 1, invalid: 1 },
      [],
    );
    expect(counts).toEqual({ hit: 2, miss: 5, unknown: 1, error: 1, invalid: 1 });
    expect(
      statusCountsOf({ checked: 2, total: 2, hits: 1 }, [outcome(1, 'hit'), outcome(2, 'unknown', 'waf')]),
    ).toEqual({
      hit: 1,
      miss: 0,
      unknown: 1,
      error: 0,
      invalid: 0,
    });
  });

  it('words hits, unknowns and skipped platforms, and a running search', () => {
    const outcomes = [
      outcome(1, 'hit'),
      outcome(2, 'miss'),
      outcome(3, 'unknown', 'waf'),
      outcome(4, 'invalid', 'username_rule'),
    ];
    expect(searchSummary({ progress: { checked: 4, total: 9, hits: 1 }, outcomes, running: true }).text).toBe(
      'So far: 1 hit among the 2 platforms that answered; 1 answered without telling (waf 1); 1 not checked (username_rule 1).',
    );
    expect(
      searchSummary({ progress: { checked: 0, total: 9, hits: 0 }, outcomes: [], running: true }).text,
    ).toBe('Nothing checked yet.');
    expect(
      searchSummary({
        progress: { checked: 1, total: 1, hits: 0 },
        outcomes: [outcome(1, 'error', 'dns')],
        running: false,
      }).text,
    ).toBe('No platform answered; 1 could not be reached (dns 1).');
  });
});
