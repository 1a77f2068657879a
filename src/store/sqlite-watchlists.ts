/**
 * Watchlists on SQLite, on the SQLite store's connection. Its tables are
 * created here (IF NOT EXISTS), apart from the search store's migrations, so
 * the two evolve on their own. Claims run in BEGIN IMMEDIATE transactions, so
 * two processes on one file never claim the same work.
 */
import type { Database, Statement } from './sqlite-driver.js';
import { duplicateIdError } from './store.js';
import {
  cancelledDelivery,
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

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS watchlists (
    id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    spec TEXT NOT NULL,   -- JSON WatchlistSpec
    state TEXT NOT NULL,  -- JSON WatchlistState
    version INTEGER NOT NULL,
    due_at INTEGER NOT NULL
  );
  CREATE INDEX IF NOT EXISTS watchlists_by_owner ON watchlists (owner, created_at);
  CREATE INDEX IF NOT EXISTS watchlists_by_due_at ON watchlists (due_at);
  CREATE TABLE IF NOT EXISTS watch_changes (
    watchlist_id TEXT NOT NULL REFERENCES watchlists (id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    change TEXT NOT NULL, -- JSON WatchChange
    PRIMARY KEY (watchlist_id, seq)
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS webhook_deliveries (
    id TEXT PRIMARY KEY,
    watchlist_id TEXT NOT NULL REFERENCES watchlists (id) ON DELETE CASCADE,
    created_at INTEGER NOT NULL,
    delivery TEXT NOT NULL, -- JSON DeliveryRecord
    version INTEGER NOT NULL,
    due_at INTEGER           -- NULL: nothing more to do
  );
  CREATE INDEX IF NOT EXISTS webhook_deliveries_by_watchlist ON webhook_deliveries (watchlist_id, created_at);
  CREATE INDEX IF NOT EXISTS webhook_deliveries_by_due_at ON webhook_deliveries (due_at) WHERE due_at IS NOT NULL;
`;

interface WatchlistRow {
  id: string;
  owner: string;
  created_at: number;
  updated_at: number;
  spec: string;
  state: string;
  version: number;
}

function toWatchlist(row: WatchlistRow): Watchlist {
  return {
    id: row.id,
    owner: row.owner,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    spec: JSON.parse(row.spec) as WatchlistSpec,
    state: JSON.parse(row.state) as WatchlistState,
  };
}

export class SqliteWatchlists implements WatchlistStore {
  readonly #db: Database;
  readonly #sql: Record<string, Statement>;

  constructor(db: Database) {
    this.#db = db;
    db.exec(SCHEMA);
    const p = (sql: string) => db.prepare(sql);
    this.#sql = {
      insert: p(
        `INSERT INTO watchlists (id, owner, created_at, updated_at, spec, state, version, due_at)
         VALUES (@id, @owner, @createdAt, @updatedAt, @spec, @state, 0, @dueAt)`,
      ),
      get: p('SELECT * FROM watchlists WHERE id = ?'),
      byOwner: p('SELECT * FROM watchlists WHERE owner = ? ORDER BY created_at, id'),
      updateSpec: p('UPDATE watchlists SET spec = ?, updated_at = ? WHERE id = ?'),
      delete: p('DELETE FROM watchlists WHERE id = ?'),
      makeDue: p('UPDATE watchlists SET due_at = MIN(due_at, ?), state = ? WHERE id = ?'),
      due: p('SELECT * FROM watchlists WHERE due_at <= ? ORDER BY due_at, id LIMIT 1'),
      lease: p('UPDATE watchlists SET due_at = ?, version = version + 1 WHERE id = ?'),
      saveState: p('UPDATE watchlists SET state = ?, due_at = ? WHERE id = ? AND version = ?'),
      defer: p('UPDATE watchlists SET due_at = ? WHERE id = ? AND version = ?'),
      lastSeq: p('SELECT MAX(seq) AS seq FROM watch_changes WHERE watchlist_id = ?'),
      insertChange: p('INSERT INTO watch_changes (watchlist_id, seq, change) VALUES (?, ?, ?)'),
      changes: p('SELECT change FROM watch_changes WHERE watchlist_id = ? AND seq > ? ORDER BY seq LIMIT ?'),
      insertDelivery: p(
        `INSERT INTO webhook_deliveries (id, watchlist_id, created_at, delivery, version, due_at)
         VALUES (?, ?, ?, ?, 0, ?)`,
      ),
      getDelivery: p('SELECT delivery FROM webhook_deliveries WHERE id = ?'),
      deliveries: p(
        'SELECT delivery FROM webhook_deliveries WHERE watchlist_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?',
      ),
      dueDelivery: p(
        `SELECT d.id, d.delivery, d.version, w.owner FROM webhook_deliveries d JOIN watchlists w ON w.id = d.watchlist_id
         WHERE d.due_at IS NOT NULL AND d.due_at <= ? AND w.owner NOT IN (SELECT value FROM json_each(?))
         ORDER BY d.due_at LIMIT 1`,
      ),
      leaseDelivery: p('UPDATE webhook_deliveries SET due_at = ?, version = version + 1 WHERE id = ?'),
      saveDelivery: p('UPDATE webhook_deliveries SET delivery = ?, due_at = ? WHERE id = ? AND version = ?'),
      trimDeliveries: p(
        `DELETE FROM webhook_deliveries WHERE id IN (
           SELECT id FROM (
             SELECT d.id, d.due_at, d.created_at,
                    ROW_NUMBER() OVER (ORDER BY d.created_at DESC, d.rowid DESC) AS n
             FROM webhook_deliveries d JOIN watchlists w ON w.id = d.watchlist_id WHERE w.owner = @owner
           ) WHERE due_at IS NULL AND (n > @keep OR created_at < @createdBefore))`,
      ),
      ownerDeliveries: p(
        `SELECT COUNT(*) AS n FROM webhook_deliveries d JOIN watchlists w ON w.id = d.watchlist_id
         WHERE w.owner = ?`,
      ),
      pendingOfOwner: p(
        `SELECT d.id, d.delivery FROM webhook_deliveries d JOIN watchlists w ON w.id = d.watchlist_id
         WHERE w.owner = ? AND d.due_at IS NOT NULL`,
      ),
      cancelDelivery: p(
        'UPDATE webhook_deliveries SET delivery = ?, due_at = NULL, version = version + 1 WHERE id = ?',
      ),
      stopWatchlists: p(
        'UPDATE watchlists SET due_at = @never, version = version + 1 WHERE owner = @owner AND due_at < @never',
      ),
    };
  }

  async createWatchlist(w: Watchlist): Promise<void> {
    try {
      this.#sql.insert!.run({
        id: w.id,
        owner: w.owner,
        createdAt: w.createdAt,
        updatedAt: w.updatedAt,
        spec: JSON.stringify(w.spec),
        state: JSON.stringify(w.state),
        dueAt: w.state.nextRunAt,
      });
    } catch (error) {
      if ((error as { code?: string }).code?.startsWith('SQLITE_CONSTRAINT'))
        throw duplicateIdError('Watchlist', w.id, error);
      throw error;
    }
  }

  async getWatchlist(id: string): Promise<Watchlist | undefined> {
    const row = this.#sql.get!.get(id) as WatchlistRow | undefined;
    return row && toWatchlist(row);
  }

  async listWatchlists(owner: string): Promise<Watchlist[]> {
    return (this.#sql.byOwner!.all(owner) as WatchlistRow[]).map(toWatchlist);
  }

  async updateWatchlistSpec(id: string, spec: WatchlistSpec, updatedAt: number): Promise<boolean> {
    return this.#sql.updateSpec!.run(JSON.stringify(spec), updatedAt, id).changes > 0;
  }

  async deleteWatchlist(id: string): Promise<boolean> {
    return this.#sql.delete!.run(id).changes > 0;
  }

  async requestRun(id: string, at: number): Promise<'queued' | 'running' | 'not_found'> {
    return this.#db
      .transaction(() => {
        const row = this.#sql.get!.get(id) as WatchlistRow | undefined;
        if (!row) return 'not_found' as const;
        const state = JSON.parse(row.state) as WatchlistState;
        if (state.run) return 'running' as const;
        const next = { ...state, nextRunAt: Math.min(state.nextRunAt, at) };
        this.#sql.makeDue!.run(at, JSON.stringify(next), id);
        return 'queued' as const;
      })
      .immediate();
  }

  async claimDueWatchlist(now: number, leaseMs: number): Promise<Leased<Watchlist> | undefined> {
    return this.#db
      .transaction(() => {
        const row = this.#sql.due!.get(now) as WatchlistRow | undefined;
        if (!row) return undefined;
        this.#sql.lease!.run(now + leaseMs, row.id);
        return { value: toWatchlist(row), token: row.version + 1 };
      })
      .immediate();
  }

  async saveWatchlistState(
    id: string,
    token: number,
    state: WatchlistState,
    dueAt: number,
  ): Promise<boolean> {
    return this.#sql.saveState!.run(JSON.stringify(state), dueAt, id, token).changes > 0;
  }

  async deferWatchlist(id: string, token: number, dueAt: number): Promise<boolean> {
    return this.#sql.defer!.run(dueAt, id, token).changes > 0;
  }

  async finishWatchlistRun(
    id: string,
    token: number,
    finish: Parameters<WatchlistStore['finishWatchlistRun']>[2],
  ): Promise<boolean> {
    return this.#db
      .transaction(() => {
        if (this.#sql.saveState!.run(JSON.stringify(finish.state), finish.dueAt, id, token).changes === 0)
          return false;
        let seq = (this.#sql.lastSeq!.get(id) as { seq: number | null }).seq ?? 0;
        for (const change of finish.changes) {
          seq++;
          this.#sql.insertChange!.run(id, seq, JSON.stringify({ seq, ...change }));
        }
        for (const d of finish.deliveries) this.#insertDelivery(d);
        return true;
      })
      .immediate();
  }

  async listWatchChanges(
    watchlistId: string,
    options: { afterSeq?: number; limit?: number } = {},
  ): Promise<WatchChange[]> {
    const rows = this.#sql.changes!.all(watchlistId, options.afterSeq ?? 0, options.limit ?? -1) as {
      change: string;
    }[];
    return rows.map((r) => JSON.parse(r.change) as WatchChange);
  }

  #insertDelivery(d: DeliveryRecord): void {
    try {
      this.#sql.insertDelivery!.run(
        d.id,
        d.watchlistId,
        d.createdAt,
        JSON.stringify(d),
        deliveryDueAt(d) ?? null,
      );
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY')
        throw duplicateIdError('Delivery', d.id, error);
      throw error;
    }
  }

  async createDelivery(delivery: DeliveryRecord): Promise<void> {
    this.#insertDelivery(delivery);
  }

  async getDelivery(id: string): Promise<DeliveryRecord | undefined> {
    const row = this.#sql.getDelivery!.get(id) as { delivery: string } | undefined;
    return row && (JSON.parse(row.delivery) as DeliveryRecord);
  }

  async listDeliveries(watchlistId: string, limit = 100): Promise<DeliveryRecord[]> {
    const rows = this.#sql.deliveries!.all(watchlistId, limit) as { delivery: string }[];
    return rows.map((r) => JSON.parse(r.delivery) as DeliveryRecord);
  }

  async claimDueDelivery(
    now: number,
    leaseMs: number,
    skipOwners: readonly string[] = [],
  ): Promise<LeasedDelivery | undefined> {
    return this.#db
      .transaction(() => {
        const row = this.#sql.dueDelivery!.get(now, JSON.stringify(skipOwners)) as
          | { id: string; delivery: string; version: number; owner: string }
          | undefined;
        if (!row) return undefined;
        this.#sql.leaseDelivery!.run(now + leaseMs, row.id);
        return {
          value: JSON.parse(row.delivery) as DeliveryRecord,
          token: row.version + 1,
          owner: row.owner,
        };
      })
      .immediate();
  }

  async saveDelivery(delivery: DeliveryRecord, token: number): Promise<boolean> {
    const dueAt = deliveryDueAt(delivery) ?? null;
    return this.#sql.saveDelivery!.run(JSON.stringify(delivery), dueAt, delivery.id, token).changes > 0;
  }

  async trimDeliveries(owner: string, limits: { keep: number; createdBefore: number }): Promise<number> {
    return this.#db
      .transaction(() => {
        this.#sql.trimDeliveries!.run({ owner, keep: limits.keep, createdBefore: limits.createdBefore });
        return (this.#sql.ownerDeliveries!.get(owner) as { n: number }).n;
      })
      .immediate();
  }

  async stopOwner(owner: string): Promise<{ watchlists: number; deliveries: number }> {
    return this.#db
      .transaction(() => {
        const watchlists = this.#sql.stopWatchlists!.run({ owner, never: NEVER_DUE }).changes;
        const pending = this.#sql.pendingOfOwner!.all(owner) as { id: string; delivery: string }[];
        for (const row of pending) {
          const cancelled = cancelledDelivery(JSON.parse(row.delivery) as DeliveryRecord);
          this.#sql.cancelDelivery!.run(JSON.stringify(cancelled), row.id);
        }
        return { watchlists, deliveries: pending.length };
      })
      .immediate();
  }
}
