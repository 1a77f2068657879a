import { describe, expect, it } from 'vitest';
import { EscalationBudget, isBotDefence, nextTransport } from './escalation.js';

describe('escalation', () => {
  it('escalates a shield block only, not a captcha or a rate limit', () => {
    expect(isBotDefence({ status: 'unknown', reason: 'waf' })).toBe(true);
    expect(isBotDefence({ status: 'unknown', reason: 'captcha' })).toBe(false);
    expect(isBotDefence({ status: 'unknown', reason: 'rate_limited' })).toBe(false);
    expect(isBotDefence({ status: 'miss' })).toBe(false);
  });

  it('goes to the next costlier transport that is usable', () => {
    const all = () => true;
    expect(nextTransport('http', all)).toBe('impersonate');
    expect(nextTransport('impersonate', all)).toBe('browser');
    expect(nextTransport('browser', all)).toBeUndefined();
    expect(nextTransport('impersonate', (t) => t !== 'browser')).toBeUndefined();
    expect(nextTransport('http', (t) => t === 'browser')).toBe('browser');
  });

  it('gives a search no more escalations than its budget', () => {
    const budget = new EscalationBudget(2);
    expect([budget.take(), budget.take(), budget.take()]).toEqual([true, true, false]);
    expect(new EscalationBudget(0).take()).toBe(false);
  });
});
