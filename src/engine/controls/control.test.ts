import { describe, expect, it } from 'vitest';
import { catalogueOf, entry } from '../../../test/support/catalogue.js';
import type { Outcome } from '../verdict/outcome.js';
import {
  type AnswerPrint,
  type ControlRecord,
  controlName,
  controlRecord,
  indistinguishable,
  judgeHit,
  pageTitle,
} from './control.js';

const T0 = Date.UTC(2026, 10, 24, 12, 0, 0);

function outcome(status: Outcome['status'], extra: Partial<Outcome> = {}): Outcome {
  return {
    platform: 'Alpha',
    platformId: 'alpha',
    category: 'social',
    url: 'https://alpha.test/u/sam',
    status,
    responseTime: 12,
    evidence: {
      rule: status === 'hit' ? 'exists: status 200' : 'missing: status 404',
      attempts: 1,
      httpStatus: 200,
    },
    ...extra,
  };
}

const page = (finalUrl: string, bodyLength = 5000, title: string | undefined = 'Alpha'): AnswerPrint => ({
  httpStatus: 200,
  finalUrl,
  bodyLength,
  ...(title === undefined ? {} : { title }),
});

/** The platform's control record after a control named `q` read `read` at `at`. */
function controlAfter(previous: ControlRecord | undefined, read: Outcome, at: number): ControlRecord {
  return controlRecord(previous, { outcome: read }, 'default', 'q', at);
}

function control(status: Outcome['status'], drift: boolean, answer?: AnswerPrint): ControlRecord {
  return {
    platformId: 'alpha',
    identity: 'default',
    username: 'qzwx0123',
    status,
    rule: status === 'hit' ? 'exists: status 200' : 'no rule matched (status 200)',
    ...(answer ? { answer } : {}),
    drift,
    checkedAt: T0,
  };
}

describe('answers told apart', () => {
  it('reads the title', () => {
    expect(pageTitle('<html><head><TITLE lang="en">  Sam \n on Alpha </TITLE>')).toBe('Sam on Alpha');
    expect(pageTitle('{"ok":true}')).toBeUndefined();
  });

  it('takes the same status, URL and title with lengths within the margin as the same page', () => {
    const a = page('https://alpha.test/welcome', 5000);
    expect(indistinguishable(a, page('https://alpha.test/welcome', 5060))).toBe(true);
    expect(indistinguishable(a, page('https://alpha.test/welcome', 5200))).toBe(false);
    expect(indistinguishable(a, page('https://alpha.test/u/sam', 5000))).toBe(false);
    expect(indistinguishable(a, page('https://alpha.test/welcome', 5000, 'Sam'))).toBe(false);
    expect(indistinguishable(a, { ...a, httpStatus: 404 })).toBe(false);
  });
});

describe('a hit after its control', () => {
  it('stands, naming the control, when the control read miss', () => {
    const judged = judgeHit(outcome('hit'), page('https://alpha.test/u/sam'), {
      ...control('miss', false, page('https://alpha.test/u/qzwx0123')),
      rule: 'missing: status 404',
    });
    expect(judged.status).toBe('hit');
    expect(judged.evidence.control).toBe(
      'control "qzwx0123" read miss (missing: status 404) at 2026-11-24T12:00:00.000Z',
    );
  });

  it('is unknown/rule_drift when the control read hit', () => {
    const judged = judgeHit(outcome('hit'), page('https://alpha.test/u/sam'), control('hit', true));
    expect(judged).toMatchObject({ status: 'unknown', reason: 'rule_drift' });
    expect(judged.evidence.rule).toMatch(/^rule drift: .*\(was exists: status 200\)$/);
    expect(judged.evidence.control).toMatch(/^control "qzwx0123" read hit/);
  });

  it('stays drifted after a control that could not tell, until one reads miss', () => {
    const drifted = control('hit', true);
    const untold = controlAfter(drifted, outcome('error', { reason: 'timeout' }), T0 + 1);
    expect(untold.drift).toBe(true);
    expect(judgeHit(outcome('hit'), undefined, untold).status).toBe('unknown');
    const recovered = controlAfter(untold, outcome('miss'), T0 + 2);
    expect(recovered.drift).toBe(false);
    expect(judgeHit(outcome('hit'), undefined, recovered).status).toBe('hit');
  });

  it("is demoted when its answer cannot be told from an undecided control's", () => {
    const same = page('https://alpha.test/welcome');
    const judged = judgeHit(
      outcome('hit'),
      same,
      control('unknown', false, page('https://alpha.test/welcome', 5010)),
    );
    expect(judged).toMatchObject({ status: 'unknown', reason: 'rule_drift' });
    expect(judged.evidence.rule).toMatch(/cannot be told from the control's/);
  });

  it('is not demoted for looking like a control its rule read as miss (one URL, a JSON flag apart)', () => {
    const api = page('https://alpha.test/api/check', 20, undefined);
    expect(
      judgeHit(outcome('hit'), api, { ...control('miss', false, api), rule: 'missing: json available' })
        .status,
    ).toBe('hit');
  });

  it("stands on a hit-only platform when the control read unknown/no_miss_rule, even on a page like the hit's", () => {
    const notAHit = {
      ...control('unknown', false, page('https://alpha.test/api/check', 20, undefined)),
      reason: 'no_miss_rule' as const,
      rule: 'hit-only: not a hit, and no rule tells a missing account (status 200)',
    };
    const judged = judgeHit(outcome('hit'), page('https://alpha.test/api/check', 24, undefined), notAHit);
    expect(judged.status).toBe('hit');
    expect(judged.evidence.control).toMatch(/^control "qzwx0123" read unknown\/no_miss_rule/);
  });

  it('on a hit-only platform, drifts when a control reads hit and recovers only when one reads unknown/no_miss_rule', () => {
    const drifted = controlAfter(undefined, outcome('hit'), T0);
    expect(drifted.drift).toBe(true);
    expect(judgeHit(outcome('hit'), undefined, drifted)).toMatchObject({
      status: 'unknown',
      reason: 'rule_drift',
    });
    const shielded = controlAfter(drifted, outcome('unknown', { reason: 'waf' }), T0 + 1);
    expect(shielded.drift).toBe(true);
    const recovered = controlAfter(shielded, outcome('unknown', { reason: 'no_miss_rule' }), T0 + 2);
    expect(recovered).toMatchObject({ drift: false, status: 'unknown', reason: 'no_miss_rule' });
    expect(judgeHit(outcome('hit'), undefined, recovered).status).toBe('hit');
  });

  it('leaves other outcomes, and hits without a control, as they are', () => {
    const miss = outcome('miss');
    expect(judgeHit(miss, undefined, control('hit', true))).toBe(miss);
    const hit = outcome('hit');
    expect(judgeHit(hit, undefined, undefined)).toBe(hit);
  });
});

describe('control names', () => {
  const random = (() => {
    let seed = 7;
    return () => {
      seed = (seed * 16807) % 2147483647;
      return seed / 2147483647;
    };
  })();

  it("fit the platform's username rule and are never a known account", () => {
    const catalogue = catalogueOf([
      entry('Plain'),
      entry('Short', {
        username: { pattern: '^[a-z]{3,6}$', maxLength: 6 },
        known: { claimed: ['alice'], unclaimed: ['nobody'] },
      }),
      entry('Digits', {
        username: { pattern: '^[0-9]+$' },
        known: { claimed: ['1234'], unclaimed: ['999999'] },
      }),
      entry('Odd', {
        username: { pattern: '^u-[a-f0-9]{8}$' },
        known: { claimed: ['u-0123abcd'], unclaimed: ['u-ffffffff'] },
      }),
    ]);
    for (const platform of catalogue.platforms) {
      for (let i = 0; i < 20; i++) {
        const name = controlName(platform, random)!;
        expect(name, platform.name).toBeDefined();
        if (platform.username.pattern) expect(name).toMatch(platform.username.pattern);
        expect(platform.known.claimed).not.toContain(name);
        expect([...name].length).toBeLessThanOrEqual(platform.username.maxLength);
      }
    }
  });
});
