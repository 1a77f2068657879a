import { describe, expect, it } from 'vitest';
import { loadCatalogue } from '../../src/catalogue/loader.js';
import { checkKey, mergeCatalogues } from '../../src/catalogue/merge.js';
import type { PlatformSpec } from '../../src/catalogue/schema.js';

function platform(name: string, profile: string, check?: PlatformSpec['check']): PlatformSpec {
  return {
    name,
    category: 'social',
    home: 'https://example.com/',
    profile,
    ...(check ? { check } : {}),
    detect: { exists: [{ status: [200] }], missing: [{ status: [404] }] },
    known: { claimed: ['alice'], unclaimed: ['noonewouldeverusethis7'] },
  };
}

describe('checkKey', () => {
  it.each([
    [
      'host case, scheme and trailing slash are ignored',
      'https://Example.COM/u/{username}/',
      'http://example.com/u/{username}',
    ],
    ['the fragment is ignored (never sent)', 'https://example.com/api#{username}', 'https://example.com/api'],
    ['a placeholder in the host', 'https://{username}.Example.com/', 'https://{username}.example.com'],
  ])('same key: %s', (_label, a, b) => {
    expect(checkKey(platform('A', a))).toBe(checkKey(platform('B', b)));
  });

  it.each([
    ['another path', 'https://example.com/u/{username}', 'https://example.com/user/{username}'],
    ['another query', 'https://example.com/?u={username}', 'https://example.com/?user={username}'],
    ['path case', 'https://example.com/U/{username}', 'https://example.com/u/{username}'],
  ])('different key: %s', (_label, a, b) => {
    expect(checkKey(platform('A', a))).not.toBe(checkKey(platform('B', b)));
  });

  it('uses the check URL, and the body of a POST', () => {
    const api = (body: string) =>
      platform('A', 'https://example.com/{username}', {
        url: 'https://api.example.com/q#{username}',
        method: 'POST',
        body,
      });
    expect(checkKey(api('{"u":"{username}"}'))).toBe('POST api.example.com/q {"u":"{}"}');
    expect(checkKey(api('{"u":"{username}"}'))).not.toBe(checkKey(api('{"team":"{username}"}')));
    expect(
      checkKey(
        platform('A', 'https://example.com/{username}', { url: 'https://api.example.com/u/{username}' }),
      ),
    ).toBe('api.example.com/u/{}');
  });
});

describe('mergeCatalogues', () => {
  it('keeps the first occurrence and says why each other one was dropped', () => {
    const a = {
      source: 'a.json',
      document: { platforms: [platform('GitHub', 'https://github.com/{username}')] },
    };
    const b = {
      source: 'b.json',
      document: {
        platforms: [
          platform('github', 'https://gitlab.com/{username}'),
          platform('GitHub mirror', 'https://GITHUB.com/{username}/'),
          platform('GitLab', 'https://gitlab.com/{username}'),
        ],
      },
    };
    const result = mergeCatalogues([a, b]);
    expect(result.document.platforms.map((p) => p.name)).toEqual(['GitHub', 'GitLab']);
    expect(result.dropped).toEqual([
      { name: 'github', source: 'b.json', reason: 'same name as GitHub (from a.json)' },
      {
        name: 'GitHub mirror',
        source: 'b.json',
        reason: 'checks the same address as GitHub (from a.json): github.com/{}',
      },
    ]);
    expect(result.document.shields).toBeUndefined();
  });

  it('drops an entry whose name gives the id of one kept (the loader would refuse it)', () => {
    const a = {
      source: 'a.json',
      document: { platforms: [platform('Foo Bar', 'https://foo.test/{username}')] },
    };
    const b = {
      source: 'b.json',
      document: { platforms: [platform('Foo.Bar', 'https://bar.test/{username}')] },
    };
    const result = mergeCatalogues([a, b]);
    expect(result.document.platforms.map((p) => p.name)).toEqual(['Foo Bar']);
    expect(result.dropped).toEqual([
      { name: 'Foo.Bar', source: 'b.json', reason: 'same id (foo-bar) as Foo Bar (from a.json)' },
    ]);
    expect(loadCatalogue(result.document).problems).toEqual([]);
  });

  it('drops an entry at a host another names as its other host, either way round (the loader would refuse one)', () => {
    const renamed = (name: string, host: string, otherHosts?: string[]): PlatformSpec => ({
      ...platform(name, `https://${host}/@{username}`),
      home: `https://${host}/`,
      ...(otherHosts ? { otherHosts } : {}),
    });
    const builtin = {
      source: 'builtin.json',
      document: { platforms: [renamed('Replit', 'replit.com', ['repl.it'])] },
    };
    const mine = { source: 'mine.json', document: { platforms: [renamed('Repl.it', 'repl.it')] } };
    // The first of the two kept, whichever comes first, and the loader refuses neither.
    const orders = [
      {
        inputs: [builtin, mine],
        kept: 'Replit',
        dropped: {
          name: 'Repl.it',
          source: 'mine.json',
          reason: 'is at repl.it, which Replit (from builtin.json) names as its other host',
        },
      },
      {
        inputs: [mine, builtin],
        kept: 'Repl.it',
        dropped: {
          name: 'Replit',
          source: 'builtin.json',
          reason: 'names repl.it as its other host, a host of Repl.it (from mine.json)',
        },
      },
    ];
    for (const { inputs, kept, dropped } of orders) {
      const merged = mergeCatalogues(inputs);
      expect(merged.document.platforms.map((p) => p.name)).toEqual([kept]);
      expect(merged.dropped).toEqual([dropped]);
      expect(loadCatalogue(merged.document).problems).toEqual([]);
    }
    // A disabled entry's own hosts clash with nothing.
    const off = {
      source: 'off.json',
      document: { platforms: [{ ...renamed('Old Repl', 'repl.it'), enabled: false }] },
    };
    expect(mergeCatalogues([builtin, off]).dropped).toEqual([]);
  });

  it('keeps the shields of every input, the first of each name', () => {
    const shield = (name: string, body: string) => ({ name, reason: 'waf', body: [body] });
    const result = mergeCatalogues([
      { source: 'a', document: { platforms: [], shields: [shield('cf', 'a')] } },
      { source: 'b', document: { platforms: [], shields: [shield('CF', 'b'), shield('other', 'c')] } },
    ]);
    expect(result.document.shields).toEqual([shield('cf', 'a'), shield('other', 'c')]);
  });

  it('merges nothing into nothing', () => {
    expect(mergeCatalogues([])).toEqual({ document: { platforms: [] }, dropped: [] });
  });
});
