import { describe, expect, it } from 'vitest';
import type { ControlRecord } from '../engine/control.js';
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
