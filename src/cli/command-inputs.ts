/**
 * What the commands that run checks (`search`, `catalogue self-check`) read
 * from their options alike: the categories asked for, and the catalogue, with
 * a warning for entries left out.
 */

import { loadBuiltinCatalogue } from '../catalogue/builtin.js';
import { CATEGORIES, type Category, isCategory } from '../catalogue/categories.js';
import type { Catalogue } from '../catalogue/platform.js';
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

/**
 * The catalogue at `path` (the built-in one when absent); entries left out are counted on `warn`.
 * The validating reader of files (and its schema validator) is loaded only for a file: the
 * built-in catalogue needs neither (builtin.ts), and a search's memory counts every module.
 */
export async function loadCommandCatalogue(
  path: string | undefined,
  warn: (text: string) => void,
): Promise<Catalogue> {
  const { catalogue, problems } =
    path === undefined
      ? loadBuiltinCatalogue()
      : (await import('../catalogue/source.js')).loadCatalogueFrom(path);
  if (problems.length > 0) {
    warn(
      `warning: ${problems.length} catalogue entr${problems.length === 1 ? 'y was' : 'ies were'} left out (run: userscout catalogue validate)`,
    );
  }
  return catalogue;
}
