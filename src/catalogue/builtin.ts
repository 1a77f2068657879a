/**
 * The built-in catalogue: every `data/<category>.json` file (its entries of a family
 * filled in from `families.json`) plus `shields.json`,
 * read from the source tree (the same path from `src/` and from `dist/`). Its
 * entries are proved valid by a test (builtin.test.ts: the validating loader finds
 * no problem and builds the same catalogue), so a process loads it without the
 * schema validator (TypeBox), which costs the command line's search memory; a
 * catalogue file a user gives is validated (loader.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CatalogueError } from '../errors.js';
import { builtinFamilies } from './builtin-families.js';
import { expandFamilies } from './families.js';
import type { LoadResult } from './loader.js';
import { normaliseCatalogue } from './normalise.js';
import { parseCatalogueText } from './parse-text.js';

const SOURCE_DIR = fileURLToPath(new URL('../../src/catalogue/', import.meta.url));
const BUILTIN_DATA_DIR = join(SOURCE_DIR, 'data');
const BUILTIN_SHIELDS_FILE = join(SOURCE_DIR, 'shields.json');

/**
 * Platforms of every data file, concatenated, each entry of a family with its family's rules
 * filled in (families.ts), with the shield fingerprints.
 */
export function readBuiltinDocument(): { platforms: unknown[]; shields: unknown[] } {
  const platforms: unknown[] = [];
  for (const file of readdirSync(BUILTIN_DATA_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    const path = join(BUILTIN_DATA_DIR, file);
    const doc = parseCatalogueText(readFileSync(path, 'utf8'), path) as { platforms?: unknown };
    if (Array.isArray(doc.platforms)) platforms.push(...doc.platforms);
  }
  const expanded = expandFamilies(platforms, builtinFamilies());
  if (expanded.problems.length > 0)
    throw new CatalogueError(
      `built-in catalogue: ${expanded.problems.map((p) => `${p.platform}: ${p.message}`).join('; ')}`,
    );
  return { platforms: expanded.platforms, shields: readShieldsDocument() };
}

export function readShieldsDocument(): unknown[] {
  const doc = parseCatalogueText(readFileSync(BUILTIN_SHIELDS_FILE, 'utf8'), BUILTIN_SHIELDS_FILE) as {
    shields?: unknown[];
  };
  return doc.shields ?? [];
}

let cached: LoadResult | undefined;

/** Loads once per process; the result is frozen. */
export function loadBuiltinCatalogue(): LoadResult {
  cached ??= { catalogue: normaliseCatalogue(readBuiltinDocument()), problems: [] };
  return cached;
}
