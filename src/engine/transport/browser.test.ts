import { describe, expect, it } from 'vitest';
import { browserRefusal, browserStartNotice } from './browser.js';

const platforms = (...transports: string[]) => transports.map((transport) => ({ transport }));

describe('the browser transport kept off by the settings', () => {
  it('refuses an extra CA it cannot be given, unless certificates are not checked at all', () => {
    expect(browserRefusal({ extraCa: true, insecure: false })?.code).toBe('transport_unavailable');
    expect(browserRefusal({ extraCa: true, insecure: true })).toBeUndefined();
    expect(browserRefusal({ extraCa: false, insecure: false })).toBeUndefined();
  });

  it('is said at start, naming the platforms it keeps unanswered and the escalations it stops', () => {
    const settings = { caFile: '/etc/test-ca.pem', insecure: false, escalations: 0 };
    expect(browserStartNotice(settings, platforms('http', 'browser', 'browser', 'impersonate'))).toBe(
      'browser transport off: the browser transport cannot trust an extra CA (--ca-file): Chromium verifies with its own store only; add the CA to the system store, or use --insecure for a test CA; 2 platforms naming it will read unknown (needs_browser)',
    );
    expect(browserStartNotice({ ...settings, escalations: 5 }, platforms('http', 'browser'))).toMatch(
      /; 1 platform naming it will read unknown \(needs_browser\), and escalations stop before it$/,
    );
    expect(browserStartNotice({ ...settings, escalations: 5 }, platforms('http'))).toMatch(
      /^browser transport off: .*; escalations stop before it$/,
    );
  });

  it('is not said when nothing could have needed the browser, or nothing keeps it off', () => {
    const settings = { caFile: '/etc/test-ca.pem', insecure: false, escalations: 0 };
    expect(browserStartNotice(settings, platforms('http', 'impersonate'))).toBeUndefined();
    expect(browserStartNotice({ ...settings, insecure: true }, platforms('browser'))).toBeUndefined();
    expect(browserStartNotice({ ...settings, caFile: '' }, platforms('browser'))).toBeUndefined();
  });
});
