import { describe, expect, it } from 'vitest';
import { egressIdentities, loadConfig, SETTINGS, trustProxyOf } from '../src/config.js';
import { ConfigError } from '../src/errors.js';

describe('loadConfig', () => {
  it('takes defaults, then the environment, then overrides', () => {
    expect(loadConfig({}, {}).timeoutMs).toBe(SETTINGS.timeoutMs.default);
    expect(loadConfig({}, { USERSCOUT_TIMEOUT_MS: '2500' }).timeoutMs).toBe(2500);
    expect(loadConfig({ timeoutMs: 700 }, { USERSCOUT_TIMEOUT_MS: '2500' }).timeoutMs).toBe(700);
    // An empty variable is the same as none.
    expect(loadConfig({}, { USERSCOUT_TIMEOUT_MS: '' }).timeoutMs).toBe(SETTINGS.timeoutMs.default);
  });

  it('uses the command line defaults in cli mode, below the environment and overrides', () => {
    const service = loadConfig({}, {});
    const cli = loadConfig({}, {}, 'cli');
    expect(service.refusePrivate).toBe(true);
    expect(cli.refusePrivate).toBe(false);
    expect(loadConfig({}, { USERSCOUT_REFUSE_PRIVATE: 'true' }, 'cli').refusePrivate).toBe(true);
    expect(loadConfig({ refusePrivate: true }, {}, 'cli').refusePrivate).toBe(true);
    expect(loadConfig({}, { USERSCOUT_REFUSE_PRIVATE: 'false' }).refusePrivate).toBe(false);
    // The CLI's search collects garbage sooner; the service keeps V8's defaults unless asked.
    expect(cli.leanHeap).toBe(true);
    expect(service.leanHeap).toBe(false);
    expect(loadConfig({}, { USERSCOUT_LEAN_HEAP: 'false' }, 'cli').leanHeap).toBe(false);
    // Both open a bounded number of connections at once, unless told 0 (no bound).
    expect(cli.connectsAtOnce).toBe(32);
    expect(service.connectsAtOnce).toBe(32);
    expect(loadConfig({}, { USERSCOUT_CONNECTS_AT_ONCE: '0' }).connectsAtOnce).toBe(0);
    // Settings without a command line default are the same in both modes.
    expect(cli.timeoutMs).toBe(service.timeoutMs);
  });

  it('parses numbers, booleans, lists and choices from text', () => {
    const config = loadConfig(
      {},
      {
        USERSCOUT_INSECURE_TLS: 'yes',
        USERSCOUT_CONNECT_TO: 'a.test:443:127.0.0.1:8443, b.test:80:127.0.0.1:8080',
        USERSCOUT_ROLE: 'worker',
        USERSCOUT_BREAKER_TIMEOUTS: '0',
      },
    );
    expect(config.insecureTls).toBe(true);
    expect(config.connectTo).toEqual(['a.test:443:127.0.0.1:8443', 'b.test:80:127.0.0.1:8080']);
    expect(config.role).toBe('worker');
    expect(config.breakerTimeouts).toBe(0);
  });

  it.each([
    ['a number out of range', { USERSCOUT_CONCURRENCY: '0' }, /USERSCOUT_CONCURRENCY.*from 1 to 4096/],
    ['text for a number', { PORT: 'eighty' }, /PORT.*whole number/],
    ['a fraction', { USERSCOUT_RETRIES: '1.5' }, /USERSCOUT_RETRIES/],
    ['a bad boolean', { USERSCOUT_INSECURE_TLS: 'maybe' }, /true or false/],
    ['an unknown role', { USERSCOUT_ROLE: 'boss' }, /one of all, api, worker/],
    ['no browser', { USERSCOUT_BROWSERS: '0' }, /USERSCOUT_BROWSERS.*from 1 to 16/],
    [
      'no browser check at once',
      { USERSCOUT_BROWSER_CHECKS_AT_ONCE: '0' },
      /USERSCOUT_BROWSER_CHECKS_AT_ONCE/,
    ],
    ['no browser budget', { USERSCOUT_BROWSER_CHECKS_PER_SITE_MINUTE: '-1' }, /PER_SITE_MINUTE/],
  ])('refuses %s with the setting, its variable and what it expects', (_, env, message) => {
    expect(() => loadConfig({}, env)).toThrow(ConfigError);
    expect(() => loadConfig({}, env)).toThrow(message);
  });

  it('reads USERSCOUT_TRUST_PROXY as off, any, a hop count or trusted addresses, and refuses anything else', () => {
    expect(trustProxyOf(loadConfig({}, {}).trustProxy)).toBe(false);
    expect(trustProxyOf('false')).toBe(false);
    expect(trustProxyOf('true')).toBe(true);
    expect(trustProxyOf('2')).toBe(2);
    const list = loadConfig({}, { USERSCOUT_TRUST_PROXY: '10.0.0.0/8, ::1, fd00::/8, loopback' });
    expect(trustProxyOf(list.trustProxy)).toEqual(['10.0.0.0/8', '::1', 'fd00::/8', 'loopback']);
    for (const bad of ['proxy.internal', '10.0.0.0/33', '::1/129', 'yes']) {
      expect(() => loadConfig({}, { USERSCOUT_TRUST_PROXY: bad }), bad).toThrow(
        new RegExp(`USERSCOUT_TRUST_PROXY.*"${bad.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}" is none`),
      );
    }
    expect(loadConfig({}, {}).ipv6Prefix).toBe(64);
    expect(() => loadConfig({}, { USERSCOUT_IPV6_PREFIX: '8' })).toThrow(/USERSCOUT_IPV6_PREFIX/);
  });

  it('refuses an unknown override name', () => {
    expect(() => loadConfig({ nonsense: 1 } as never, {})).toThrow(ConfigError);
  });
});

describe('politeness settings', () => {
  it('reads the request budget, with fractional rates, and keeps USERSCOUT_PER_HOST as the in-flight cap', () => {
    const config = loadConfig(
      {},
      { USERSCOUT_BUDGET_PER_SECOND: '0.5', USERSCOUT_BUDGET_BURST: '3', USERSCOUT_PER_HOST: '6' },
    );
    expect(config.budgetPerSecond).toBe(0.5);
    expect(config.budgetBurst).toBe(3);
    expect(config.perHost).toBe(6);
    expect(() => loadConfig({}, { USERSCOUT_BUDGET_PER_SECOND: '0' })).toThrow(
      /budgetPerSecond \(USERSCOUT_BUDGET_PER_SECOND\) must be a number from 0\.001/,
    );
    expect(() => loadConfig({}, { USERSCOUT_BUDGET_BURST: '1.5' })).toThrow(ConfigError);
  });

  it('parses egress identities and names them without credentials', () => {
    const config = loadConfig(
      {},
      { USERSCOUT_EGRESS: 'addr:127.0.0.2, addr:::1,proxy:socks5://user:secret@proxy.test:1080' },
    );
    expect(egressIdentities(config.egress)).toEqual([
      { kind: 'addr', name: 'addr:127.0.0.2', address: '127.0.0.2' },
      { kind: 'addr', name: 'addr:::1', address: '::1' },
      {
        kind: 'proxy',
        name: 'proxy:socks5://proxy.test:1080',
        url: 'socks5://user:secret@proxy.test:1080',
      },
    ]);
    expect(egressIdentities(loadConfig({}, {}).egress)).toEqual([]);
  });

  it('gives 512 check slots per egress identity by default, and takes a set value as the whole', () => {
    expect(loadConfig({}, {}).concurrency).toBe(512);
    expect(loadConfig({}, {}, 'cli').concurrency).toBe(512);
    const three = { USERSCOUT_EGRESS: 'addr:127.0.0.2,addr:127.0.0.3,addr:127.0.0.4' };
    expect(loadConfig({}, three).concurrency).toBe(1536);
    expect(loadConfig({ egress: ['addr:127.0.0.2', 'addr:127.0.0.3'] }, {}).concurrency).toBe(1024);
    expect(loadConfig({}, { ...three, USERSCOUT_CONCURRENCY: '300' }).concurrency).toBe(300);
    expect(loadConfig({ concurrency: 200 }, three).concurrency).toBe(200);
    // Never past the setting's own maximum.
    const many = Array.from({ length: 12 }, (_, i) => `addr:127.0.0.${i + 2}`).join(',');
    expect(loadConfig({}, { USERSCOUT_EGRESS: many }).concurrency).toBe(4096);
  });

  it('runs 24 searches at once per egress identity by default, and takes a set value as the whole', () => {
    expect(loadConfig({}, {}).maxRunningSearches).toBe(24);
    const two = { USERSCOUT_EGRESS: 'addr:127.0.0.2,addr:127.0.0.3' };
    expect(loadConfig({}, two).maxRunningSearches).toBe(48);
    expect(loadConfig({}, { ...two, USERSCOUT_MAX_RUNNING_SEARCHES: '10' }).maxRunningSearches).toBe(10);
    expect(loadConfig({ maxRunningSearches: 3 }, two).maxRunningSearches).toBe(3);
  });

  it('refuses egress entries it cannot use, saying which and why', () => {
    expect(() => loadConfig({}, { USERSCOUT_EGRESS: 'addr:10.0.0.300' })).toThrow(
      /egress \(USERSCOUT_EGRESS\) must be a list of addr:IP and proxy:URL entries \("addr:10.0.0.300": addr: takes an IPv4 or IPv6 address\)/,
    );
    expect(() => loadConfig({}, { USERSCOUT_EGRESS: 'proxy:ftp://p.test' })).toThrow(
      /proxy: takes an http:\/\/, https:\/\/ or socks5:\/\/ URL/,
    );
    expect(() => loadConfig({}, { USERSCOUT_EGRESS: '10.0.0.5' })).toThrow(
      /each entry is addr:IP or proxy:URL/,
    );
    expect(() => loadConfig({}, { USERSCOUT_EGRESS: 'addr:10.0.0.5,addr:10.0.0.5' })).toThrow(
      /addr:10.0.0.5 is listed twice/,
    );
    expect(() =>
      loadConfig({}, { USERSCOUT_EGRESS: 'addr:10.0.0.5', USERSCOUT_PROXY: 'http://p.test:3128' }),
    ).toThrow(/proxy \(USERSCOUT_PROXY\) must be empty when egress \(USERSCOUT_EGRESS\) lists identities/);
  });
});
