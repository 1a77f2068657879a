import { describe, expect, it } from 'vitest';
import { catalogueOf, entry } from '../../test/support/catalogue.js';
import { addressKey, counterpartsOf, hostKey, indexReferences } from './counterparts.js';
import { hostsOf } from './hosts.js';

const one = (overrides: Parameters<typeof entry>[1]) =>
  catalogueOf([entry('P', overrides)], false).platforms[0]!;

describe('counterparts', () => {
  it('reads one address however it is written: scheme, www., case of the host, trailing slash, fragment', () => {
    const keys = [
      one({ profile: 'https://www.example.test/u/{username}/' }),
      one({ profile: 'http://Example.test/u/{username}' }),
      one({ profile: 'https://example.test/u/{username}#top' }),
    ].map(addressKey);
    expect(new Set(keys).size).toBe(1);
    // GET and HEAD ask the same question; a POST body is part of the address.
    expect(addressKey(one({ profile: 'https://example.test/u/{username}', check: { method: 'HEAD' } }))).toBe(
      keys[0],
    );
    const post = (body: string) =>
      addressKey(one({ profile: 'https://example.test/u/{username}', check: { method: 'POST', body } }));
    expect(post('{"q":"{username}"}')).not.toBe(post('{"name":"{username}"}'));
  });

  it('keys a host template by where the name stands', () => {
    expect(hostKey(one({ profile: 'https://{username}.example.test/' }))).toBe('{}.example.test');
    expect(hostKey(one({ profile: 'https://www.example.test:8443/u/{username}' }))).toBe('example.test');
  });

  it('finds counterparts on the same address first, then on the same host', () => {
    const ours = one({ profile: 'https://example.test/u/{username}' });
    const same = {
      source: 'sherlock' as const,
      platform: one({ profile: 'http://www.example.test/u/{username}' }),
    };
    const host = {
      source: 'maigret' as const,
      platform: one({ profile: 'https://example.test/api/{username}' }),
    };
    const other = {
      source: 'whatsmyname' as const,
      platform: one({ profile: 'https://other.test/u/{username}' }),
    };
    const found = counterpartsOf(ours, indexReferences([host, other, same]));
    expect(found.map((c) => [c.source, c.match])).toEqual([
      ['sherlock', 'address'],
      ['maigret', 'host'],
    ]);
  });

  it("finds counterparts on the platform's other hosts too, by host, each once", () => {
    const ours = one({
      profile: 'https://example.test/u/{username}',
      otherHosts: ['old-example.test', 'ex.test'],
    });
    const entryOn = (source: 'whatsmyname' | 'sherlock' | 'maigret', profile: string) => ({
      source,
      platform: one({ profile }),
    });
    const onCheck = entryOn('sherlock', 'https://example.test/api/{username}');
    const onOld = entryOn('maigret', 'https://www.old-example.test/u/{username}');
    const onShort = entryOn('whatsmyname', 'https://ex.test/{username}');
    const elsewhere = entryOn('maigret', 'https://unrelated.test/u/{username}');
    const found = counterpartsOf(ours, indexReferences([onShort, elsewhere, onOld, onCheck]));
    expect(found.map((c) => [c.platform.profile, c.match])).toEqual([
      [onCheck.platform.profile, 'host'],
      [onOld.platform.profile, 'host'],
      [onShort.platform.profile, 'host'],
    ]);
  });

  it("reads a platform's hosts one way for every comparison: own (check, profile, home), then other, each once", () => {
    const p = one({
      home: 'https://www.Example.test/',
      profile: 'https://{username}.example.test/',
      check: { url: 'https://api.example.test:8443/users/{username}' },
      otherHosts: ['old-example.test'],
    });
    expect(hostsOf(p)).toEqual(['api.example.test', '{}.example.test', 'example.test', 'old-example.test']);
    expect(hostsOf(p, 'checked')).toEqual(['api.example.test', 'old-example.test']);
  });
});
