/**
 * What the commands that run checks (`search`, `catalogue self-check`) read
 * from their options alike: the categories asked for, and the catalogue, with
 * a warning for entries left out.
 */
import { CATEGORIES, type Category, isCategory } from '../catalogue/categories.js';
import type { Catalogue } from '../catalogue/platform.js';
import { loadCatalogueFrom } from '../catalogue/source.js';
import { UserscoutError } from '../errors.js';

/** The `--category` values, each checked against the closed list. */
export function parseCategories(values: readonly string[] | undefined): Category[] {
  const categories: Category[] = [];
  for (const c of values ?? []) {
    if (!isCategory(c))
      throw new UserscoutError('invalid_argument', `--category ${c} is not one of ${CATEGORIES.join(', ')}`);
    categories.push(c);
  }
  return categories;
}

/** The catalogue at `path` (the built-in one when absent); entries left out are counted on `warn`. */
export function loadCommandCatalogue(path: string | undefined, warn: (text: string) => void): Catalogue {
  const { catalogue, problems } = loadCatalogueFrom(path);
  if (problems.length > 0) {
    warn(
      `warning: ${problems.length} catalogue entr${problems.length === 1 ? 'y was' : 'ies were'} left out (run: userscout catalogue validate)`,
    );
  }
  return catalogue;
}
