import { describe, expect, it } from 'vitest';
import type { ControlRecord } from '../engine/controls/control.js';
import { TransportTally } from '../engine/transport/transport-tally.js';
import type { Outcome } from '../engine/verdict/outcome.js';
import { OutcomeTally } from '../runner/outcome-tally.js';
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
    const outcomes = new OutcomeTally();
    metrics.watchOutcomes(outcomes);
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
    outcomes.add(answered('browser'));
    outcomes.add(answered());
    // Not sent: no transport answered it.
    outcomes.add({
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

describe('outcome metrics', () => {
  const outcome = (o: Omit<Partial<Outcome>, 'evidence'> & { evidence?: Record<string, unknown> }) =>
    ({
      status: 'miss',
      responseTime: 300,
      ...o,
      evidence: { rule: 'r', attempts: 1, ...o.evidence },
    }) as Outcome;

  it("read the process's outcome tally at each scrape, under today's names, labels and buckets", async () => {
    const metrics = new Metrics();
    // Before a tally is read: the histogram's lines, at zero.
    const before = await metrics.registry.metrics();
    expect(before).toContain('# HELP userscout_check_duration_seconds Time a platform check took');
    expect(before).toContain('# TYPE userscout_check_duration_seconds histogram');
    expect(before).toContain('userscout_check_duration_seconds_bucket{le="+Inf"} 0\n');
    expect(before).not.toMatch(/^userscout_checks_total\{/m);

    const tally = new OutcomeTally();
    metrics.watchOutcomes(tally);
    tally.add(outcome({ status: 'hit', responseTime: 40, evidence: { httpStatus: 200 } }));
    tally.add(outcome({ responseTime: 3000, evidence: { httpStatus: 404, transport: 'impersonate' } }));
    tally.add(
      outcome({ status: 'unknown', reason: 'waf', responseTime: 20_000, evidence: { httpStatus: 403 } }),
    );
    tally.add(outcome({ status: 'invalid', reason: 'username_rule', responseTime: 0 }));
    tally.add(outcome({ status: 'hit', evidence: { httpStatus: 200, cachedAt: 1 } }));
    const text = await metrics.registry.metrics();
    expect(text).toContain(
      '# HELP userscout_checks_total Platform checks finished, by outcome status and reason',
    );
    expect(text).toContain('# TYPE userscout_checks_total counter');
    expect(text).toContain('userscout_checks_total{status="hit",reason=""} 2\n');
    expect(text).toContain('userscout_checks_total{status="miss",reason=""} 1\n');
    expect(text).toContain('userscout_checks_total{status="unknown",reason="waf"} 1\n');
    expect(text).toContain('userscout_checks_total{status="invalid",reason="username_rule"} 1\n');
    expect(text).toContain(
      [
        'userscout_check_duration_seconds_bucket{le="0.05"} 1',
        'userscout_check_duration_seconds_bucket{le="0.1"} 1',
        'userscout_check_duration_seconds_bucket{le="0.25"} 1',
        'userscout_check_duration_seconds_bucket{le="0.5"} 1',
        'userscout_check_duration_seconds_bucket{le="1"} 1',
        'userscout_check_duration_seconds_bucket{le="2"} 1',
        'userscout_check_duration_seconds_bucket{le="4"} 2',
        'userscout_check_duration_seconds_bucket{le="8"} 2',
        'userscout_check_duration_seconds_bucket{le="16"} 2',
        'userscout_check_duration_seconds_bucket{le="+Inf"} 3',
        'userscout_check_duration_seconds_sum 23.04',
        'userscout_check_duration_seconds_count 3',
      ].join('\n'),
    );
    expect(text).toContain('userscout_transport_checks_total{transport="http"} 2\n');
    expect(text).toContain('userscout_transport_checks_total{transport="impersonate"} 1\n');
    expect(text).not.toContain('transport="browser"');
    // The JSON form (prom-client's get) reads the same.
    const json = await metrics.registry.getMetricsAsJSON();
    const seconds = json.find((m) => m.name === 'userscout_check_duration_seconds');
    expect(seconds?.values).toContainEqual(
      expect.objectContaining({ metricName: 'userscout_check_duration_seconds_count', value: 3 }),
    );
    // A later scrape reads the tally again.
    tally.add(outcome({ status: 'hit', responseTime: 40, evidence: { httpStatus: 200 } }));
    const later = await metrics.registry.metrics();
    expect(later).toContain('userscout_checks_total{status="hit",reason=""} 3\n');
    expect(later).toContain('userscout_check_duration_seconds_count 4\n');
  });
});
