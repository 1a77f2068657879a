/**
 * The last step of every importer: each converted entry is run through the
 * loader on its own (an entry the loader refuses is rejected with the loader's
 * words), and names are kept unique without regard to case.
 */
import { loadCatalogue } from '../loader.js';
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
  const taken = new Set<string>();
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
    taken.add(spec.name.toLowerCase());
    platforms.push(spec);
  }
  return { format, entries: entries.length, document: { platforms }, rejected };
}

/** A second entry with a name already used gets a numbered suffix, and a note that says so. */
function withUniqueName(spec: PlatformSpec, taken: ReadonlySet<string>): PlatformSpec {
  const base = spec.name.trim();
  let name = base;
  for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${base} (${n})`;
  if (name === spec.name) return spec;
  if (name === base) return { ...spec, name };
  const note = `Renamed from "${base}": an earlier entry has that name.`;
  return { ...spec, name, notes: spec.notes ? `${spec.notes} ${note}` : note };
}

function loaderProblem(spec: PlatformSpec): string | undefined {
  const { problems } = loadCatalogue({ platforms: [spec] });
  if (problems.length === 0) return undefined;
  return problems.map((p) => `${p.field || '/'} ${p.message}`).join('; ');
}
