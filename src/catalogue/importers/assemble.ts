/**
 * The last step of every importer: each converted entry is run through the
 * loader on its own (an entry the loader refuses is rejected with the loader's
 * words), and names are kept unique without regard to case, and so are the
 * ids they give (the loader refuses a second entry of one id).
 */
import { loadCatalogue } from '../loader.js';
import { platformId } from '../platform.js';
import type { PlatformSpec } from '../schema.js';
import type { CatalogueFormat, ImportRejection, ImportResult } from './types.js';

export type Conversion = { readonly spec: PlatformSpec } | { readonly reason: string };

export interface ConvertedEntry {
  /** The entry's name upstream, used in rejections. */
  readonly name: string;
  readonly conversion: Conversion;
}

export function rejectEntry(reason: string): Conversion {
  return { reason };
}

export function assembleImport(format: CatalogueFormat, entries: readonly ConvertedEntry[]): ImportResult {
  const platforms: PlatformSpec[] = [];
  const rejected: ImportRejection[] = [];
  const taken: Taken = { names: new Set(), ids: new Set() };
  for (const { name, conversion } of entries) {
    if ('reason' in conversion) {
      rejected.push({ name, reason: conversion.reason });
      continue;
    }
    const spec = withUniqueName(conversion.spec, taken);
    const problem = loaderProblem(spec);
    if (problem) {
      rejected.push({ name, reason: problem });
      continue;
    }
    taken.names.add(spec.name.toLowerCase());
    taken.ids.add(platformId(spec.name, spec.home));
    platforms.push(spec);
  }
  return { format, entries: entries.length, document: { platforms }, rejected };
}

/** Names (lower-case) and ids of the entries kept so far. */
interface Taken {
  readonly names: Set<string>;
  readonly ids: Set<string>;
}

/** A second entry with a name, or an id, already used gets a numbered suffix, and a note that says so. */
function withUniqueName(spec: PlatformSpec, taken: Taken): PlatformSpec {
  const base = spec.name.trim();
  const used = (name: string) =>
    taken.names.has(name.toLowerCase()) || taken.ids.has(platformId(name, spec.home));
  let name = base;
  for (let n = 2; used(name); n++) name = `${base} (${n})`;
  if (name === spec.name) return spec;
  if (name === base) return { ...spec, name };
  const note = `Renamed from "${base}": an earlier entry has that name or its id.`;
  return { ...spec, name, notes: spec.notes ? `${spec.notes} ${note}` : note };
}

function loaderProblem(spec: PlatformSpec): string | undefined {
  const { problems } = loadCatalogue({ platforms: [spec] });
  if (problems.length === 0) return undefined;
  return problems.map((p) => `${p.field || '/'} ${p.message}`).join('; ');
}
