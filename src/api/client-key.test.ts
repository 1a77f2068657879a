import { describe, expect, it } from 'vitest';
import { clientKey } from './client-key.js';

describe('clientKey', () => {
  it('counts an IPv4 client by its address, mapped or not', () => {
    expect(clientKey('203.0.113.7', 64)).toBe('ip:203.0.113.7');
    expect(clientKey('::ffff:203.0.113.7', 64)).toBe('ip:203.0.113.7');
  });

  it('counts every address of one IPv6 /64 as one client', () => {
    const a = clientKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd', 64);
    expect(a).toBe('ip:2001:db8:1:2::/64');
    expect(clientKey('2001:DB8:1:2::1', 64)).toBe(a);
    expect(clientKey('2001:db8:1:2:ffff:ffff:ffff:ffff', 64)).toBe(a);
    expect(clientKey('2001:db8:1:3::1', 64)).not.toBe(a);
  });

  it('takes the prefix length from the setting', () => {
    expect(clientKey('2001:db8:1:2::1', 48)).toBe('ip:2001:db8:1::/48');
    expect(clientKey('2001:db8:1:2::1', 56)).toBe(clientKey('2001:db8:1:ff::9', 56));
    expect(clientKey('2001:db8::1', 128)).toBe('ip:2001:db8::1');
    expect(clientKey('fe80::1%eth0', 64)).toBe('ip:fe80::/64');
    expect(clientKey('::1', 64)).toBe('ip:::/64');
  });
});
