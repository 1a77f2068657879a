/**
 * Learned site limits on SQLite, on the SQLite store's connection: one row per (origin,
 * identity). Its table is created here (IF NOT EXISTS), apart from the search store's
 * migrations; expired rows are deleted as the table is read.
 */

import { entriesOfRows, type LearnedLimitEntry, type SiteLimitStore } from './site-limits.js';
import type { Database, Statement } from './sqlite-driver.js';

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS site_limits (
    origin TEXT NOT NULL,
    identity TEXT NOT NULL,
    per_second REAL NOT NULL,
    stated INTEGER NOT NULL,
    learned_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    quiet_until INTEGER,
    PRIMARY KEY (origin, identity)
  ) WITHOUT ROWID;
`;

interface Row {
  origin: string;
  identity: string;
  per_second: number;
  stated: number;
  learned_at: number;
  expires_at: number;
  quiet_until: number | null;
}

export class SqliteSiteLimits implements SiteLimitStore {
  readonly #sweep: Statement;
  readonly #list: Statement;
  readonly #put: Statement;

  constructor(db: Database) {
    db.exec(SCHEMA);
    this.#sweep = db.prepare('DELETE FROM site_limits WHERE expires_at <= ?');
    this.#list = db.prepare('SELECT * FROM site_limits WHERE expires_at > ?');
    this.#put = db.prepare(
      `INSERT INTO site_limits (origin, identity, per_second, stated, learned_at, expires_at, quiet_until)
       VALUES (@origin, @identity, @perSecond, @stated, @at, @expiresAt, @quietUntil)
       ON CONFLICT (origin, identity) DO UPDATE SET per_second = excluded.per_second,
         stated = excluded.stated, learned_at = excluded.learned_at, expires_at = excluded.expires_at,
         quiet_until = excluded.quiet_until`,
    );
  }

  async learned(now: number): Promise<readonly LearnedLimitEntry[]> {
    this.#sweep.run(now);
    return entriesOfRows(this.#list.all(now) as Row[]);
  }

  async keep({ origin, identity, limit }: LearnedLimitEntry): Promise<void> {
    this.#put.run({
      origin,
      identity,
      perSecond: limit.perSecond,
      stated: limit.stated ? 1 : 0,
      at: limit.at,
      expiresAt: limit.expiresAt,
      quietUntil: limit.quietUntil ?? null,
    });
  }
}
