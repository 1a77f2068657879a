/**
 * `userscout catalogue validate [FILE]`: prints every problem of a catalogue
 * (the built-in one when no file is given) and exits non-zero when there is any.
 */
import { readFileSync } from 'node:fs';
import { readBuiltinDocument } from '../catalogue/builtin.js';
import { type CatalogueProblem, loadCatalogue, parseCatalogueText } from '../catalogue/loader.js';
import { mergeCatalogues } from '../catalogue/merge.js';
import type { PlatformSpec } from '../catalogue/schema.js';

export interface ValidateReport {
  readonly source: string;
  readonly entries: number;
  readonly valid: number;
  readonly problems: readonly CatalogueProblem[];
}

export function validateDocument(doc: unknown, source: string): ValidateReport {
  const { catalogue, problems } = loadCatalogue(doc);
  const specs = Array.isArray((doc as { platforms?: unknown[] }).platforms)
    ? (doc as { platforms: unknown[] }).platforms
    : [];
  const loaded = new Set(catalogue.platforms.map((p) => p.name));
  const valid = specs.filter(
    (s): s is PlatformSpec =>
      typeof s === 'object' && s !== null && loaded.has(String((s as { name?: unknown }).name).trim()),
  );
  return {
    source,
    entries: specs.length,
    valid: catalogue.platforms.length,
    problems: [...problems, ...sameAddressProblems(valid)],
  };
}

/** Two entries that check the same address are one platform written twice (the loader reports equal names). */
function sameAddressProblems(specs: readonly PlatformSpec[]): CatalogueProblem[] {
  const { dropped } = mergeCatalogues([{ source: 'this file', document: { platforms: [...specs] } }]);
  return dropped
    .filter((d) => d.reason.startsWith('checks the same address'))
    .map((d) => ({
      platform: d.name,
      field: '/check/url',
      message: d.reason.replace(' (from this file)', ''),
    }));
}

export function validateFile(file: string | undefined): ValidateReport {
  if (!file) return validateDocument(readBuiltinDocument(), 'built-in catalogue');
  return validateDocument(parseCatalogueText(readFileSync(file, 'utf8'), file), file);
}

export function formatValidateReport(report: ValidateReport): string {
  const lines = report.problems.map((p) => `${p.platform}${p.field ? ` ${p.field}` : ''}: ${p.message}`);
  lines.push(
    `${report.source}: ${report.entries} entries, ${report.valid} valid, ${report.problems.length} problem${report.problems.length === 1 ? '' : 's'}`,
  );
  return lines.join('\n');
}
