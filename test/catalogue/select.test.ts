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

  describe('platforms searched on request', () => {
    const regions = catalogueOf([
      entry('GitHub', { category: 'coding', tags: ['git'] }),
      entry('Ladder West', { category: 'gaming', tags: ['ladder'] }),
      entry('Ladder East', { category: 'gaming', tags: ['ladder', 'east'], onRequest: true }),
      entry('Ladder North', { category: 'gaming', tags: ['ladder'], onRequest: true }),
    ]);
    const chosen = (filter: Parameters<typeof selectPlatforms>[1]) =>
      selectPlatforms(regions, filter).map((p) => p.name);

    it('leaves them out of the default search, of a category and of the top set', () => {
      expect(chosen({})).toEqual(['GitHub', 'Ladder West']);
      expect(chosen({ categories: ['gaming'] })).toEqual(['Ladder West']);
      expect(chosen({ top: true })).toEqual(['GitHub']);
    });

    it('takes them all in for a check of every entry', () => {
      expect(chosen({ includeOnRequest: true, categories: ['gaming'] })).toEqual([
        'Ladder West',
        'Ladder East',
        'Ladder North',
      ]);
    });

    it('brings them in by one of their tags, or by name or id', () => {
      expect(chosen({ tags: ['LADDER'] })).toEqual(['Ladder West', 'Ladder East', 'Ladder North']);
      expect(chosen({ tags: ['east'] })).toEqual(['Ladder East']);
      expect(chosen({ platforms: ['ladder north', 'GitHub'] })).toEqual(['GitHub', 'Ladder North']);
      const east = regions.platforms.find((p) => p.name === 'Ladder East')!;
      expect(chosen({ platforms: [east.id] })).toEqual(['Ladder East']);
    });

    it('counts them as enabled platforms all the same', () => {
      expect(regions.platforms.filter((p) => p.enabled)).toHaveLength(4);
      expect(regions.platforms.filter((p) => p.onRequest).map((p) => p.enabled)).toEqual([true, true]);
    });

    it('keeps one OP.GG League of Legends region in the built-in default search, the others on request', () => {
      const builtin = loadBuiltinCatalogue().catalogue;
      const lol = (p: { tags: readonly string[] }) => p.tags.includes('league-of-legends');
      const byDefault = selectPlatforms(builtin).filter(lol);
      expect(byDefault.map((p) => p.name)).toEqual(['OP.GG LoL Europe West']);
      expect(selectPlatforms(builtin, { tags: ['opgg'] }).filter(lol)).toHaveLength(17);
    });
  });

  it('names in the top set only enabled, safe-for-work platforms searched by default of the built-in catalogue, each once', () => {
    const builtin = loadBuiltinCatalogue().catalogue;
    const byId = new Map(builtin.platforms.map((p) => [p.id, p]));
    expect(new Set(TOP_PLATFORMS).size).toBe(TOP_PLATFORMS.length);
    const unfit = TOP_PLATFORMS.filter(
      (id) => !byId.get(id)?.enabled || byId.get(id)?.nsfw || byId.get(id)?.onRequest,
    );
    expect(unfit).toEqual([]);
    expect(selectPlatforms(builtin, { top: true })).toHaveLength(TOP_PLATFORMS.length);
  });
});
