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
