/**
 * Where a process gets its catalogue: the built-in one, or a file given with
 * `--catalogue` / USERSCOUT_CATALOGUE, in any supported format.
 */
import { loadBuiltinCatalogue } from './builtin.js';
import { freezeCatalogue } from './freeze.js';
import type { LoadResult } from './loader.js';
import { readCatalogueFile } from './read.js';

export function loadCatalogueFrom(file: string | undefined): LoadResult & { format: string } {
  if (!file) return { ...loadBuiltinCatalogue(), format: 'userscout' };
  const read = readCatalogueFile(file);
  // The built-in bot-shield fingerprints apply to every catalogue; a file may add its own.
  const builtinShields = loadBuiltinCatalogue().catalogue.shields;
  const catalogue = freezeCatalogue({
    platforms: read.load.catalogue.platforms,
    shields: [...builtinShields, ...read.load.catalogue.shields],
  });
  return { catalogue, problems: read.load.problems, format: read.format };
}
