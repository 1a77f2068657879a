/**
 * Export of results as CSV (RFC 4180) and JSON. Pure functions.
 */
import type { Outcome } from '../engine/outcome.js';

export const CSV_COLUMNS = [
  'username',
  'platform',
  'category',
  'status',
  'reason',
  'response_time_ms',
  'url',
] as const;

/**
 * One CSV cell: quoted when it holds a comma, quote or line break. A cell that
 * a spreadsheet would read as a formula (= + - @ tab CR) gets a leading
 * apostrophe, as OWASP advises for CSV injection.
 */
export function csvCell(value: string | number | undefined): string {
  let text = value === undefined ? '' : String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function toCsv(username: string, outcomes: readonly Outcome[]): string {
  const rows = outcomes.map((o) =>
    [username, o.platform, o.category, o.status, o.reason, o.responseTime, o.url].map(csvCell).join(','),
  );
  return [CSV_COLUMNS.join(','), ...rows].join('\r\n') + '\r\n';
}

export interface ExportedSearch {
  readonly queryId: string;
  readonly username: string;
  readonly status: string;
  readonly createdAt: string;
  readonly completedAt?: string;
  readonly exportedAt: string;
  readonly results: readonly Outcome[];
}

export function toJson(search: ExportedSearch): string {
  return `${JSON.stringify(search, null, 2)}\n`;
}

/** A file name safe on every OS: userscout-NAME-YYYY-MM-DD.EXT */
export function exportFileName(username: string, at: Date, extension: 'csv' | 'json'): string {
  const safe = username.replace(/[^\p{L}\p{N}._-]+/gu, '_').slice(0, 60) || 'search';
  return `userscout-${safe}-${at.toISOString().slice(0, 10)}.${extension}`;
}
