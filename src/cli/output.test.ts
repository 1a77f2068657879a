import { describe, expect, it } from 'vitest';
import { countStatuses, coverageOf } from '../engine/coverage.js';
import type { Outcome, OutcomeReason, OutcomeStatus } from '../engine/outcome.js';
import { formatCoverageWarning, formatSummary, type SearchReport } from './output.js';

function outcome(status: OutcomeStatus, reason?: OutcomeReason): Outcome {
  return {
    platform: 'P',
    platformId: 'p',
    category: 'social',
    url: 'https://p.test/u/alice',
    status,
    ...(reason ? { reason } : {}),
    responseTime: 10,
    evidence: { rule: 'r', attempts: 1 },
  };
}

function report(results: Outcome[]): SearchReport {
  return {
    id: 'x',
    username: 'alice',
    status: 'completed',
    totalPlatforms: results.length,
    results,
    startedAt: 0,
    finishedAt: 10_240,
  };
}

describe('the summary of a name', () => {
  it('says "no hits" only of the platforms that answered, and what became of the others', () => {
    const r = report([
      ...Array.from({ length: 6 }, () => outcome('miss')),
      ...Array.from({ length: 900 }, () => outcome('error', 'timeout')),
      ...Array.from({ length: 85 }, () => outcome('error', 'dns')),
      outcome('unknown', 'waf'),
      outcome('invalid', 'username_rule'),
    ]);
    const coverage = coverageOf(countStatuses(r.results), 50);
    expect(formatSummary(r)).toBe(
      'alice: no hits among the 6 platforms that answered; 985 could not be reached (timeout 900, dns 85); 1 answered without telling (waf 1); 1 not checked (username_rule 1); 993 platforms in 10.2 s',
    );
    expect(formatCoverageWarning(r, coverage)).toBe(
      'alice: warning: Only 6 of 992 platforms answered; 986 could not be reached or could not tell (timeout 900, dns 85, waf 1). A missing hit on those proves nothing.',
    );
  });

  it('has no warning when enough answered', () => {
    const r = report([outcome('hit'), outcome('miss'), outcome('error', 'tls')]);
    const coverage = coverageOf(countStatuses(r.results), 50);
    expect(formatSummary(r)).toBe(
      'alice: 1 hit among the 2 platforms that answered; 1 could not be reached (tls 1); 3 platforms in 10.2 s',
    );
    expect(formatCoverageWarning(r, coverage)).toBeUndefined();
  });
});
