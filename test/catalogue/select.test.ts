import { describe, expect, it } from 'vitest';
import { loadBuiltinCatalogue } from '../../src/catalogue/builtin.js';
import { selectPlatforms } from '../../src/catalogue/select.js';
import { TOP_PLATFORMS } from '../../src/catalogue/top.js';
import { catalogueOf, entry } from '../support/catalogue.js';

describe('selectPlatforms', () => {
  const catalogue = catalogueOf([
    entry('GitHub', { category: 'coding', tags: ['git', 'opensource'] }),
    entry('Forgejo Town', { category: 'coding', tags: ['Git', 'fediverse'] }),
    entry('Photo Place', { category: 'art', tags: ['photography'] }),
    entry('After Dark', { category: 'social', tags: ['photography'], nsfw: true }),
  ]);
  const names = (filter: Parameters<typeof selectPlatforms>[1]) =>
    selectPlatforms(catalogue, filter).map((p) => p.name);

  it('narrows by tag, any of those asked, whatever their case, NSFW still behind its own choice', () => {
    expect(names({ tags: ['git'] })).toEqual(['GitHub', 'Forgejo Town']);
    expect(names({ tags: ['FEDIVERSE', 'photography'] })).toEqual(['Forgejo Town', 'Photo Place']);
    expect(names({ tags: ['photography'], includeNsfw: true })).toEqual(['Photo Place', 'After Dark']);
    expect(names({ tags: ['git'], categories: ['art'] })).toEqual([]);
    expect(names({ tags: [] })).toHaveLength(3);
  });

  it('narrows to the curated top set, by id', () => {
    expect(names({ top: true })).toEqual(['GitHub']);
    expect(names({ top: true, tags: ['fediverse'] })).toEqual([]);
  });

  it('names in the top set only enabled, safe-for-work platforms of the built-in catalogue, each once', () => {
    const builtin = loadBuiltinCatalogue().catalogue;
    const byId = new Map(builtin.platforms.map((p) => [p.id, p]));
    expect(new Set(TOP_PLATFORMS).size).toBe(TOP_PLATFORMS.length);
    const unfit = TOP_PLATFORMS.filter((id) => !byId.get(id)?.enabled || byId.get(id)?.nsfw);
    expect(unfit).toEqual([]);
    expect(selectPlatforms(builtin, { top: true })).toHaveLength(TOP_PLATFORMS.length);
  });
});
