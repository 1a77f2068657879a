/**
 * The public site lists of WhatsMyName, Sherlock and Maigret, read from a
 * folder on disk (never committed: see the folder's README) and imported into
 * our format, for `catalogue audit` and `catalogue validate --reference`.
 * The reading is the only IO here; `counterparts.ts` does the rest.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CatalogueError } from '../errors.js';
import type { ReferenceEntry, ReferenceSource } from './counterparts.js';
import { importMaigret } from './importers/maigret.js';
import { importSherlock } from './importers/sherlock.js';
import type { ImportResult } from './importers/types.js';
import { importWhatsMyName } from './importers/whatsmyname.js';
import { loadCatalogue, parseCatalogueText } from './loader.js';

/** Where each list lives inside the reference folder. */
const REFERENCE_FILES: Readonly<Record<ReferenceSource, string>> = {
  whatsmyname: 'whatsmyname/wmn-data.json',
  sherlock: 'sherlock/data.json',
  maigret: 'maigret/data.json',
};

const IMPORTERS: Readonly<Record<ReferenceSource, (doc: unknown) => ImportResult>> = {
  whatsmyname: importWhatsMyName,
  sherlock: importSherlock,
  maigret: importMaigret,
};

/** The lists found in `dir` (a missing file is left out), each entry imported. Throws when none is there. */
export function readReferenceLists(dir: string): ReferenceEntry[] {
  const entries: ReferenceEntry[] = [];
  let found = 0;
  for (const [source, relative] of Object.entries(REFERENCE_FILES) as [ReferenceSource, string][]) {
    const file = join(dir, relative);
    if (!existsSync(file)) continue;
    found += 1;
    const doc = parseCatalogueText(readFileSync(file, 'utf8'), file);
    entries.push(...referenceEntries(source, doc));
  }
  if (found === 0)
    throw new CatalogueError(
      `No reference list in ${dir} (expected ${Object.values(REFERENCE_FILES).join(', ')})`,
    );
  return entries;
}

/** One list's entries, imported; WhatsMyName's entries keep the status it records for a missing account. */
export function referenceEntries(source: ReferenceSource, doc: unknown): ReferenceEntry[] {
  const { catalogue } = loadCatalogue(IMPORTERS[source](doc).document);
  const recorded = source === 'whatsmyname' ? whatsMyNameMissingCodes(doc) : new Map<string, number>();
  return catalogue.platforms.map((platform) => {
    const code = recorded.get(platform.name);
    return code === undefined ? { source, platform } : { source, platform, recordedMissing: [code] };
  });
}

/** `m_code` by site name (the importer keeps names, trimmed). */
function whatsMyNameMissingCodes(doc: unknown): Map<string, number> {
  const out = new Map<string, number>();
  const sites = (doc as { sites?: unknown }).sites;
  if (!Array.isArray(sites)) return out;
  for (const site of sites) {
    const { name, m_code: code } = (site ?? {}) as { name?: unknown; m_code?: unknown };
    if (typeof name === 'string' && typeof code === 'number' && !out.has(name.trim()))
      out.set(name.trim(), code);
  }
  return out;
}
