/**
 * What both SQL backends do with a kind's site-fact table (site-fact-table.ts): one row per
 * (origin, identity), its fields in their columns and its expiry in `expires_at`; a fact
 * kept replaces the row, and expired rows are deleted as the table is read.
 */
import type { SiteFact } from '../schedule/site-facts.js';
import { EXPIRES_AT_COLUMN, type FactField, type SiteFactKind, type StoredFact } from './site-fact-table.js';

/** A stored field with its name: the kind's fields, then the expiry. */
export interface FactColumn extends FactField {
  readonly field: string;
}

export function columnsOf(kind: SiteFactKind<SiteFact>): readonly FactColumn[] {
  return [
    ...Object.entries(kind.fields).map(([field, spec]) => ({ field, ...spec })),
    { field: 'expiresAt', column: EXPIRES_AT_COLUMN, type: 'integer' },
  ];
}

export interface SiteFactStatements {
  /** Deletes the rows expired at the one parameter (`now`). */
  readonly sweep: string;
  /** Selects the rows not expired at the one parameter (`now`). */
  readonly list: string;
  /** Inserts or replaces a row: parameters origin, identity, then `columnsOf(kind)`'s in order. */
  readonly put: string;
}

/** The statements on `kind`'s table, `param(i)` writing the i-th parameter's placeholder (from 0). */
export function siteFactStatements<E extends SiteFact>(
  kind: SiteFactKind<E>,
  param: (index: number) => string,
): SiteFactStatements {
  const columns = columnsOf(kind).map(({ column }) => column);
  const names = ['origin', 'identity', ...columns];
  return {
    sweep: `DELETE FROM ${kind.table} WHERE ${EXPIRES_AT_COLUMN} <= ${param(0)}`,
    list: `SELECT * FROM ${kind.table} WHERE ${EXPIRES_AT_COLUMN} > ${param(0)}`,
    put: `INSERT INTO ${kind.table} (${names.join(', ')}) VALUES (${names.map((_, i) => param(i)).join(', ')})
      ON CONFLICT (origin, identity) DO UPDATE SET ${columns.map((c) => `${c} = excluded.${c}`).join(', ')}`,
  };
}

/** The parameters of `put` for `entry`, each field through `write` (an absent one as null). */
export function rowOf<E extends SiteFact>(
  kind: SiteFactKind<E>,
  entry: E,
  write: (value: StoredFact[string], column: FactColumn) => unknown = (value) => value,
): unknown[] {
  const stored = kind.encode(entry);
  const values = columnsOf(kind).map((column) => {
    const value = stored[column.field];
    return value === undefined ? null : write(value, column);
  });
  return [entry.origin, entry.identity, ...values];
}

/** The facts of the rows that make one, each non-null column through `read`. */
export function factsOfRows<E extends SiteFact>(
  kind: SiteFactKind<E>,
  rows: readonly Readonly<Record<string, unknown>>[],
  read: (value: unknown, column: FactColumn) => unknown = (value) => value,
): E[] {
  const columns = columnsOf(kind);
  const facts: E[] = [];
  for (const row of rows) {
    const { origin, identity } = row;
    if (typeof origin !== 'string' || typeof identity !== 'string') continue;
    const stored: Record<string, unknown> = {};
    for (const column of columns) {
      const value = row[column.column];
      stored[column.field] = value == null ? undefined : read(value, column);
    }
    const fact = kind.decode(origin, identity, stored);
    if (fact) facts.push(fact);
  }
  return facts;
}
