/**
 * Output formats of `userscout search`: a table for people, JSON (the same
 * object `GET /api/search?id=` returns) and CSV. Pure: outcomes in, text out.
 */
import type { Outcome, OutcomeStatus } from '../engine/outcome.js';

export type OutputFormat = 'table' | 'json' | 'csv';
export const OUTPUT_FORMATS: readonly OutputFormat[] = ['table', 'json', 'csv'];

export interface SearchReport {
  readonly username: string;
  readonly status: 'completed';
  readonly totalPlatforms: number;
  readonly results: readonly Outcome[];
}

export function summarise(outcomes: readonly Outcome[]): Record<OutcomeStatus, number> {
  const counts: Record<OutcomeStatus, number> = { hit: 0, miss: 0, unknown: 0, error: 0, invalid: 0 };
  for (const o of outcomes) counts[o.status]++;
  return counts;
}

export function sortOutcomes(outcomes: readonly Outcome[]): Outcome[] {
  return [...outcomes].sort((a, b) => a.platform.localeCompare(b.platform, 'en', { sensitivity: 'base' }));
}

export function formatTable(report: SearchReport, all: boolean): string {
  const rows = sortOutcomes(report.results).filter((o) => all || o.status === 'hit');
  if (rows.length === 0) return `${report.username}: no ${all ? 'results' : 'hits'}`;
  const cells = rows.map((o) => [
    o.platform,
    o.reason ? `${o.status} (${o.reason})` : o.status,
    `${o.responseTime} ms`,
    o.url,
  ]);
  const header = ['PLATFORM', 'STATUS', 'TIME', 'URL'];
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) =>
    c
      .map((v, i) => (i === c.length - 1 ? v : v.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...cells.map(line)].join('\n');
}

export function formatJson(reports: readonly SearchReport[]): string {
  const sorted = reports.map((r) => ({ ...r, results: sortOutcomes(r.results) }));
  return JSON.stringify(sorted.length === 1 ? sorted[0] : sorted, null, 2);
}

const CSV_COLUMNS = [
  'username',
  'platform',
  'category',
  'status',
  'reason',
  'responseTime',
  'url',
  'httpStatus',
  'rule',
];

function csvCell(value: unknown): string {
  const text = value === undefined || value === null ? '' : String(value);
  // Quote when needed; neutralise spreadsheet formulas.
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function formatCsv(reports: readonly SearchReport[], all: boolean): string {
  const lines = [CSV_COLUMNS.join(',')];
  for (const r of reports) {
    for (const o of sortOutcomes(r.results)) {
      if (!all && o.status !== 'hit') continue;
      lines.push(
        [
          r.username,
          o.platform,
          o.category,
          o.status,
          o.reason,
          o.responseTime,
          o.url,
          o.evidence.httpStatus,
          o.evidence.rule,
        ]
          .map(csvCell)
          .join(','),
      );
    }
  }
  return lines.join('\n');
}
