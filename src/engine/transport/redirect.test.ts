import { describe, expect, it } from 'vitest';
import { REDIRECT_STATUSES, redirectHop } from './redirect.js';

describe('redirectHop', () => {
  it('resolves the Location against the URL it answered, keeping the method and body of a 307/308', () => {
    expect(redirectHop(307, '/b?x=1', 'https://a.test/a', 'POST', '{}')).toEqual({
      url: 'https://a.test/b?x=1',
      method: 'POST',
      body: '{}',
    });
    expect(redirectHop(301, 'https://b.test/', 'https://a.test/a', 'HEAD', undefined)).toEqual({
      url: 'https://b.test/',
      method: 'HEAD',
      body: undefined,
    });
  });

  it('turns a 303, and a 301 or 302 after a POST, into a GET without a body', () => {
    for (const status of [301, 302, 303])
      expect(redirectHop(status, '/next', 'https://a.test/', 'POST', 'name=x')).toEqual({
        url: 'https://a.test/next',
        method: 'GET',
        body: undefined,
      });
    expect(redirectHop(303, '/next', 'https://a.test/', 'HEAD', undefined)?.method).toBe('GET');
  });

  it('leads nowhere but http(s)', () => {
    expect(redirectHop(302, 'file:///etc/passwd', 'https://a.test/', 'GET', undefined)).toBeUndefined();
    expect(redirectHop(302, 'javascript:alert(1)', 'https://a.test/', 'GET', undefined)).toBeUndefined();
    expect([...REDIRECT_STATUSES]).toEqual([301, 302, 303, 307, 308]);
  });
});
