/**
 * The names a watchlist's run searches: its own names and, with `variants`, the
 * lookalike names of each (catalogue/lookalike-names.ts), at most `maxVariants`
 * per name, each once, in a fixed order. Pure: the same spec gives the same list,
 * so a run resumed by another process searches exactly the names the first chose.
 */
import { lookalikeNames } from '../catalogue/lookalike-names.js';
import type { WatchlistSpec } from '../store/watchlists.js';

export function watchedNames(spec: Pick<WatchlistSpec, 'names' | 'variants'>, maxVariants: number): string[] {
  const names = [...spec.names];
  if (!spec.variants || maxVariants <= 0) return names;
  const seen = new Set(names.map((n) => n.toLowerCase()));
  for (const name of spec.names) {
    for (const variant of lookalikeNames(name, maxVariants)) {
      const key = variant.username.toLowerCase();
      if (seen.has(key)) continue;
      seen.add(key);
      names.push(variant.username);
    }
  }
  return names;
}
