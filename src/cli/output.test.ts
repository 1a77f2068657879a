import { describe, expect, it } from 'vitest';
import type { Outcome, OutcomeReason, OutcomeStatus } from '../engine/verdict/outcome.js';
import { countStatuses, coverageOf } from '../report/coverage.js';
import {
  formatCoverageWarning,
  formatCsv,
  formatHeading,
  formatHtml,
  formatJson,
  formatSummary,
  formatTable,
  type SearchReport,
} from './output.js';

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

describe('site text in every format', () => {
  // A snippet, a platform name and a URL as a hostile site or catalogue could write them.
  const hostile: Outcome = {
    ...outcome('hit'),
    platform: 'Evil\x1b[2J\u202eName',
    url: 'https://p.test/u/\x9b31malice',
    evidence: { rule: 'r', attempts: 1, snippet: 'found \x1b]8;;https://x.test\x07here\u2066\x00' },
  } as Outcome;
  const r = { ...report([hostile]), username: 'ali\u202ece' };
  const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

  it('prints no terminal control from the table, the heading, the summary or the HTML', () => {
    const table = formatTable(r, true);
    expect(table).not.toMatch(CONTROL);
    expect(table).toContain('Evil[2JName');
    expect(formatHeading(r.username)).toBe('== alice ==');
    expect(formatSummary(r)).not.toMatch(CONTROL);
    const [html = ''] = formatHtml([r], 50, undefined, 0);
    expect(html).not.toMatch(CONTROL);
    expect(html).toContain('here');
  });

  it('keeps JSON the same data, escaped, and CSV free of controls', () => {
    const json = formatJson([r], true, 50);
    expect(json).not.toMatch(CONTROL);
    expect(JSON.parse(json).results[0].platform).toBe(hostile.platform);
    expect(formatCsv([r], true)).not.toMatch(
      /[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/,
    );
  });
});
