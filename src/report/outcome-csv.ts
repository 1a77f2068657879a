/**
 * Outcomes as CSV (RFC 4180: CRLF line ends, quoted cells), the one writer the
 * CLI and the web page share. Columns carry the API's field names. Pure, and
 * with type imports only, so the web page bundles it.
 */
import type { Outcome } from '../engine/verdict/outcome.js';

/** The columns, in order: the API's field names, evidence fields by their own name. */
export const CSV_COLUMNS = [
  'username',
  'platform',
  'category',
  'status',
  'reason',
  'responseTime',
  'url',
  'httpStatus',
  'rule',
] as const;

const CRLF = '\r\n';

/** The outcomes of one search, in the order they are to be written. */
export interface CsvSearch {
  readonly username: string;
  readonly outcomes: readonly Outcome[];
}

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

/** A header line, then one line per outcome; every line ends with CRLF. */
export function outcomesCsv(searches: readonly CsvSearch[]): string {
  const lines: string[] = [CSV_COLUMNS.join(',')];
  for (const { username, outcomes } of searches) {
    for (const o of outcomes) {
      const cells = [
        username,
        o.platform,
        o.category,
        o.status,
        o.reason,
        o.responseTime,
        o.url,
        o.evidence.httpStatus,
        o.evidence.rule,
      ];
      lines.push(cells.map(csvCell).join(','));
    }
  }
  return lines.map((line) => line + CRLF).join('');
}
