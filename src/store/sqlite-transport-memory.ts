/**
 * Remembered transports on SQLite, on the SQLite store's connection: one row per (origin,
 * identity). Its table is created here (IF NOT EXISTS), apart from the search store's
 * migrations, as the learned site limits' is; expired rows are deleted as the table is read.
 */
import type { Database, Statement } from './sqlite-driver.js';
import {
  entriesOfTransportRows,
  type RememberedTransport,
  type TransportMemoryRow,
  type TransportMemoryStore,
} from './transport-memory.js';

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS transport_memory (
    origin TEXT NOT NULL,
    identity TEXT NOT NULL,
    transport TEXT NOT NULL,
    learned_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (origin, identity)
  ) WITHOUT ROWID;
`;

export class SqliteTransportMemory implements TransportMemoryStore {
  readonly #sweep: Statement;
  readonly #list: Statement;
  readonly #put: Statement;

  constructor(db: Database) {
    db.exec(SCHEMA);
    this.#sweep = db.prepare('DELETE FROM transport_memory WHERE expires_at <= ?');
    this.#list = db.prepare('SELECT * FROM transport_memory WHERE expires_at > ?');
    this.#put = db.prepare(
      `INSERT INTO transport_memory (origin, identity, transport, learned_at, expires_at)
       VALUES (@origin, @identity, @transport, @at, @expiresAt)
       ON CONFLICT (origin, identity) DO UPDATE SET transport = excluded.transport,
         learned_at = excluded.learned_at, expires_at = excluded.expires_at`,
    );
  }

  async remembered(now: number): Promise<readonly RememberedTransport[]> {
    this.#sweep.run(now);
    return entriesOfTransportRows(this.#list.all(now) as TransportMemoryRow[]);
  }

  async keep({ origin, identity, transport, at, expiresAt }: RememberedTransport): Promise<void> {
    this.#put.run({ origin, identity, transport, at, expiresAt });
  }
}
