import { describe, expect, it } from 'vitest';
import { loadBuiltinCatalogue } from '../../src/catalogue/builtin.js';
import { loadCatalogue } from '../../src/catalogue/loader.js';
import { platformId } from '../../src/catalogue/platform.js';

const entry = (name: string, home: string) => ({
  name,
  category: 'hobby',
  home,
  profile: `${home}user/{username}`,
  detect: { exists: [{ status: [200] }, { text: 'profile' }], missing: [{ status: [404] }] },
  known: { claimed: ['alice'], unclaimed: ['noonewouldeverusethis7'] },
});

describe('platform ids', () => {
  it('come from the name, or from the home’s host when the name has no Latin letter or digit', () => {
    expect(platformId('Hacker News', 'https://news.ycombinator.com/')).toBe('hacker-news');
    expect(platformId('Военное обозрение', 'https://topwar.ru/')).toBe('topwar-ru');
    expect(platformId('微博', 'https://www.weibo.com/')).toBe('weibo-com');
  });

  it('are never empty and never shared in the built-in catalogue', () => {
    const ids = loadBuiltinCatalogue().catalogue.platforms.map((p) => p.id);
    expect(ids.filter((id) => id === '')).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toContain('topwar-ru');
  });

  it('a catalogue with two entries of one id is refused, naming both', () => {
    const result = loadCatalogue({
      platforms: [entry('Foo Bar', 'https://foo.test/'), entry('foo-bar', 'https://bar.test/')],
    });
    expect(result.catalogue.platforms.map((p) => p.name)).toEqual(['Foo Bar']);
    expect(result.problems).toEqual([
      expect.objectContaining({ field: '/name', message: expect.stringContaining('"foo-bar" is entry #0') }),
    ]);
  });
});
