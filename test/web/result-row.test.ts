import { describe, expect, it } from 'vitest';
import type { Outcome } from '../../src/engine/verdict/outcome.js';
import { evidenceItems } from '../../src/web/result-row.js';

const base: Outcome = {
  platform: 'GitPlace',
  platformId: 'gitplace',
  category: 'coding',
  url: 'https://gitplace.test/u/alice',
  status: 'hit',
  responseTime: 120,
  evidence: {
    rule: 'exists: status 200',
    httpStatus: 200,
    finalUrl: 'https://gitplace.test/u/alice',
    attempts: 2,
    bytesRead: 77,
    cachedAt: 5000,
  },
};

describe('evidenceItems', () => {
  it('lists the rule, status, final URL, attempts, bytes and when it was cached', () => {
    expect(evidenceItems(base, (ms) => `T${ms}`)).toEqual([
      ['Rule', 'exists: status 200'],
      ['HTTP status', '200'],
      ['Final URL', 'https://gitplace.test/u/alice'],
      ['Attempts', '2'],
      ['Bytes read', '77'],
      ['Cached', 'at T5000'],
    ]);
  });

  it('shows the marker that decided, in its context, and the control a hit was compared with', () => {
    const marked: Outcome = {
      ...base,
      evidence: {
        ...base.evidence,
        rule: 'exists: text "profile-card"',
        snippet: '<div class="[profile-card]">alice</div>',
        control: 'control "qz81" read miss (missing: status 404) at 2026-11-24T12:00:00.000Z',
      },
    };
    expect(evidenceItems(marked, String).slice(0, 3)).toEqual([
      ['Rule', 'exists: text "profile-card"'],
      ['Marker in the page', '<div class="[profile-card]">alice</div>'],
      ['Control check', 'control "qz81" read miss (missing: status 404) at 2026-11-24T12:00:00.000Z'],
    ]);
  });

  it('leaves out what a check without an answer does not have', () => {
    const none: Outcome = {
      ...base,
      status: 'error',
      reason: 'dns',
      evidence: { rule: 'ENOTFOUND', attempts: 1 },
    };
    expect(evidenceItems(none, String)).toEqual([
      ['Rule', 'ENOTFOUND'],
      ['Attempts', '1'],
      ['Cached', 'no, checked for this search'],
    ]);
  });
});
