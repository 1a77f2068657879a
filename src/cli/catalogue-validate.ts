/**
 * `userscout catalogue validate [FILE]`: prints every problem of a catalogue
 * (the built-in one when no file is given) and exits non-zero when there is any.
 */
import { readFileSync } from 'node:fs';
import { readBuiltinDocument } from '../catalogue/builtin.js';
import { type CatalogueProblem, loadCatalogue, parseCatalogueText } from '../catalogue/loader.js';

export interface ValidateReport {
  readonly source: string;
  readonly entries: number;
  readonly valid: number;
  readonly problems: readonly CatalogueProblem[];
}

export function validateDocument(doc: unknown, source: string): ValidateReport {
  const { catalogue, problems } = loadCatalogue(doc);
  const entries = Array.isArray((doc as { platforms?: unknown[] }).platforms)
    ? (doc as { platforms: unknown[] }).platforms.length
    : 0;
  return { source, entries, valid: catalogue.platforms.length, problems };
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
