import { describe, expect, it } from 'vitest';
import { entry } from '../../test/support/catalogue.js';
import { loadCatalogue } from './loader.js';
import type { PlatformSpec } from './schema.js';

/** The schema's type lists the profile fields by a computed record, which an object literal cannot name. */
const extract = (rules: Record<string, unknown>) => rules as PlatformSpec['extract'];

describe('loadCatalogue: regexes run in linear time', () => {
  it('refuses an entry whose regexes need backtracking, naming the platform, the field and the pattern', () => {
    const { catalogue, problems } = loadCatalogue({
      platforms: [
        entry('Lookahead', {
          detect: { exists: [{ status: [200] }, { regex: 'Profile(?= of)' }], missing: [{ status: [404] }] },
        }),
        entry('Lookbehind', {
          detect: {
            exists: [{ status: [200] }],
            missing: [{ all: [{ status: [200] }, { not: { regex: '(?<!no )user' } }] }],
          },
        }),
        entry('Backreference', {
          extract: extract({ fullName: { regex: '<(b)>(?<value>[^<]+)</\\1>' } }),
        }),
        entry('Fine', {
          detect: {
            exists: [{ status: [200] }, { regex: 'Profile of \\w+', flags: 'i' }],
            missing: [{ status: [404] }],
          },
          extract: extract({ fullName: { regex: '<b>(?<value>[^<]+)</b>' } }),
        }),
      ],
    });
    expect(catalogue.platforms.map((p) => p.name)).toEqual(['Fine']);
    expect(problems.map((p) => [p.platform, p.field])).toEqual([
      ['Lookahead', '/detect/exists/1'],
      ['Lookbehind', '/detect/missing/0'],
      ['Backreference', '/extract/fullName'],
    ]);
    const [lookahead, lookbehind, backreference] = problems.map((p) => p.message);
    expect(lookahead).toMatch(
      /^regex does not compile for the linear-time engine \(RE2 syntax; lookaround and backreferences/,
    );
    expect(lookahead).toContain(JSON.stringify('Profile(?= of)'));
    expect(lookbehind).toContain(JSON.stringify('(?<!no )user'));
    expect(backreference).toContain(JSON.stringify('<(b)>(?<value>[^<]+)</\\1>'));
  });

  it('reads the value group of an extract rule from the compiled pattern', () => {
    const { problems } = loadCatalogue({
      platforms: [
        entry('Python Style', { extract: extract({ fullName: { regex: '<b>(?P<value>[^<]+)</b>' } }) }),
        entry('No Value', { extract: extract({ fullName: { regex: '<b>(?<name>[^<]+)</b>' } }) }),
      ],
    });
    expect(problems).toEqual([
      {
        platform: 'No Value',
        field: '/extract/fullName',
        message: 'regex needs a named group `value` (?<value>…)',
      },
    ]);
  });
});

describe('loadCatalogue: a text that names the account', () => {
  it('reads {username} in a text as the name checked, split once at load time', () => {
    const { catalogue, problems } = loadCatalogue({
      platforms: [
        entry('Named', {
          detect: {
            exists: [{ status: [200] }, { text: '/u/{username}"' }],
            missing: [{ text: 'No such user' }],
          },
        }),
      ],
    });
    expect(problems).toEqual([]);
    expect(catalogue.platforms[0]!.detect.exists[1]).toEqual({
      kind: 'name',
      text: '/u/{username}"',
      parts: ['/u/', '"'],
    });
    expect(catalogue.platforms[0]!.detect.missing[0]).toEqual({ kind: 'text', text: 'No such user' });
  });

  it('refuses a name not bounded on both sides by a character no name holds', () => {
    const marked = (name: string, text: string) =>
      entry(name, {
        detect: { exists: [{ status: [200] }, { text }], missing: [{ text: 'No such user' }] },
      });
    const { catalogue, problems } = loadCatalogue({
      platforms: [
        // The bare name: a short or common name (home, login) is a word of any page.
        marked('Bare', '{username}'),
        // Open on one side: "@bobby" and "xbob's" hold "bob".
        marked('Mention', '@{username}'),
        marked('Owner', "{username}'s profile"),
        marked('Dotted', '/u/{username}.html'),
        marked('Linked', '/u/{username}"'),
        marked('Heading', '<h1>{username}</h1>'),
        marked('Spaced', 'by {username} on'),
      ],
    });
    expect(catalogue.platforms.map((p) => p.name)).toEqual(['Linked', 'Heading', 'Spaced']);
    expect(problems.map((p) => [p.platform, p.field])).toEqual([
      ['Bare', '/detect/exists/1'],
      ['Mention', '/detect/exists/1'],
      ['Owner', '/detect/exists/1'],
      ['Dotted', '/detect/exists/1'],
    ]);
    expect(problems[0]!.message).toMatch(/^a text holding \{username\} needs a character no name holds/);
  });

  it('refuses {username} in a regex, a redirect, a header value or a JSON value: only a text is filled in', () => {
    const named = (name: string, signal: object) =>
      entry(name, {
        detect: {
          exists: [{ status: [200] }, { text: 'data-profile' }],
          missing: [{ all: [{ status: [200] }, signal] }],
        } as PlatformSpec['detect'],
      });
    const { catalogue, problems } = loadCatalogue({
      platforms: [
        named('Regex', { regex: 'profile/{username}"' }),
        named('Redirect', { redirect: '/u/{username}' }),
        named('Header', { header: 'location', value: '/u/{username}' }),
        named('Json', { json: 'user.login', equals: '{username}' }),
      ],
    });
    expect(catalogue.platforms).toEqual([]);
    expect(problems.map((p) => [p.platform, p.field])).toEqual([
      ['Regex', '/detect/missing/0'],
      ['Redirect', '/detect/missing/0'],
      ['Header', '/detect/missing/0'],
      ['Json', '/detect/missing/0'],
    ]);
    expect(problems[0]!.message).toMatch(/^only a \{"text"\} signal can hold \{username\}/);
  });

  it('refuses {username} in a {not}: a page lacking the name says nothing of the account', () => {
    const { catalogue, problems } = loadCatalogue({
      platforms: [
        entry('Lacking', {
          detect: {
            exists: [{ status: [200] }, { text: 'data-profile' }],
            missing: [{ all: [{ status: [200] }, { not: { text: '/u/{username}"' } }] }],
          },
        }),
        entry('Showing', {
          detect: {
            exists: [{ all: [{ status: [200] }, { text: '/u/{username}"' }] }],
            missing: [{ status: [404] }],
          },
        }),
      ],
    });
    expect(catalogue.platforms.map((p) => p.name)).toEqual(['Showing']);
    expect(problems.map((p) => [p.platform, p.field])).toEqual([['Lacking', '/detect/missing/0']]);
    expect(problems[0]!.message).toMatch(/^a \{not\} cannot hold \{username\}/);
  });
});

describe('loadCatalogue: other hosts of a site', () => {
  it('keeps the other hosts of an entry, lower-case as given, and none for an entry without', () => {
    const { catalogue, problems } = loadCatalogue({
      platforms: [entry('Renamed', { otherHosts: ['old-name.test', 'short.test'] }), entry('Plain')],
    });
    expect(problems).toEqual([]);
    expect(catalogue.platforms.map((p) => [p.name, p.otherHosts])).toEqual([
      ['Renamed', ['old-name.test', 'short.test']],
      ['Plain', []],
    ]);
  });

  it('refuses a host that is not a host name: a URL, a port, a path, capitals, an empty label, a www. prefix', () => {
    const bad = [
      'https://old.test',
      'old.test:8080',
      'old.test/u',
      'Old.test',
      'old..test',
      'localhost',
      'www.old.test',
    ];
    const { catalogue, problems } = loadCatalogue({
      platforms: bad.map((host, i) => entry(`Bad ${i}`, { otherHosts: [host] })),
    });
    expect(catalogue.platforms).toEqual([]);
    expect(problems.map((p) => [p.platform, p.field])).toEqual(
      bad.map((_, i) => [`Bad ${i}`, '/otherHosts/0']),
    );
    expect(problems[0]?.message).toMatch(/must be a host name/);
    expect(problems.at(-1)?.message).toMatch(/without "www\."/);
  });

  it('refuses an empty list and a host given twice', () => {
    const { problems } = loadCatalogue({
      platforms: [entry('Empty', { otherHosts: [] }), entry('Twice', { otherHosts: ['a.test', 'a.test'] })],
    });
    expect(problems.map((p) => [p.platform, p.field])).toEqual([
      ['Empty', '/otherHosts'],
      ['Twice', '/otherHosts'],
    ]);
  });

  it("refuses the entry's own check, profile or home host (with or without www.)", () => {
    const { catalogue, problems } = loadCatalogue({
      platforms: [
        entry('Own Profile', { otherHosts: ['own-profile.test'] }),
        entry('Own Check', {
          check: { url: 'https://api.own-check.test/users/{username}' },
          otherHosts: ['api.own-check.test'],
        }),
        entry('Own Home', { home: 'https://www.own-home.org/', otherHosts: ['own-home.org'] }),
      ],
    });
    expect(catalogue.platforms).toEqual([]);
    expect(problems.map((p) => [p.platform, p.field])).toEqual([
      ['Own Profile', '/otherHosts/0'],
      ['Own Check', '/otherHosts/0'],
      ['Own Home', '/otherHosts/0'],
    ]);
    expect(problems[0]?.message).toMatch(/this entry's own check, profile or home host/);
  });

  it('refuses the check host of another enabled entry (two entries for one site), not of a disabled one', () => {
    const { catalogue, problems } = loadCatalogue({
      platforms: [
        entry('Current', { otherHosts: ['old.test'] }),
        entry('Old', { home: 'https://www.old.test/', profile: 'https://www.old.test/u/{username}' }),
        entry('Second', {
          home: 'https://second.test/',
          profile: 'https://second.test/u/{username}',
          enabled: false,
          disabledReason: 'A second address of the site "Current" checks.',
        }),
        entry('Other', { otherHosts: ['second.test'] }),
      ],
    });
    expect(problems).toEqual([
      {
        platform: 'Current',
        field: '/otherHosts/0',
        message: expect.stringMatching(
          /^old\.test is the check, profile and home host of the enabled entry "Old"/,
        ),
      },
    ]);
    expect(catalogue.platforms.map((p) => p.name)).toEqual(['Old', 'Second', 'Other']);
  });

  it("refuses another enabled entry's profile or home host, though it checks elsewhere", () => {
    const { catalogue, problems } = loadCatalogue({
      platforms: [
        entry('Api Site', {
          home: 'https://home.test/',
          profile: 'https://people.test/u/{username}',
          check: { url: 'https://api.site.test/users/{username}' },
        }),
        entry('By Profile', { otherHosts: ['people.test'] }),
        entry('By Home', { otherHosts: ['home.test'] }),
      ],
    });
    expect(problems.map((p) => [p.platform, p.field, p.message.split(':')[0]])).toEqual([
      ['By Profile', '/otherHosts/0', 'people.test is the profile host of the enabled entry "Api Site"'],
      ['By Home', '/otherHosts/0', 'home.test is the home host of the enabled entry "Api Site"'],
    ]);
    expect(catalogue.platforms.map((p) => p.name)).toEqual(['Api Site']);
  });

  it('refuses an other host two enabled entries claim, each naming the other; a disabled claimant leaves the enabled one', () => {
    const { catalogue, problems } = loadCatalogue({
      platforms: [
        entry('First', { otherHosts: ['shared.test'] }),
        entry('Second', { otherHosts: ['shared.test', 'own-old.test'] }),
        entry('Third', { otherHosts: ['kept.test'] }),
        entry('Dormant', {
          otherHosts: ['kept.test'],
          enabled: false,
          disabledReason: 'Third checks the site.',
        }),
      ],
    });
    expect(problems.map((p) => [p.platform, p.field, p.message.split(':')[0]])).toEqual([
      ['First', '/otherHosts/0', 'shared.test is the other host of the enabled entry "Second"'],
      ['Second', '/otherHosts/0', 'shared.test is the other host of the enabled entry "First"'],
      ['Dormant', '/otherHosts/0', 'kept.test is the other host of the enabled entry "Third"'],
    ]);
    expect(catalogue.platforms.map((p) => p.name)).toEqual(['Third']);
  });
});
