import { describe, expect, it } from 'vitest';
import { PlatformHealth } from '../../src/catalogue/health.js';
import {
  countVerdicts,
  describeProbe,
  judgePlatform,
  probeReading,
  type SelfCheckProbe,
  selfCheckNames,
  selfCheckPlan,
  updateHealthFile,
} from '../../src/catalogue/self-check.js';
import type { Outcome, OutcomeReason, OutcomeStatus } from '../../src/engine/verdict/outcome.js';
import { catalogueOf, entry } from '../support/catalogue.js';

const platform = catalogueOf([
  entry('Alpha', { known: { claimed: ['alice', 'al'], unclaimed: ['nobody-here-7', 'x'] } }),
]).platforms[0]!;

function outcome(status: OutcomeStatus, reason?: OutcomeReason, httpStatus?: number, rule = 'rule'): Outcome {
  return {
    platform: platform.name,
    platformId: platform.id,
    category: platform.category,
    url: 'https://alpha.test/u/alice',
    status,
    ...(reason ? { reason } : {}),
    responseTime: 12,
    evidence: {
      ...(httpStatus === undefined ? {} : { httpStatus, finalUrl: 'https://alpha.test/u/alice' }),
      rule,
      attempts: 1,
    },
  };
}

const claimed = (o: Outcome): SelfCheckProbe => ({ username: 'alice', expected: 'hit', outcome: o });
const unclaimed = (o: Outcome): SelfCheckProbe => ({
  username: 'nobody-here-7',
  expected: 'miss',
  outcome: o,
});

describe('self-check names', () => {
  it('uses the first known claimed account and the first unclaimed name', () => {
    expect(selfCheckNames(platform)).toEqual({ claimed: 'alice', unclaimed: 'nobody-here-7' });
  });
});

describe('self-check plan', () => {
  it('expects a miss of the unclaimed name, or unknown/no_miss_rule on a hit-only entry', () => {
    const hitOnly = catalogueOf([
      entry('Marks', { detect: { exists: [{ status: [200] }, { text: 'class="mark"' }], missing: [] } }),
    ]).platforms[0]!;
    expect(selfCheckPlan(platform)).toEqual([
      { username: 'alice', expected: 'hit' },
      { username: 'nobody-here-7', expected: 'miss' },
    ]);
    expect(selfCheckPlan(hitOnly)).toEqual([
      { username: 'alice', expected: 'hit' },
      { username: 'nobody-here-7', expected: 'unknown' },
    ]);
  });
});

describe('probeReading', () => {
  it.each([
    ['hit', 'hit', undefined, 'right'],
    ['miss', 'miss', undefined, 'right'],
    ['hit', 'miss', undefined, 'wrong'],
    ['miss', 'hit', undefined, 'wrong'],
    ['hit', 'unknown', 'unexpected_response', 'wrong'],
    ['hit', 'invalid', 'username_rule', 'wrong'],
    ['hit', 'unknown', 'waf', 'untold'],
    ['hit', 'unknown', 'captcha', 'untold'],
    ['miss', 'unknown', 'rate_limited', 'untold'],
    ['hit', 'error', 'timeout', 'untold'],
    ['miss', 'error', 'connection', 'untold'],
    ['hit', 'error', 'dns', 'untold'],
    ['hit', 'error', 'tls', 'untold'],
    ['hit', 'error', 'internal', 'untold'],
    // A hit-only entry: its unclaimed name reads unknown/no_miss_rule, and only that is right.
    ['unknown', 'unknown', 'no_miss_rule', 'right'],
    ['unknown', 'hit', undefined, 'wrong'],
    ['unknown', 'unknown', 'rule_drift', 'wrong'],
    ['unknown', 'unknown', 'unexpected_response', 'wrong'],
    ['unknown', 'unknown', 'waf', 'untold'],
    ['unknown', 'error', 'timeout', 'untold'],
    ['hit', 'unknown', 'no_miss_rule', 'wrong'],
  ] as const)('expected %s, got %s/%s: %s', (expected, status, reason, reading) => {
    expect(probeReading({ username: 'alice', expected, outcome: outcome(status, reason) })).toBe(reading);
  });
});

describe('judgePlatform', () => {
  const at = Date.UTC(2026, 0, 2, 3, 4, 5);

  it('is healthy when the claimed account is a hit and the unclaimed name a miss', () => {
    const v = judgePlatform(platform, [claimed(outcome('hit')), unclaimed(outcome('miss'))], at);
    expect(v).toMatchObject({ platform: 'Alpha', platformId: 'alpha', verdict: 'healthy', validatedAt: at });
    expect(v.reason).toBeUndefined();
  });

  it('is broken when the site changed its markup: both names give the same page', () => {
    const v = judgePlatform(
      platform,
      [
        claimed(outcome('unknown', 'unexpected_response', 200, 'no rule matched')),
        unclaimed(outcome('unknown', 'unexpected_response', 200, 'no rule matched')),
      ],
      at,
    );
    expect(v.verdict).toBe('broken');
    expect(v.reason).toBe(
      'claimed "alice": expected hit, got unknown/unexpected_response (HTTP 200, https://alpha.test/u/alice, no rule matched); ' +
        'unclaimed "nobody-here-7": expected miss, got unknown/unexpected_response (HTTP 200, https://alpha.test/u/alice, no rule matched)',
    );
  });

  it('is broken when a soft-404 makes the unclaimed name a hit, naming only the wrong probe', () => {
    const v = judgePlatform(
      platform,
      [
        claimed(outcome('hit', undefined, 200)),
        unclaimed(outcome('hit', undefined, 200, 'exists: status 200')),
      ],
      at,
    );
    expect(v.verdict).toBe('broken');
    expect(v.reason).toBe(
      'unclaimed "nobody-here-7": expected miss, got hit (HTTP 200, https://alpha.test/u/alice, exists: status 200)',
    );
  });

  it('is broken when one probe is wrong even if the other could not tell', () => {
    const v = judgePlatform(
      platform,
      [claimed(outcome('unknown', 'waf', 403)), unclaimed(outcome('hit', undefined, 200))],
      at,
    );
    expect(v.verdict).toBe('broken');
    expect(v.reason).toContain('unclaimed "nobody-here-7": expected miss, got hit');
    expect(v.reason).not.toContain('waf');
  });

  it.each([
    ['a bot shield', outcome('unknown', 'waf', 403, 'shield: cloudflare-challenge'), 'unknown/waf'],
    ['a rate limit', outcome('unknown', 'rate_limited', 429), 'unknown/rate_limited'],
    ['a timeout', outcome('error', 'timeout', undefined, 'no answer within 1000 ms'), 'error/timeout'],
  ])('is blocked when %s hides the answer', (_label, o, got) => {
    const v = judgePlatform(platform, [claimed(o), unclaimed(outcome('miss'))], at);
    expect(v.verdict).toBe('blocked');
    expect(v.reason).toContain(`claimed "alice": expected hit, got ${got}`);
  });

  it('is healthy when a hit-only entry reads its unclaimed name unknown/no_miss_rule, and broken when it reads a hit', () => {
    const notAHit = (o: Outcome): SelfCheckProbe => ({
      username: 'nobody-here-7',
      expected: 'unknown',
      outcome: o,
    });
    const rule = 'hit-only: not a hit, and no rule tells a missing account (status 200)';
    expect(
      judgePlatform(
        platform,
        [claimed(outcome('hit')), notAHit(outcome('unknown', 'no_miss_rule', 200, rule))],
        at,
      ).verdict,
    ).toBe('healthy');
    const broken = judgePlatform(
      platform,
      [claimed(outcome('hit')), notAHit(outcome('hit', undefined, 200, 'exists: status 200'))],
      at,
    );
    expect(broken.verdict).toBe('broken');
    expect(broken.reason).toBe(
      'unclaimed "nobody-here-7": expected unknown/no_miss_rule, got hit (HTTP 200, https://alpha.test/u/alice, exists: status 200)',
    );
    const blocked = judgePlatform(
      platform,
      [claimed(outcome('hit')), notAHit(outcome('unknown', 'waf', 403))],
      at,
    );
    expect(blocked.verdict).toBe('blocked');
  });

  it('describes a probe without the evidence it lacks', () => {
    expect(describeProbe(claimed(outcome('error', 'connection', undefined, 'connection refused')))).toBe(
      'claimed "alice": expected hit, got error/connection (connection refused)',
    );
  });

  it('counts verdicts', () => {
    const healthy = judgePlatform(platform, [claimed(outcome('hit')), unclaimed(outcome('miss'))], at);
    const broken = judgePlatform(platform, [claimed(outcome('miss')), unclaimed(outcome('miss'))], at);
    expect(countVerdicts([healthy, broken, broken])).toEqual({ healthy: 1, broken: 2, blocked: 0 });
  });
});

describe('updateHealthFile', () => {
  const verdict = (id: string, kind: 'healthy' | 'broken', at: number) => ({
    platform: id,
    platformId: id,
    category: 'social',
    verdict: kind,
    ...(kind === 'broken' ? { reason: `${id} changed` } : {}),
    probes: [],
    validatedAt: at,
  });

  it('replaces the platforms checked now and keeps the others', () => {
    const previous = {
      generatedAt: 1,
      platforms: {
        beta: { verdict: 'broken' as const, reason: 'old', validatedAt: 1 },
        alpha: { verdict: 'healthy' as const, validatedAt: 1 },
      },
    };
    const file = updateHealthFile(
      previous,
      [verdict('beta', 'healthy', 5), verdict('gamma', 'broken', 6)],
      7,
    );
    expect(file).toEqual({
      generatedAt: 7,
      platforms: {
        alpha: { verdict: 'healthy', validatedAt: 1 },
        beta: { verdict: 'healthy', validatedAt: 5 },
        gamma: { verdict: 'broken', reason: 'gamma changed', validatedAt: 6 },
      },
    });
    // What the service makes of it: only the broken platform is left out.
    const health = new PlatformHealth(file);
    expect([...health.unhealthyIds()]).toEqual(['gamma']);
    expect(health.get('beta')).toEqual({ verdict: 'healthy', validatedAt: 5 });
  });

  it('starts a new file when there is none', () => {
    expect(updateHealthFile(undefined, [verdict('alpha', 'healthy', 2)], 3)).toEqual({
      generatedAt: 3,
      platforms: { alpha: { verdict: 'healthy', validatedAt: 2 } },
    });
  });
});
