/**
 * Learned site limits on PostgreSQL, on the PostgreSQL store's pool (table in
 * migrations/postgres): one row per (origin, identity); expired rows are deleted as
 * the table is read.
 */
import type pg from 'pg';
import { entriesOfRows, type LearnedLimitEntry, type SiteLimitStore } from './site-limits.js';

/** What the store gives this class: queries that wait for the schema and report an outage as store_unavailable. */
export interface PostgresQuery {
  query<R extends pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<pg.QueryResult<R>>;
}

interface Row {
  origin: string;
  identity: string;
  per_second: number;
  stated: boolean;
  learned_at: string;
  expires_at: string;
  quiet_until: string | null;
}

export class PostgresSiteLimits implements SiteLimitStore {
  readonly #db: PostgresQuery;

  constructor(db: PostgresQuery) {
    this.#db = db;
  }

  async learned(now: number): Promise<readonly LearnedLimitEntry[]> {
    await this.#db.query('DELETE FROM site_limits WHERE expires_at <= $1', [now]);
    const { rows } = await this.#db.query<Row>('SELECT * FROM site_limits WHERE expires_at > $1', [now]);
    return entriesOfRows(rows);
  }

  async keep({ origin, identity, limit }: LearnedLimitEntry): Promise<void> {
    await this.#db.query(
      `INSERT INTO site_limits (origin, identity, per_second, stated, learned_at, expires_at, quiet_until)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (origin, identity) DO UPDATE SET per_second = EXCLUDED.per_second,
         stated = EXCLUDED.stated, learned_at = EXCLUDED.learned_at, expires_at = EXCLUDED.expires_at,
         quiet_until = EXCLUDED.quiet_until`,
      [origin, identity, limit.perSecond, limit.stated, limit.at, limit.expiresAt, limit.quietUntil ?? null],
    );
  }
}
