import { describe, expect, it } from 'vitest';
import { parseConnectTo, resolveConnectTo } from '../../../src/engine/transport/connect-to.js';

describe('connect-to rules (curl semantics)', () => {
  it.each([
    [
      'example.com:443:127.0.0.1:8443',
      { fromHost: 'example.com', fromPort: 443, toHost: '127.0.0.1', toPort: 8443 },
    ],
    ['::127.0.0.1:9000', { fromHost: undefined, fromPort: undefined, toHost: '127.0.0.1', toPort: 9000 }],
    [':443::8443', { fromHost: undefined, fromPort: 443, toHost: undefined, toPort: 8443 }],
    ['[::1]:80:[::1]:8080', { fromHost: '::1', fromPort: 80, toHost: '::1', toPort: 8080 }],
    [
      'Example.COM:::',
      { fromHost: 'example.com', fromPort: undefined, toHost: undefined, toPort: undefined },
    ],
  ])('parses %s', (text, rule) => {
    expect(parseConnectTo(text)).toEqual(rule);
  });

  it.each(['a:b:c', 'a:1:b:70000', 'a:x:b:1', ''])('refuses %j with a clear message', (text) => {
    expect(() => parseConnectTo(text)).toThrow(/--connect-to/);
  });

  it('the first matching rule wins; empty parts match anything and keep the original', () => {
    const rules = ['a.test:443:127.0.0.1:1', ':443:127.0.0.2:', '::127.0.0.3:3'].map(parseConnectTo);
    expect(resolveConnectTo(rules, 'a.test', 443)).toEqual({ host: '127.0.0.1', port: 1 });
    expect(resolveConnectTo(rules, 'b.test', 443)).toEqual({ host: '127.0.0.2', port: 443 });
    expect(resolveConnectTo(rules, 'b.test', 80)).toEqual({ host: '127.0.0.3', port: 3 });
    expect(resolveConnectTo([], 'B.test', 80)).toEqual({ host: 'b.test', port: 80 });
  });
});
