/**
 * Export of results as CSV (the shared writer in `report/outcome-csv.ts`) and
 * JSON, and the file name of an export. Pure functions.
 */
import type { Outcome } from '../engine/verdict/outcome.js';
import { outcomesCsv } from '../report/outcome-csv.js';

/** CSV of what the page shows, in the order it shows it: the CLI's writer (`outcome-csv.ts`). */
export function toCsv(username: string, outcomes: readonly Outcome[]): string {
  return outcomesCsv([{ username, outcomes }]);
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
