/**
 * The built-in families (`families.json`), read once from the source tree: the
 * built-in data files name them, and a catalogue file's own families join them
 * (loader.ts). Proved valid by a test (families.test.ts), as the data files are,
 * so no schema validator is loaded here.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseCatalogueText } from './parse-text.js';
import type { FamilySpec } from './schema.js';

const FAMILIES_FILE = fileURLToPath(new URL('../../src/catalogue/families.json', import.meta.url));

let families: ReadonlyMap<string, FamilySpec> | undefined;

export function builtinFamilies(): ReadonlyMap<string, FamilySpec> {
  if (families) return families;
  const doc = parseCatalogueText(readFileSync(FAMILIES_FILE, 'utf8'), FAMILIES_FILE) as {
    families: FamilySpec[];
  };
  families = new Map(doc.families.map((f) => [f.id, f]));
  return families;
}
