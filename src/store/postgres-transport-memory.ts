/**
 * Remembered transports on PostgreSQL, on the PostgreSQL store's pool (table in
 * migrations/postgres): one row per (origin, identity); expired rows are deleted as the
 * table is read.
 */
import type { PostgresQuery } from './postgres-site-limits.js';
import {
  entriesOfTransportRows,
  type RememberedTransport,
  type TransportMemoryRow,
  type TransportMemoryStore,
} from './transport-memory.js';

export class PostgresTransportMemory implements TransportMemoryStore {
  readonly #db: PostgresQuery;

  constructor(db: PostgresQuery) {
    this.#db = db;
  }

  async remembered(now: number): Promise<readonly RememberedTransport[]> {
    await this.#db.query('DELETE FROM transport_memory WHERE expires_at <= $1', [now]);
    const { rows } = await this.#db.query<TransportMemoryRow>(
      'SELECT * FROM transport_memory WHERE expires_at > $1',
      [now],
    );
    return entriesOfTransportRows(rows);
  }

  async keep({ origin, identity, transport, at, expiresAt }: RememberedTransport): Promise<void> {
    await this.#db.query(
      `INSERT INTO transport_memory (origin, identity, transport, learned_at, expires_at)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (origin, identity) DO UPDATE SET transport = EXCLUDED.transport,
         learned_at = EXCLUDED.learned_at, expires_at = EXCLUDED.expires_at`,
      [origin, identity, transport, at, expiresAt],
    );
  }
}
