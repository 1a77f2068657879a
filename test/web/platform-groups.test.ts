import { describe, expect, it } from 'vitest';
import type { Category } from '../../src/catalogue/categories.js';
import type { PlatformInfo } from '../../src/web/api-types.js';
import { groupPlatforms } from '../../src/web/platform-groups.js';

const p = (name: string, category: Category, enabled = true): PlatformInfo => ({
  name,
  id: name,
  category,
  url: `https://${name}.test/`,
  enabled,
  nsfw: false,
  tags: [],
});

describe('groupPlatforms', () => {
  const list = [p('zed', 'coding'), p('Bee', 'social'), p('ant', 'coding', false), p('Cat', 'misc')];

  it('groups by category in display order, names sorted, enabled counted', () => {
    expect(groupPlatforms(list).map((g) => [g.category, g.platforms.map((x) => x.name), g.enabled])).toEqual([
      ['social', ['Bee'], 1],
      ['coding', ['ant', 'zed'], 1],
      ['misc', ['Cat'], 1],
    ]);
  });

  it('keeps names containing the text, any case', () => {
    expect(groupPlatforms(list, 'E').map((g) => g.platforms.map((x) => x.name))).toEqual([['Bee'], ['zed']]);
    expect(groupPlatforms(list, 'nothing')).toEqual([]);
  });
});
