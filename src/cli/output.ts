/**
 * Output formats of `userscout search`: a table for people, JSON (the same
 * object `GET /api/search?id=` returns) and CSV. Pure: outcomes in, text out.
 */
import { byPlatformName, type Outcome, type OutcomeStatus } from '../engine/outcome.js';
import { outcomesCsv } from '../engine/outcome-csv.js';

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
  return [...outcomes].sort(byPlatformName);
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

/** CSV of every search, sorted like the other formats; hits only unless `all`. */
export function formatCsv(reports: readonly SearchReport[], all: boolean): string {
  return outcomesCsv(
    reports.map((r) => ({
      username: r.username,
      outcomes: sortOutcomes(r.results).filter((o) => all || o.status === 'hit'),
    })),
  );
}
