/**
 * What every importer returns: one upstream document converted to our format,
 * entry by entry, with a stated reason for every entry left out.
 */
import type { PlatformSpec } from '../schema.js';

export type CatalogueFormat = 'userscout' | 'whatsmyname' | 'sherlock' | 'maigret';

export const CATALOGUE_FORMATS: readonly CatalogueFormat[] = [
  'userscout',
  'whatsmyname',
  'sherlock',
  'maigret',
];

export interface ImportRejection {
  /** The entry's name upstream. */
  readonly name: string;
  readonly reason: string;
}

export interface ImportResult {
  readonly format: CatalogueFormat;
  /** Entries in the upstream document; always `document.platforms.length + rejected.length` for upstream formats. */
  readonly entries: number;
  readonly document: { platforms: PlatformSpec[]; shields?: unknown[] };
  readonly rejected: readonly ImportRejection[];
}
