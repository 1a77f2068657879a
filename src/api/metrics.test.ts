import { describe, expect, it } from 'vitest';
import type { ControlRecord } from '../engine/controls/control.js';
import { TransportTally } from '../engine/transport/transport-tally.js';
import type { Outcome } from '../engine/verdict/outcome.js';
import { Metrics, withoutCredentials } from './metrics.js';

describe('metrics labels', () => {
  it('never carry the credentials of a proxy identity', async () => {
    const metrics = new Metrics();
    const record = {
      platformId: 'alpha',
      identity: 'proxy:http://user:s3cret@proxy.test:8080',
      drift: true,
    } as unknown as ControlRecord;
    metrics.watchControls(async () => [record]);
    const text = await metrics.registry.metrics();
    expect(text).toContain('identity="proxy:http://proxy.test:8080"');
    expect(text).not.toContain('s3cret');
    expect(withoutCredentials('addr:2001:db8::1')).toBe('addr:2001:db8::1');
    expect(withoutCredentials('proxy:socks5://u@p.test:1080')).toBe('proxy:socks5://p.test:1080');
  });
});

describe('transport metrics', () => {
  it("read the process's tally at each scrape, and count answered checks by transport", async () => {
    const metrics = new Metrics();
    const tally = new TransportTally();
    metrics.watchTransports(tally);
    tally.add('launches', 2);
    tally.add('crashes');
    tally.add('escalations', 3);
    tally.add('slotWaits');
    expect(tally.tryOpenContext(4)).toBe(true);
    const answered = (transport?: 'browser') =>
      ({
        status: 'miss',
        responseTime: 10,
        evidence: { httpStatus: 404, ...(transport ? { transport } : {}) },
      }) as unknown as Outcome;
    metrics.observe(answered('browser'));
    metrics.observe(answered());
    // Not sent: no transport answered it.
    metrics.observe({
      status: 'unknown',
      reason: 'needs_browser',
      responseTime: 0,
      evidence: {},
    } as unknown as Outcome);
    const text = await metrics.registry.metrics();
    expect(text).toContain('userscout_browser_launches_total 2');
    expect(text).toContain('userscout_browser_replacements_total{cause="crash"} 1');
    expect(text).toContain('userscout_browser_replacements_total{cause="hang"} 0');
    expect(text).toContain('userscout_escalations_total 3');
    expect(text).toContain('userscout_browser_slot_waits_total 1');
    expect(text).toContain('userscout_browser_open{kind="context"} 1');
    expect(text).toContain('userscout_transport_checks_total{transport="browser"} 1');
    expect(text).toContain('userscout_transport_checks_total{transport="http"} 1');
    // A later scrape reads the tally again.
    tally.closeContext();
    tally.add('launches');
    const later = await metrics.registry.metrics();
    expect(later).toContain('userscout_browser_open{kind="context"} 0');
    expect(later).toContain('userscout_browser_launches_total 3');
  });
});
