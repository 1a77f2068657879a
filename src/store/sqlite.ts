/**
 * The embedded store: one SQLite file (or ':memory:') through better-sqlite3,
 * WAL journal, schema migrated at open. The driver is synchronous; methods are
 * async only to fit the Store interface, so a thrown error becomes a rejection.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Outcome, OutcomeStatus } from '../engine/outcome.js';
import { UserscoutError } from '../errors.js';
import { type Database, openDatabase, type Transaction } from './sqlite-driver.js';
import {
  ANSWERED_STATUSES,
  type ApiKeyRecord,
  duplicateIdError,
  emptyByStatus,
  type PlatformStats,
  RECENT_MS_ALPHA,
  type SearchCursor,
  type SearchProgress,
  type SearchRecord,
  type SearchSnapshot,
  type SearchState,
  type Store,
  type StoredOutcome,
  type Tier,
} from './store.js';

/** How long a statement waits for another process's write lock before failing with SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 5_000;

/** Searches deleted per sweep transaction: each takes its outcomes along, several hundred rows apiece. */
const SWEEP_SEARCH_BATCH = 100;
const SWEEP_CACHE_BATCH = 5_000;

/**
 * Schema versions in order: entry i takes `user_version` from i to i + 1.
 * Append new entries; never edit one that has shipped.
 */
const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE searches (
    id TEXT PRIMARY KEY,
    username TEXT NOT NULL,
    state TEXT NOT NULL,
    tier TEXT NOT NULL,
    client TEXT NOT NULL,
    platform_ids TEXT NOT NULL, -- JSON array of platform ids
    estimated_seconds REAL NOT NULL,
    created_at INTEGER NOT NULL,
    started_at INTEGER,
    finished_at INTEGER,
    error TEXT
  );
  CREATE INDEX searches_by_created_at ON searches (created_at);
  CREATE INDEX searches_unfinished ON searches (created_at, id) WHERE state IN ('queued', 'running');

  CREATE TABLE outcomes (
    search_id TEXT NOT NULL REFERENCES searches (id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    platform_id TEXT NOT NULL,
    status TEXT NOT NULL,
    outcome TEXT NOT NULL, -- JSON Outcome, exactly as added
    PRIMARY KEY (search_id, seq),
    UNIQUE (search_id, platform_id)
  ) WITHOUT ROWID;

  CREATE TABLE outcome_cache (
    username TEXT NOT NULL, -- case-sensitive: BINARY collation
    platform_id TEXT NOT NULL,
    outcome TEXT NOT NULL,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (username, platform_id)
  ) WITHOUT ROWID;
  CREATE INDEX outcome_cache_by_expires_at ON outcome_cache (expires_at);

  CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    tier TEXT NOT NULL,
    hash TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
  );

  CREATE TABLE platform_stats (
    platform_id TEXT PRIMARY KEY,
    checks INTEGER NOT NULL,
    hit_count INTEGER NOT NULL,
    miss_count INTEGER NOT NULL,
    unknown_count INTEGER NOT NULL,
    error_count INTEGER NOT NULL,
    invalid_count INTEGER NOT NULL,
    answered INTEGER NOT NULL, -- checks with status hit, miss or unknown
    answered_ms REAL NOT NULL, -- sum of their response times
    recent_ms REAL NOT NULL,
    last_checked_at INTEGER NOT NULL
  );
  `,
  // A search readable only with the key that started it.
  `ALTER TABLE searches ADD COLUMN private INTEGER NOT NULL DEFAULT 0;`,
  // A client's own searches, newest first (GET /api/searches).
  `CREATE INDEX searches_by_client ON searches (client, created_at DESC, id DESC);`,
];

interface SearchRow {
  id: string;
  username: string;
  state: SearchState;
  tier: Tier;
  client: string;
  private: number;
  platform_ids: string;
  estimated_seconds: number;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
  error: string | null;
}

interface ApiKeyRow {
  id: string;
  name: string;
  tier: Tier;
  hash: string;
  created_at: number;
  revoked_at: number | null;
}

interface PlatformStatsRow {
  platform_id: string;
  checks: number;
  hit_count: number;
  miss_count: number;
  unknown_count: number;
  error_count: number;
  invalid_count: number;
  answered: number;
  answered_ms: number;
  recent_ms: number;
  last_checked_at: number;
}

export class SqliteStore implements Store {
  readonly #db: Database;
  readonly #sql: ReturnType<typeof prepareStatements>;
  /** One read transaction: the search, its counts and its outcomes agree. */
  readonly #snapshot: Transaction<
    [string, { statuses?: readonly OutcomeStatus[] }],
    SearchSnapshot | undefined
  >;
  readonly #addOutcomes: Transaction<[string, readonly Outcome[]], (number | undefined)[]>;

  /** `path`: a database file (its folders are created) or ':memory:'. */
  constructor(path: string) {
    if (path !== ':memory:' && path !== '') mkdirSync(dirname(path), { recursive: true });
    this.#db = openDatabase(path);
    try {
      this.#db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
      this.#db.exec('PRAGMA journal_mode = WAL');
      this.#db.exec('PRAGMA synchronous = NORMAL');
      this.#db.exec('PRAGMA foreign_keys = ON');
      migrate(this.#db);
      this.#sql = prepareStatements(this.#db);
    } catch (error) {
      this.#db.close();
      throw error;
    }
    const sql = this.#sql;
    this.#snapshot = this.#db.transaction((id: string, options: { statuses?: readonly OutcomeStatus[] }) => {
      const row = sql.getSearch.get(id) as SearchRow | undefined;
      if (!row) return undefined;
      const statuses = options.statuses;
      return {
        search: toSearch(row),
        progress: this.#progress(id),
        outcomes: this.#listOutcomes(id, statuses === undefined ? {} : { statuses }),
      };
    });
    this.#addOutcomes = this.#db.transaction((searchId: string, outcomes: readonly Outcome[]) => {
      if (sql.searchExists.get(searchId) === undefined) {
        throw new UserscoutError('search_not_found', `No search ${searchId} to add an outcome to`);
      }
      return outcomes.map((outcome) => {
        const row = sql.insertOutcome.get({
          searchId,
          platformId: outcome.platformId,
          status: outcome.status,
          outcome: JSON.stringify(outcome),
        }) as { seq: number } | undefined;
        return row?.seq;
      });
    });
  }

  async createSearch(search: SearchRecord): Promise<void> {
    refusingDuplicates('Search', search.id, () =>
      this.#sql.insertSearch.run({
        id: search.id,
        username: search.username,
        state: search.state,
        tier: search.tier,
        client: search.client,
        private: search.private ? 1 : 0,
        platformIds: JSON.stringify(search.platformIds),
        estimatedSeconds: search.estimatedSeconds,
        createdAt: search.createdAt,
        startedAt: search.startedAt ?? null,
        finishedAt: search.finishedAt ?? null,
        error: search.error ?? null,
      }),
    );
  }

  async getSearch(id: string): Promise<SearchRecord | undefined> {
    const row = this.#sql.getSearch.get(id) as SearchRow | undefined;
    return row && toSearch(row);
  }

  async updateSearch(
    id: string,
    patch: Partial<Pick<SearchRecord, 'state' | 'startedAt' | 'finishedAt' | 'error'>>,
  ): Promise<void> {
    this.#sql.updateSearch.run({
      id,
      state: patch.state ?? null,
      startedAt: patch.startedAt ?? null,
      finishedAt: patch.finishedAt ?? null,
      error: patch.error ?? null,
    });
  }

  async addOutcome(searchId: string, outcome: Outcome): Promise<number | undefined> {
    return this.#addOutcomes.immediate(searchId, [outcome])[0];
  }

  async addOutcomes(searchId: string, outcomes: readonly Outcome[]): Promise<(number | undefined)[]> {
    return this.#addOutcomes.immediate(searchId, outcomes);
  }

  async listOutcomes(
    searchId: string,
    options: { afterSeq?: number; statuses?: readonly OutcomeStatus[] } = {},
  ): Promise<StoredOutcome[]> {
    return this.#listOutcomes(searchId, options);
  }

  #listOutcomes(
    searchId: string,
    options: { afterSeq?: number; statuses?: readonly OutcomeStatus[] },
  ): StoredOutcome[] {
    const rows = this.#sql.listOutcomes.all({
      searchId,
      afterSeq: options.afterSeq ?? 0,
      statuses: options.statuses === undefined ? null : JSON.stringify(options.statuses),
    }) as { seq: number; outcome: string }[];
    return rows.map((row) => ({ seq: row.seq, outcome: JSON.parse(row.outcome) as Outcome }));
  }

  async progress(searchId: string): Promise<SearchProgress> {
    return this.#progress(searchId);
  }

  async snapshot(
    id: string,
    options: { statuses?: readonly OutcomeStatus[] } = {},
  ): Promise<SearchSnapshot | undefined> {
    return this.#snapshot(id, options);
  }

  #progress(searchId: string): SearchProgress {
    const rows = this.#sql.countOutcomes.all(searchId) as { status: OutcomeStatus; n: number }[];
    const byStatus = emptyByStatus();
    let checked = 0;
    for (const row of rows) {
      byStatus[row.status] = row.n;
      checked += row.n;
    }
    return { checked, hits: byStatus.hit, byStatus };
  }

  async listSearchesByClient(
    client: string,
    options: { readonly limit: number; readonly before?: SearchCursor | undefined },
  ): Promise<SearchRecord[]> {
    const rows = (
      options.before
        ? this.#sql.searchesByClientBefore.all({
            client,
            createdAt: options.before.createdAt,
            id: options.before.id,
            limit: options.limit,
          })
        : this.#sql.searchesByClient.all({ client, limit: options.limit })
    ) as SearchRow[];
    return rows.map(toSearch);
  }

  async unfinishedSearches(): Promise<SearchRecord[]> {
    return (this.#sql.unfinishedSearches.all() as SearchRow[]).map(toSearch);
  }

  async sweepSearches(before: number): Promise<number> {
    let deleted = 0;
    // Batches keep each write transaction short; yielding between them lets other work run.
    for (;;) {
      const { changes } = this.#sql.sweepSearches.run(before, SWEEP_SEARCH_BATCH);
      deleted += changes;
      if (changes < SWEEP_SEARCH_BATCH) break;
      await nextTick();
    }
    // Rows that expired before the cutoff are past any use; no clock needed.
    for (;;) {
      const { changes } = this.#sql.sweepCache.run(before, SWEEP_CACHE_BATCH);
      if (changes < SWEEP_CACHE_BATCH) break;
      await nextTick();
    }
    return deleted;
  }

  async getCachedOutcome(username: string, platformId: string, now: number): Promise<Outcome | undefined> {
    const row = this.#sql.getCached.get({ username, platformId, now }) as { outcome: string } | undefined;
    return row && (JSON.parse(row.outcome) as Outcome);
  }

  async putCachedOutcome(username: string, outcome: Outcome, expiresAt: number): Promise<void> {
    this.#sql.putCached.run({
      username,
      platformId: outcome.platformId,
      outcome: JSON.stringify(outcome),
      expiresAt,
    });
  }

  async createApiKey(key: ApiKeyRecord): Promise<void> {
    refusingDuplicates('API key', key.id, () =>
      this.#sql.insertApiKey.run({
        id: key.id,
        name: key.name,
        tier: key.tier,
        hash: key.hash,
        createdAt: key.createdAt,
        revokedAt: key.revokedAt ?? null,
      }),
    );
  }

  async findApiKeyByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const row = this.#sql.findApiKey.get(hash) as ApiKeyRow | undefined;
    return row && toApiKey(row);
  }

  async listApiKeys(): Promise<ApiKeyRecord[]> {
    return (this.#sql.listApiKeys.all() as ApiKeyRow[]).map(toApiKey);
  }

  async revokeApiKey(id: string, at: number): Promise<boolean> {
    return this.#sql.revokeApiKey.run(at, id).changes > 0;
  }

  async recordCheck(
    platformId: string,
    status: OutcomeStatus,
    responseTimeMs: number,
    at: number,
  ): Promise<void> {
    const answered = ANSWERED_STATUSES.has(status);
    this.#sql.recordCheck.run({
      platformId,
      hit: status === 'hit' ? 1 : 0,
      miss: status === 'miss' ? 1 : 0,
      unknown: status === 'unknown' ? 1 : 0,
      error: status === 'error' ? 1 : 0,
      invalid: status === 'invalid' ? 1 : 0,
      answered: answered ? 1 : 0,
      ms: answered ? responseTimeMs : 0,
      at,
      alpha: RECENT_MS_ALPHA,
    });
  }

  async platformStats(): Promise<PlatformStats[]> {
    return (this.#sql.platformStats.all() as PlatformStatsRow[]).map((row) => ({
      platformId: row.platform_id,
      checks: row.checks,
      meanMs: row.answered === 0 ? 0 : row.answered_ms / row.answered,
      recentMs: row.recent_ms,
      byStatus: {
        hit: row.hit_count,
        miss: row.miss_count,
        unknown: row.unknown_count,
        error: row.error_count,
        invalid: row.invalid_count,
      },
      lastCheckedAt: row.last_checked_at,
    }));
  }

  async ping(): Promise<boolean> {
    try {
      return this.#sql.ping.get() !== undefined;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (!this.#db.open) return;
    this.#db.exec('PRAGMA optimize');
    this.#db.close();
  }
}

/** Runs an insert; a primary key or unique column taken already becomes the store's coded error. */
function refusingDuplicates(what: 'Search' | 'API key', id: string, insert: () => unknown): void {
  try {
    insert();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE')
      throw duplicateIdError(what, id, error);
    throw error;
  }
}

function migrate(db: Database): void {
  const userVersion = db.prepare('PRAGMA user_version');
  db.transaction(() => {
    const version = (userVersion.get() as { user_version: number }).user_version;
    if (version > MIGRATIONS.length) {
      throw new UserscoutError(
        'internal',
        `The database schema is version ${version}; this userscout knows versions up to ${MIGRATIONS.length}`,
      );
    }
    for (let next = version; next < MIGRATIONS.length; next++) {
      db.exec(MIGRATIONS[next]!);
      db.exec(`PRAGMA user_version = ${next + 1}`);
    }
  }).immediate();
}

function prepareStatements(db: Database) {
  return {
    ping: db.prepare('SELECT 1'),
    insertSearch: db.prepare(`
      INSERT INTO searches (id, username, state, tier, client, private, platform_ids, estimated_seconds,
        created_at, started_at, finished_at, error)
      VALUES (@id, @username, @state, @tier, @client, @private, @platformIds, @estimatedSeconds,
        @createdAt, @startedAt, @finishedAt, @error)`),
    getSearch: db.prepare('SELECT * FROM searches WHERE id = ?'),
    searchExists: db.prepare('SELECT 1 FROM searches WHERE id = ?'),
    // A field left out of the patch is bound as NULL and keeps its value.
    updateSearch: db.prepare(`
      UPDATE searches SET
        state = COALESCE(@state, state),
        started_at = COALESCE(@startedAt, started_at),
        finished_at = COALESCE(@finishedAt, finished_at),
        error = COALESCE(@error, error)
      WHERE id = @id`),
    searchesByClient: db.prepare(`
      SELECT * FROM searches WHERE client = @client ORDER BY created_at DESC, id DESC LIMIT @limit`),
    searchesByClientBefore: db.prepare(`
      SELECT * FROM searches WHERE client = @client AND (created_at, id) < (@createdAt, @id)
      ORDER BY created_at DESC, id DESC LIMIT @limit`),
    unfinishedSearches: db.prepare(`
      SELECT * FROM searches WHERE state IN ('queued', 'running') ORDER BY created_at, id`),
    sweepSearches: db.prepare(`
      DELETE FROM searches WHERE id IN (SELECT id FROM searches WHERE created_at < ? LIMIT ?)`),
    // The next seq and the insert in one statement; a platform already stored inserts nothing and returns no row.
    insertOutcome: db.prepare(`
      INSERT INTO outcomes (search_id, seq, platform_id, status, outcome)
      SELECT @searchId, COALESCE(MAX(seq), 0) + 1, @platformId, @status, @outcome
      FROM outcomes WHERE search_id = @searchId
      ON CONFLICT (search_id, platform_id) DO NOTHING
      RETURNING seq`),
    listOutcomes: db.prepare(`
      SELECT seq, outcome FROM outcomes
      WHERE search_id = @searchId AND seq > @afterSeq
        AND (@statuses IS NULL OR status IN (SELECT value FROM json_each(@statuses)))
      ORDER BY seq`),
    countOutcomes: db.prepare(
      'SELECT status, COUNT(*) AS n FROM outcomes WHERE search_id = ? GROUP BY status',
    ),
    getCached: db.prepare(`
      SELECT outcome FROM outcome_cache
      WHERE username = @username AND platform_id = @platformId AND expires_at > @now`),
    putCached: db.prepare(`
      INSERT INTO outcome_cache (username, platform_id, outcome, expires_at)
      VALUES (@username, @platformId, @outcome, @expiresAt)
      ON CONFLICT (username, platform_id) DO UPDATE SET outcome = excluded.outcome, expires_at = excluded.expires_at`),
    sweepCache: db.prepare(`
      DELETE FROM outcome_cache WHERE (username, platform_id) IN
        (SELECT username, platform_id FROM outcome_cache WHERE expires_at <= ? LIMIT ?)`),
    insertApiKey: db.prepare(`
      INSERT INTO api_keys (id, name, tier, hash, created_at, revoked_at)
      VALUES (@id, @name, @tier, @hash, @createdAt, @revokedAt)`),
    findApiKey: db.prepare('SELECT * FROM api_keys WHERE hash = ?'),
    listApiKeys: db.prepare('SELECT * FROM api_keys ORDER BY created_at, id'),
    revokeApiKey: db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
    // SET expressions read the row as it was before the update.
    recordCheck: db.prepare(`
      INSERT INTO platform_stats (platform_id, checks, hit_count, miss_count, unknown_count, error_count,
        invalid_count, answered, answered_ms, recent_ms, last_checked_at)
      VALUES (@platformId, 1, @hit, @miss, @unknown, @error, @invalid, @answered, @ms, @ms, @at)
      ON CONFLICT (platform_id) DO UPDATE SET
        checks = checks + 1,
        hit_count = hit_count + excluded.hit_count,
        miss_count = miss_count + excluded.miss_count,
        unknown_count = unknown_count + excluded.unknown_count,
        error_count = error_count + excluded.error_count,
        invalid_count = invalid_count + excluded.invalid_count,
        answered = answered + excluded.answered,
        answered_ms = answered_ms + excluded.answered_ms,
        recent_ms = CASE
          WHEN excluded.answered = 0 THEN recent_ms
          WHEN answered = 0 THEN excluded.recent_ms
          ELSE recent_ms * (1 - @alpha) + excluded.recent_ms * @alpha
        END,
        last_checked_at = MAX(last_checked_at, excluded.last_checked_at)`),
    platformStats: db.prepare('SELECT * FROM platform_stats ORDER BY platform_id'),
  };
}

function toSearch(row: SearchRow): SearchRecord {
  return {
    id: row.id,
    username: row.username,
    state: row.state,
    tier: row.tier,
    client: row.client,
    ...(row.private ? { private: true as const } : {}),
    platformIds: JSON.parse(row.platform_ids) as string[],
    estimatedSeconds: row.estimated_seconds,
    createdAt: row.created_at,
    // Absent rather than undefined, so a record reads back deep-equal to the one created.
    ...(row.started_at === null ? {} : { startedAt: row.started_at }),
    ...(row.finished_at === null ? {} : { finishedAt: row.finished_at }),
    ...(row.error === null ? {} : { error: row.error }),
  };
}

function toApiKey(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    name: row.name,
    tier: row.tier,
    hash: row.hash,
    createdAt: row.created_at,
    ...(row.revoked_at === null ? {} : { revokedAt: row.revoked_at }),
  };
}

function nextTick(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
