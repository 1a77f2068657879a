import { describe, expect, it } from 'vitest';
import { readShieldsDocument } from '../catalogue/builtin.js';
import { normaliseShield } from '../catalogue/normalise.js';
import type { ShieldSpec } from '../catalogue/schema.js';
import {
  EscalationBudget,
  isBotDefence,
  lackingTransport,
  lackingVerdict,
  nextTransport,
  passesOnItsOwn,
  startTransport,
  transportLearned,
} from './escalation.js';
import type { ResponseView } from './verdict/response-view.js';

describe('escalation', () => {
  it('escalates a shield block only, not a captcha or a rate limit', () => {
    expect(isBotDefence({ status: 'unknown', reason: 'waf' })).toBe(true);
    expect(isBotDefence({ status: 'unknown', reason: 'captcha' })).toBe(false);
    expect(isBotDefence({ status: 'unknown', reason: 'rate_limited' })).toBe(false);
    expect(isBotDefence({ status: 'miss' })).toBe(false);
  });

  it("waits out a challenge whose page's script passes it, not a block page, a captcha (or a challenge showing one) or a refused handshake", () => {
    const shields = readShieldsDocument().map((spec) => normaliseShield(spec as ShieldSpec));
    const defence = { status: 'unknown' as const, reason: 'waf' as const };
    const view = (status: number, headers: Record<string, string>, body: string): ResponseView => ({
      status,
      headers,
      body: `<html><head>${body}</head><script>/* works, then reloads */</script></html>`,
      url: 'https://example.test/u/alice',
      redirected: false,
      complete: true,
    });
    const passing = {
      'cloudflare-mitigated': view(403, { 'cf-mitigated': 'challenge' }, '<title>Just a moment...</title>'),
      'cloudflare-challenge': view(503, { server: 'cloudflare' }, '<title>Just a moment...</title>'),
      'ddos-guard-page': view(403, {}, '<script src="https://check.ddos-guard.net/check.js"></script>'),
      'aws-waf-page': view(202, {}, '<script>AwsWafIntegration.checkForceRefresh()</script>'),
    };
    for (const [name, page] of Object.entries(passing))
      expect(passesOnItsOwn(defence, page, shields), name).toBe(true);
    const standing = {
      'cloudflare-block': view(
        403,
        {},
        '<title>Attention Required! | Cloudflare</title>Sorry, you have been blocked',
      ),
      akamai: view(403, { server: 'AkamaiGHost' }, 'Access Denied'),
      sucuri: view(403, {}, 'Sucuri WebSite Firewall'),
      'no shield': view(403, {}, 'Forbidden'),
      'a challenge showing a captcha': view(
        403,
        { 'cf-mitigated': 'challenge' },
        '<script src="https://challenges.cloudflare.com/turnstile/v0/api.js"></script>',
      ),
    };
    for (const [name, page] of Object.entries(standing))
      expect(passesOnItsOwn(defence, page, shields), name).toBe(false);
    // Only an answer read as a defence is waited out.
    const challenge = passing['cloudflare-mitigated'];
    expect(passesOnItsOwn({ status: 'unknown', reason: 'captcha' }, challenge, shields)).toBe(false);
    expect(passesOnItsOwn({ status: 'hit' }, challenge, shields)).toBe(false);
  });

  it('goes to the next costlier transport that is usable', () => {
    const all = () => true;
    expect(nextTransport('http', all)).toBe('impersonate');
    expect(nextTransport('impersonate', all)).toBe('browser');
    expect(nextTransport('browser', all)).toBeUndefined();
    expect(nextTransport('impersonate', (t) => t !== 'browser')).toBeUndefined();
    expect(nextTransport('http', (t) => t === 'browser')).toBe('browser');
  });

  it('names the transport a standing defence needs when this process lacks it, and only then', () => {
    const all = () => true;
    const noBrowser = (t: string) => (t === 'browser' ? 'no browser installed' : undefined);
    expect(lackingTransport('impersonate', all, noBrowser)).toEqual({
      transport: 'browser',
      why: 'no browser installed',
    });
    // impersonate is at hand: it is tried first, nothing is lacking yet.
    expect(lackingTransport('http', all, noBrowser)).toBeUndefined();
    expect(lackingTransport('impersonate', all, () => undefined)).toBeUndefined();
    // The browser would not fit the check (a header session): no transport is lacking.
    expect(lackingTransport('impersonate', (t) => t !== 'browser', noBrowser)).toBeUndefined();
    const verdict = lackingVerdict(
      { status: 'unknown', reason: 'waf', rule: 'shield: cloudflare-mitigated' },
      { transport: 'browser', why: 'no browser installed' },
    );
    expect(verdict).toEqual({
      status: 'unknown',
      reason: 'needs_browser',
      rule: 'shield: cloudflare-mitigated; not tried through browser: no browser installed',
    });
  });

  it('gives a search no more escalations than its budget', () => {
    const budget = new EscalationBudget(2);
    expect([budget.take(), budget.take(), budget.take()]).toEqual([true, true, false]);
    expect(new EscalationBudget(0).take()).toBe(false);
  });

  it("starts at the transport the site was found to need when it is costlier than the platform's", () => {
    expect(startTransport('http', undefined)).toBe('http');
    expect(startTransport('http', 'impersonate')).toBe('impersonate');
    expect(startTransport('impersonate', 'browser')).toBe('browser');
    expect(startTransport('browser', 'impersonate')).toBe('browser');
    expect(startTransport('impersonate', 'http')).toBe('impersonate');
  });

  it('learns the transport an escalation got a real answer through, nothing else', () => {
    expect(transportLearned('http', 'impersonate', { status: 'hit' })).toBe('impersonate');
    expect(transportLearned('impersonate', 'browser', { status: 'miss' })).toBe('browser');
    expect(transportLearned('http', 'impersonate', { status: 'unknown', reason: 'captcha' })).toBe(
      'impersonate',
    );
    // Still a defence after the escalation, or no escalation at all: nothing learned.
    expect(transportLearned('http', 'impersonate', { status: 'unknown', reason: 'waf' })).toBeUndefined();
    expect(transportLearned('impersonate', 'impersonate', { status: 'hit' })).toBeUndefined();
  });

  it('tells of each escalation taken, not of those refused', () => {
    let taken = 0;
    const budget = new EscalationBudget(1, () => taken++);
    budget.take();
    budget.take();
    expect(taken).toBe(1);
    expect(budget.size).toBe(1);
  });
});
