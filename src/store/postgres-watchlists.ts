/**
 * Watchlists on PostgreSQL, on the PostgreSQL store's pool (tables in
 * migrations/postgres, records as JSONB). A claim is one UPDATE of the row
 * due first that no other claim holds (FOR UPDATE SKIP LOCKED), raising its
 * version, which is the fencing token; saves check it in their WHERE clause.
 * The end of a run is one transaction, so changes and deliveries are stored
 * with the state or not at all.
 */
import type pg from 'pg';
import { isUniqueViolation } from './postgres-unavailable.js';
import { duplicateIdError } from './store.js';
import {
  type DeliveryRecord,
  deliveryDueAt,
  type Leased,
  type LeasedDelivery,
  NEVER_DUE,
  type WatchChange,
  type Watchlist,
  type WatchlistSpec,
  type WatchlistState,
  type WatchlistStore,
} from './watchlists.js';

/** What the store gives this class: queries that wait for the schema and report an outage as store_unavailable. */
export interface PostgresAccess {
  query<R extends pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<pg.QueryResult<R>>;
  /** BEGIN ... COMMIT on one connection; ROLLBACK when `work` throws. */
  transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T>;
}

interface WatchlistRow {
  id: string;
  owner: string;
  created_at: string;
  updated_at: string;
  spec: WatchlistSpec;
  state: WatchlistState;
  version: number;
}

function toWatchlist(row: WatchlistRow): Watchlist {
  return {
    id: row.id,
    owner: row.owner,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    spec: row.spec,
    state: row.state,
  };
}

const WATCHLIST_COLUMNS = 'id, owner, created_at, updated_at, spec, state, version';

export class PostgresWatchlists implements WatchlistStore {
  readonly #db: PostgresAccess;

  constructor(db: PostgresAccess) {
    this.#db = db;
  }

  async createWatchlist(w: Watchlist): Promise<void> {
    try {
      await this.#db.query(
        `INSERT INTO watchlists (id, owner, created_at, updated_at, spec, state, due_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [
          w.id,
          w.owner,
          w.createdAt,
          w.updatedAt,
          JSON.stringify(w.spec),
          JSON.stringify(w.state),
          w.state.nextRunAt,
        ],
      );
    } catch (error) {
      if (isUniqueViolation(error)) throw duplicateIdError('Watchlist', w.id, error);
      throw error;
    }
  }

  async getWatchlist(id: string): Promise<Watchlist | undefined> {
    const { rows } = await this.#db.query<WatchlistRow>(
      `SELECT ${WATCHLIST_COLUMNS} FROM watchlists WHERE id = $1`,
      [id],
    );
    return rows[0] && toWatchlist(rows[0]);
  }

  async listWatchlists(owner: string): Promise<Watchlist[]> {
    const { rows } = await this.#db.query<WatchlistRow>(
      `SELECT ${WATCHLIST_COLUMNS} FROM watchlists WHERE owner = $1 ORDER BY created_at, id`,
      [owner],
    );
    return rows.map(toWatchlist);
  }

  async updateWatchlistSpec(id: string, spec: WatchlistSpec, updatedAt: number): Promise<boolean> {
    const { rowCount } = await this.#db.query(
      'UPDATE watchlists SET spec = $2, updated_at = $3 WHERE id = $1',
      [id, JSON.stringify(spec), updatedAt],
    );
    return (rowCount ?? 0) > 0;
  }

  async deleteWatchlist(id: string): Promise<boolean> {
    const { rowCount } = await this.#db.query('DELETE FROM watchlists WHERE id = $1', [id]);
    return (rowCount ?? 0) > 0;
  }

  requestRun(id: string, at: number): Promise<'queued' | 'running' | 'not_found'> {
    return this.#db.transaction(async (client) => {
      const { rows } = await client.query<Pick<WatchlistRow, 'state'>>(
        'SELECT state FROM watchlists WHERE id = $1 FOR UPDATE',
        [id],
      );
      const state = rows[0]?.state;
      if (!state) return 'not_found';
      if (state.run) return 'running';
      const next: WatchlistState = { ...state, nextRunAt: Math.min(state.nextRunAt, at) };
      await client.query('UPDATE watchlists SET due_at = LEAST(due_at, $2), state = $3 WHERE id = $1', [
        id,
        at,
        JSON.stringify(next),
      ]);
      return 'queued';
    });
  }

  async claimDueWatchlist(now: number, leaseMs: number): Promise<Leased<Watchlist> | undefined> {
    const { rows } = await this.#db.query<WatchlistRow>(
      `UPDATE watchlists w SET due_at = $2, version = w.version + 1
       FROM (SELECT id FROM watchlists WHERE due_at <= $1 ORDER BY due_at, id LIMIT 1 FOR UPDATE SKIP LOCKED) due
       WHERE w.id = due.id
       RETURNING ${WATCHLIST_COLUMNS.split(', ')
         .map((c) => `w.${c}`)
         .join(', ')}`,
      [now, now + leaseMs],
    );
    const row = rows[0];
    return row && { value: toWatchlist(row), token: row.version };
  }

  async saveWatchlistState(
    id: string,
    token: number,
    state: WatchlistState,
    dueAt: number,
  ): Promise<boolean> {
    const { rowCount } = await this.#db.query(
      'UPDATE watchlists SET state = $3, due_at = $4 WHERE id = $1 AND version = $2',
      [id, token, JSON.stringify(state), dueAt],
    );
    return (rowCount ?? 0) > 0;
  }

  async deferWatchlist(id: string, token: number, dueAt: number): Promise<boolean> {
    const { rowCount } = await this.#db.query(
      'UPDATE watchlists SET due_at = $3 WHERE id = $1 AND version = $2',
      [id, token, dueAt],
    );
    return (rowCount ?? 0) > 0;
  }

  finishWatchlistRun(
    id: string,
    token: number,
    finish: Parameters<WatchlistStore['finishWatchlistRun']>[2],
  ): Promise<boolean> {
    return this.#db.transaction(async (client) => {
      const { rows } = await client.query<{ change_count: number }>(
        `UPDATE watchlists SET state = $3, due_at = $4, change_count = change_count + $5
         WHERE id = $1 AND version = $2 RETURNING change_count`,
        [id, token, JSON.stringify(finish.state), finish.dueAt, finish.changes.length],
      );
      if (!rows[0]) return false;
      if (finish.changes.length > 0) {
        const first = rows[0].change_count - finish.changes.length + 1;
        const changes = finish.changes.map((change, i) => ({ seq: first + i, ...change }));
        await client.query(
          `INSERT INTO watch_changes (watchlist_id, seq, change)
           SELECT $1, (c->>'seq')::integer, c FROM jsonb_array_elements($2::jsonb) AS c`,
          [id, JSON.stringify(changes)],
        );
      }
      for (const d of finish.deliveries) await insertDelivery((sql, params) => client.query(sql, params), d);
      return true;
    });
  }

  async listWatchChanges(
    watchlistId: string,
    options: { afterSeq?: number; limit?: number } = {},
  ): Promise<WatchChange[]> {
    const { rows } = await this.#db.query<{ change: WatchChange }>(
      'SELECT change FROM watch_changes WHERE watchlist_id = $1 AND seq > $2 ORDER BY seq LIMIT $3',
      [watchlistId, options.afterSeq ?? 0, options.limit ?? null],
    );
    return rows.map((r) => r.change);
  }

  createDelivery(delivery: DeliveryRecord): Promise<void> {
    return insertDelivery((sql, params) => this.#db.query(sql, params), delivery);
  }

  async getDelivery(id: string): Promise<DeliveryRecord | undefined> {
    const { rows } = await this.#db.query<{ delivery: DeliveryRecord }>(
      'SELECT delivery FROM webhook_deliveries WHERE id = $1',
      [id],
    );
    return rows[0]?.delivery;
  }

  async listDeliveries(watchlistId: string, limit = 100): Promise<DeliveryRecord[]> {
    const { rows } = await this.#db.query<{ delivery: DeliveryRecord }>(
      `SELECT delivery FROM webhook_deliveries WHERE watchlist_id = $1
       ORDER BY created_at DESC, ord DESC LIMIT $2`,
      [watchlistId, limit],
    );
    return rows.map((r) => r.delivery);
  }

  async claimDueDelivery(
    now: number,
    leaseMs: number,
    skipOwners: readonly string[] = [],
  ): Promise<LeasedDelivery | undefined> {
    const { rows } = await this.#db.query<{ delivery: DeliveryRecord; version: number; owner: string }>(
      `UPDATE webhook_deliveries d SET due_at = $2, version = d.version + 1
       FROM (SELECT x.id, w.owner FROM webhook_deliveries x JOIN watchlists w ON w.id = x.watchlist_id
             WHERE x.due_at <= $1 AND NOT (w.owner = ANY($3::text[]))
             ORDER BY x.due_at, x.id LIMIT 1 FOR UPDATE OF x SKIP LOCKED) due
       WHERE d.id = due.id
       RETURNING d.delivery, d.version, due.owner`,
      [now, now + leaseMs, [...skipOwners]],
    );
    const row = rows[0];
    return row && { value: row.delivery, token: row.version, owner: row.owner };
  }

  async saveDelivery(delivery: DeliveryRecord, token: number): Promise<boolean> {
    const { rowCount } = await this.#db.query(
      'UPDATE webhook_deliveries SET delivery = $3, due_at = $4 WHERE id = $1 AND version = $2',
      [delivery.id, token, JSON.stringify(delivery), deliveryDueAt(delivery) ?? null],
    );
    return (rowCount ?? 0) > 0;
  }

  async trimDeliveries(owner: string, limits: { keep: number; createdBefore: number }): Promise<number> {
    return this.#db.transaction(async (client) => {
      await client.query(
        `WITH ranked AS (
           SELECT d.id, d.due_at, d.created_at,
                  row_number() OVER (ORDER BY d.created_at DESC, d.ord DESC) AS n
           FROM webhook_deliveries d JOIN watchlists w ON w.id = d.watchlist_id WHERE w.owner = $1)
         DELETE FROM webhook_deliveries WHERE id IN (
           SELECT id FROM ranked WHERE due_at IS NULL AND (n > $2 OR created_at < $3))`,
        [owner, limits.keep, limits.createdBefore],
      );
      const { rows } = await client.query<{ n: string }>(
        `SELECT count(*) AS n FROM webhook_deliveries d JOIN watchlists w ON w.id = d.watchlist_id
         WHERE w.owner = $1`,
        [owner],
      );
      return Number(rows[0]?.n ?? 0);
    });
  }

  stopOwner(owner: string): Promise<{ watchlists: number; deliveries: number }> {
    return this.#db.transaction(async (client) => {
      const stopped = await client.query(
        'UPDATE watchlists SET due_at = $2, version = version + 1 WHERE owner = $1 AND due_at < $2',
        [owner, NEVER_DUE],
      );
      // As cancelledDelivery (src/store/watchlists.ts) makes it, in SQL.
      const cancelled = await client.query(
        `UPDATE webhook_deliveries d
         SET delivery = (d.delivery - 'nextAttemptAt') || '{"state":"cancelled"}'::jsonb,
             due_at = NULL, version = d.version + 1
         FROM watchlists w WHERE w.id = d.watchlist_id AND w.owner = $1 AND d.due_at IS NOT NULL`,
        [owner],
      );
      return { watchlists: stopped.rowCount ?? 0, deliveries: cancelled.rowCount ?? 0 };
    });
  }
}

async function insertDelivery(
  query: (sql: string, params: unknown[]) => Promise<unknown>,
  d: DeliveryRecord,
): Promise<void> {
  try {
    await query(
      `INSERT INTO webhook_deliveries (id, watchlist_id, created_at, delivery, due_at)
       VALUES ($1, $2, $3, $4, $5)`,
      [d.id, d.watchlistId, d.createdAt, JSON.stringify(d), deliveryDueAt(d) ?? null],
    );
  } catch (error) {
    if (isUniqueViolation(error)) throw duplicateIdError('Delivery', d.id, error);
    throw error;
  }
}
