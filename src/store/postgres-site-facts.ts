/**
 * A kind's site facts on PostgreSQL, on the PostgreSQL store's pool (sql-site-facts.ts says
 * what both SQL backends do). The tables come from migrations/postgres.
 */
import type pg from 'pg';
import type { SiteFact } from '../schedule/site-facts.js';
import type { SiteFactKind, SiteFactTable } from './site-fact-table.js';
import { factsOfRows, rowOf, type SiteFactStatements, siteFactStatements } from './sql-site-facts.js';

/** What the store gives this class: queries that wait for the schema and report an outage as store_unavailable. */
export interface PostgresQuery {
  query<R extends pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<pg.QueryResult<R>>;
}

export class PostgresSiteFacts<E extends SiteFact> implements SiteFactTable<E> {
  readonly #db: PostgresQuery;
  readonly #kind: SiteFactKind<E>;
  readonly #sql: SiteFactStatements;

  constructor(db: PostgresQuery, kind: SiteFactKind<E>) {
    this.#db = db;
    this.#kind = kind;
    this.#sql = siteFactStatements(kind, (index) => `$${index + 1}`);
  }

  async read(now: number): Promise<readonly E[]> {
    await this.#db.query(this.#sql.sweep, [now]);
    const { rows } = await this.#db.query<Record<string, unknown>>(this.#sql.list, [now]);
    return factsOfRows(this.#kind, rows);
  }

  async keep(entry: E): Promise<void> {
    await this.#db.query(this.#sql.put, rowOf(this.#kind, entry));
  }
}
