import { readFileSync } from 'node:fs';
import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import { entry } from '../../test/support/catalogue.js';
import { builtinFamilies } from './builtin-families.js';
import { expandFamilies } from './families.js';
import { loadCatalogue } from './loader.js';
import { FamilySchema, type FamilySpec } from './schema.js';

const forum: FamilySpec = {
  id: 'forumware',
  description: 'A forum engine',
  profile: '{home}members/{username}',
  check: { url: '{home}members/{username}.json' },
  detect: { exists: [{ status: [200] }, { json: 'user.name' }], missing: [{ status: [404] }] },
  username: { pattern: '^[a-z0-9_]{1,30}$' },
  tags: ['forum', 'forumware'],
  notes: 'Every forumware site answers alike.',
};

describe('families', () => {
  it('fills an entry in from its family, {home} its home address, its own fields and tags kept', () => {
    const { platforms, problems } = expandFamilies(
      [
        { name: 'Plain', home: 'https://plain.test/', family: 'forumware', category: 'forum', tags: ['de'] },
        {
          name: 'Own Rule',
          home: 'https://own.test',
          family: 'forumware',
          username: { pattern: '^[a-z]+$' },
        },
        { name: 'Unrelated', home: 'https://x.test/' },
      ],
      new Map([[forum.id, forum]]),
    );
    expect(problems).toEqual([]);
    expect(platforms[0]).toEqual({
      name: 'Plain',
      home: 'https://plain.test/',
      category: 'forum',
      profile: 'https://plain.test/members/{username}',
      check: { url: 'https://plain.test/members/{username}.json' },
      detect: forum.detect,
      username: forum.username,
      tags: ['forum', 'forumware', 'de'],
      notes: forum.notes,
    });
    expect(platforms[1]).toMatchObject({
      profile: 'https://own.test/members/{username}',
      username: { pattern: '^[a-z]+$' },
    });
    expect(platforms[2]).toEqual({ name: 'Unrelated', home: 'https://x.test/' });
  });

  it('reports an unknown family and an entry without its home, keeping the others in place', () => {
    const { platforms, problems } = expandFamilies(
      [
        { name: 'Lost', family: 'nope', home: 'https://a.test/' },
        { name: 'Homeless', family: 'forumware' },
        { name: 'Fine' },
      ],
      new Map([[forum.id, forum]]),
    );
    expect(problems.map((p) => [p.platform, p.field])).toEqual([
      ['Lost', '/family'],
      ['Homeless', '/home'],
    ]);
    expect(platforms).toEqual([undefined, undefined, { name: 'Fine' }]);
  });

  it('loads a file whose entries name its own family or a built-in one, and reports a family that is not one', () => {
    const spec = entry('Board');
    const { profile: _p, detect: _d, ...bare } = spec;
    const { catalogue, problems } = loadCatalogue({
      families: [forum, { id: 'Bad Id', description: '' }],
      platforms: [
        { ...bare, family: 'forumware', known: { claimed: ['alice'], unclaimed: ['nobody_here'] } },
        { ...entry('Talk'), profile: undefined, detect: undefined, family: 'discourse' },
      ].map((p) => JSON.parse(JSON.stringify(p))),
    });
    expect(problems.map((p) => p.platform)).toEqual(['family Bad Id']);
    expect(catalogue.platforms.map((p) => [p.name, p.check.url])).toEqual([
      ['Board', 'https://board.test/members/{username}.json'],
      ['Talk', 'https://talk.test/u/{username}.json'],
    ]);
  });

  it('keeps the built-in families valid', () => {
    const doc = JSON.parse(readFileSync(new URL('./families.json', import.meta.url), 'utf8')) as {
      families: unknown[];
    };
    for (const family of doc.families)
      expect(Value.Check(FamilySchema, family), JSON.stringify(family).slice(0, 60)).toBe(true);
    expect([...builtinFamilies().keys()]).toContain('discourse');
  });
});
