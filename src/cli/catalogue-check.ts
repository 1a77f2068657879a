/**
 * `userscout catalogue check FILE [--format json|text]`: says what a catalogue
 * file in any supported format would give — how many entries import, and why
 * each other one does not. Exits non-zero when the file is unusable.
 */
import type { CatalogueFormat, ImportRejection } from '../catalogue/importers/types.js';
import { readCatalogueFile } from '../catalogue/read.js';
import { isUserscoutError } from '../errors.js';

import type { ReportFormat } from './choices.js';

export { REPORT_FORMATS, type ReportFormat } from './choices.js';

export interface CheckReport {
  readonly file: string;
  /** Null when the file could not be read, parsed or recognised. */
  readonly format: CatalogueFormat | null;
  readonly entries: number;
  readonly imported: number;
  readonly rejected: number;
  readonly reasons: readonly ImportRejection[];
  /** Why the file is unusable, when it is. */
  readonly error?: string;
}

export interface CheckOutcome {
  readonly report: CheckReport;
  readonly exitCode: number;
}

export function checkCatalogueFile(file: string): CheckOutcome {
  try {
    const result = readCatalogueFile(file);
    const report: CheckReport = {
      file,
      format: result.format,
      entries: result.entries,
      imported: result.imported,
      rejected: result.rejected.length,
      reasons: result.rejected,
    };
    if (result.imported === 0) {
      return { report: { ...report, error: 'nothing in the file can be imported' }, exitCode: 1 };
    }
    return { report, exitCode: 0 };
  } catch (error) {
    // Only our own errors describe the file; anything else is a bug and should surface.
    if (!isUserscoutError(error)) throw error;
    return {
      report: { file, format: null, entries: 0, imported: 0, rejected: 0, reasons: [], error: error.message },
      exitCode: 1,
    };
  }
}

export function formatCheckReport(report: CheckReport, format: ReportFormat): string {
  if (format === 'json') return JSON.stringify(report, null, 2);
  const lines = report.reasons.map((r) => `${r.name}: ${r.reason}`);
  if (report.format !== null) {
    lines.push(
      `${report.file}: ${report.format} format, ${report.entries} entries, ${report.imported} imported, ${report.rejected} rejected`,
    );
  }
  if (report.error) lines.push(`${report.file}: ${report.error}`);
  return lines.join('\n');
}
