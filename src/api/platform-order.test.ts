import { describe, expect, it } from 'vitest';
import { loadCatalogueFrom } from '../catalogue/source.js';
import { byPlatformName } from '../engine/verdict/outcome.js';
import { platformOrder } from './platform-order.js';

/** A seeded shuffle, so a failure can be replayed. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2147483648;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

describe('platformOrder', () => {
  const names = [
    'GitHub',
    'github',
    'Gitee',
    'Éclair',
    'eclair',
    'Zhihu',
    'about.me',
    '500px',
    'Ästhetik',
    'b',
  ];
  const order = platformOrder(names);

  it('lists results as byPlatformName does, names the collator holds equal kept in the order they came', () => {
    // Two entries a name, and names outside the list (a platform removed since), in several orders.
    const results = [...names, ...names, 'Unlisted', 'unlisted', 'Aardvark', 'zz top'].map((platform, i) => ({
      platform,
      i,
    }));
    for (const seed of [1, 2, 3, 4, 5]) {
      const input = shuffled(results, seed);
      expect([...input].sort(order)).toEqual([...input].sort(byPlatformName));
    }
  });

  it('orders the built-in catalogue as byPlatformName does', () => {
    const { catalogue } = loadCatalogueFrom(undefined);
    const catalogueNames = catalogue.platforms.map((p) => p.name);
    const byRank = platformOrder(catalogueNames);
    const input = shuffled(
      catalogueNames.map((platform, i) => ({ platform, i })),
      7,
    );
    expect([...input].sort(byRank)).toEqual([...input].sort(byPlatformName));
  });
});
