/**
 * Format detection and the one entry point that turns any supported catalogue
 * document into ours.
 */
import { CatalogueError } from '../../errors.js';
import type { PlatformSpec } from '../schema.js';
import { importMaigret, looksLikeMaigret } from './maigret.js';
import { isRecord } from './shape.js';
import { importSherlock, looksLikeSherlock } from './sherlock.js';
import type { CatalogueFormat, ImportResult } from './types.js';
import { importWhatsMyName, looksLikeWhatsMyName } from './whatsmyname.js';

export type { CatalogueFormat, ImportRejection, ImportResult } from './types.js';
export { CATALOGUE_FORMATS } from './types.js';

function looksLikeUserscout(doc: unknown): boolean {
  return isRecord(doc) && Array.isArray(doc.platforms);
}

/** Checked in this order: Sherlock's shape (a map of sites) is the loosest, so it comes last. */
const DETECTORS: readonly (readonly [CatalogueFormat, (doc: unknown) => boolean])[] = [
  ['userscout', looksLikeUserscout],
  ['whatsmyname', looksLikeWhatsMyName],
  ['maigret', looksLikeMaigret],
  ['sherlock', looksLikeSherlock],
];

export function detectFormat(doc: unknown): CatalogueFormat | undefined {
  return DETECTORS.find(([, looksLike]) => looksLike(doc))?.[0];
}

export const UNKNOWN_FORMAT_MESSAGE =
  'is in no known catalogue format (expected userscout {"platforms": [...]}, WhatsMyName {"sites": [...]}, Maigret {"sites": {...}, "engines": {...}} or Sherlock {"<name>": {"url", "errorType", ...}})';

/**
 * Converts a parsed document to our format. Our own format passes through
 * unchanged: the loader reports its problems. Throws a CatalogueError when the
 * document is in no known format.
 */
export function importCatalogue(doc: unknown): ImportResult {
  const format = detectFormat(doc);
  switch (format) {
    case 'whatsmyname':
      return importWhatsMyName(doc);
    case 'sherlock':
      return importSherlock(doc);
    case 'maigret':
      return importMaigret(doc);
    case 'userscout': {
      const document = doc as { platforms: PlatformSpec[]; shields?: unknown[] };
      return { format, entries: document.platforms.length, document, rejected: [] };
    }
    default:
      throw new CatalogueError(`The document ${UNKNOWN_FORMAT_MESSAGE}`);
  }
}
