/**
 * `userscout catalogue audit --reference DIR [--catalogue FILE] [--format table|json] [--summary]`:
 * for every platform of a catalogue (the built-in one by default), its
 * counterparts in the public site lists of the reference folder and where they
 * disagree (catalogue/audit.ts). A listing, not a verdict: it exits 0 whatever
 * it finds, and 1 only when a file cannot be used.
 */
import { type AuditReport, auditCatalogue } from '../catalogue/audit.js';
import { loadBuiltinCatalogue } from '../catalogue/builtin.js';
import type { Platform } from '../catalogue/platform.js';
import { readCatalogueFile } from '../catalogue/read.js';
import { readReferenceLists } from '../catalogue/reference-lists.js';
import { plural } from '../report/coverage.js';
import type { AuditFormat } from './choices.js';

export { AUDIT_FORMATS, type AuditFormat } from './choices.js';

export interface AuditOptions {
  readonly reference: string;
  readonly catalogue?: string | undefined;
}

export function runAudit(options: AuditOptions): AuditReport {
  const platforms: readonly Platform[] = options.catalogue
    ? readCatalogueFile(options.catalogue).load.catalogue.platforms
    : loadBuiltinCatalogue().catalogue.platforms;
  return auditCatalogue(platforms, readReferenceLists(options.reference));
}

const HEADER = ['PLATFORM', 'COUNTERPART', 'MATCH', 'FIELD', 'OURS', 'THEIRS'] as const;

/** At most this many characters of a cell, so a long marker list keeps the table readable. */
const CELL_WIDTH = 60;

function cell(text: string): string {
  return text.length > CELL_WIDTH ? `${text.slice(0, CELL_WIDTH - 1)}…` : text;
}

export function formatAudit(report: AuditReport, format: AuditFormat, summaryOnly = false): string {
  if (format === 'json') return JSON.stringify(summaryOnly ? { summary: report.summary } : report, null, 2);
  const lines = summaryOnly ? [] : table(report);
  lines.push(...summaryLines(report));
  return lines.join('\n');
}

function table(report: AuditReport): string[] {
  const rows = report.platforms.flatMap((p) =>
    p.counterparts.flatMap((c) =>
      c.disagreements.map((d) => [p.platform, `${c.source}: ${c.name}`, c.match, d.field, d.ours, d.theirs]),
    ),
  );
  if (rows.length === 0) return [];
  const cells = rows.map((r) => r.map(cell));
  const widths = HEADER.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]!.length)));
  const line = (r: readonly string[]) =>
    r
      .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(HEADER), ...cells.map(line), ''];
}

function summaryLines(report: AuditReport): string[] {
  const s = report.summary;
  const fields = Object.entries(s.byField)
    .filter(([, n]) => n > 0)
    .map(([f, n]) => `${f} ${n}`);
  const sources = Object.entries(s.bySource).map(([source, n]) => `${source} ${n}`);
  const lines = [
    `audit: ${plural(s.platforms, 'platform')}; ${s.sameAddress} with a counterpart on the same address, ${s.sameHostOnly} on the same host only, ${s.noCounterpart} with none`,
    `counterparts: ${sources.join(', ')}`,
    `disagreements: ${fields.length > 0 ? fields.join(', ') : 'none'}`,
  ];
  if (s.departsFromAll.length > 0)
    lines.push(
      `departs from every same-address counterpart (${s.departsFromAll.length}): ${s.departsFromAll.join(', ')}`,
    );
  return lines;
}
