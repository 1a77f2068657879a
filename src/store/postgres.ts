/**
 * The store of record on PostgreSQL (DATABASE_URL), through node-postgres' pool.
 * A search is one row; its outcomes are pages, one per batch written (one
 * INSERT, one transaction), merged into one page when the search ends (see
 * src/store/outcome-page.ts and migrations/postgres). Writes to one search's
 * outcomes hold its row lock, so seqs have no gaps and a platform is stored
 * once. The schema is migrated before the first query. An outage surfaces as
 * UserscoutError `store_unavailable` (503) within the connection and statement
 * timeouts, never as a hang.
 */
import pg from 'pg';
import type { PlatformHealthEntry } from '../catalogue/health.js';
import type { ControlRecord } from '../engine/control.js';
import type { Outcome, OutcomeStatus } from '../engine/outcome.js';
import { OUTCOME_STATUSES } from '../engine/outcome.js';
import { UserscoutError } from '../errors.js';
import { STATUS_INDEX } from './compact-outcome.js';
import { decodeIds, decodePage, encodeIds, encodePage } from './outcome-page.js';
import { migratePostgres } from './postgres-migrate.js';
import { asPostgresStoreError, isUniqueViolation } from './postgres-unavailable.js';
import { PostgresWatchlists } from './postgres-watchlists.js';
import {
  ANSWERED_STATUSES,
  type ApiKeyRecord,
  duplicateIdError,
  emptyByStatus,
  type FollowUp,
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

export interface PostgresStoreOptions {
  /** postgres://user:password@host:port/database */
  readonly url: string;
  /** Schema of the tables (tests use one each). @default 'public' */
  readonly schema?: string;
  /** Connections this process keeps at most. @default 10 */
  readonly poolSize?: number;
  /**
   * Longest wait for a connection, new or a free one of the pool (node-postgres has one
   * timeout for both): long enough for a burst to queue for the pool, short enough that
   * an unreachable server answers 503 well before a client gives up. @default 5000
   */
  readonly connectTimeoutMs?: number;
  /** Longest a statement may run, ms (server side, and on the client when the server does not answer). @default 5000 */
  readonly statementTimeoutMs?: number;
  /** Migration messages (logs). */
  readonly log?: (message: string) => void;
}

/** Searches deleted per sweep statement: each takes its outcome pages along. */
const SWEEP_SEARCH_BATCH = 500;
const SWEEP_CACHE_BATCH = 5_000;
const FINISHED: ReadonlySet<SearchState> = new Set(['completed', 'error']);
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

interface SearchRow {
  key: string;
  id: string;
  username: string;
  state: SearchState;
  tier: Tier;
  client: string;
  private: boolean;
  recursive: boolean;
  follow_ups: FollowUp[] | null;
  platform_ids: Buffer;
  estimated_seconds: number;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  error: string | null;
  outcome_count: number;
  status_counts: number[];
}

interface ApiKeyRow {
  id: string;
  name: string;
  tier: Tier;
  hash: string;
  created_at: string;
  revoked_at: string | null;
}

export class PostgresStore implements Store {
  readonly #pool: pg.Pool;
  readonly #options: PostgresStoreOptions;
  #schemaReady: Promise<void> | undefined;
  #closed = false;
  readonly watchlists: PostgresWatchlists;

  constructor(options: PostgresStoreOptions) {
    const schema = options.schema ?? 'public';
    if (!SCHEMA_NAME.test(schema)) throw new UserscoutError('internal', `Bad schema name ${schema}`);
    this.#options = options;
    const statementTimeoutMs = options.statementTimeoutMs ?? 5_000;
    this.#pool = new pg.Pool({
      connectionString: options.url,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
      statement_timeout: statementTimeoutMs,
      // The client's own deadline, for a server that stopped answering altogether.
      query_timeout: statementTimeoutMs + 1_000,
      idle_in_transaction_session_timeout: statementTimeoutMs * 2,
      idleTimeoutMillis: 30_000,
      keepAlive: true,
      options: `-c search_path=${schema}`,
    });
    // An idle connection that breaks reports here (else it would crash the process); the pool replaces it.
    this.#pool.on('error', () => {});
    this.watchlists = new PostgresWatchlists({
      query: (sql, params) => this.#guard(() => this.#query(sql, params)),
      transaction: (work) => this.#guard(() => this.#transaction(work)),
    });
  }

  /** Runs the migrations once; a failure (an outage) is tried again by the next call. */
  #migrated(): Promise<void> {
    this.#schemaReady ??= migratePostgres({
      url: this.#options.url,
      schema: this.#options.schema ?? 'public',
      connectTimeoutMs: this.#options.connectTimeoutMs ?? 5_000,
      ...(this.#options.log ? { log: this.#options.log } : {}),
    }).then(
      () => {},
      (error: unknown) => {
        this.#schemaReady = undefined;
        throw error;
      },
    );
    return this.#schemaReady;
  }

  /** Applies the migrations now (start-up); every other method does it before its first query. */
  async migrate(): Promise<void> {
    await this.#guard(async () => {});
  }

  /** Runs `work` once the schema is there, turning an outage into `store_unavailable`. */
  async #guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      await this.#migrated();
      return await work();
    } catch (error) {
      throw asPostgresStoreError(error);
    }
  }

  #query<R extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<pg.QueryResult<R>> {
    return this.#pool.query<R>(sql, params);
  }

  /** BEGIN ... COMMIT on one connection of the pool; ROLLBACK when `work` throws. */
  async #transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect();
    let broken = false;
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      throw error;
    } finally {
      client.release(broken);
    }
  }

  createSearch(search: SearchRecord): Promise<void> {
    return this.#guard(async () => {
      try {
        await this.#query(
          `INSERT INTO searches (id, username, state, tier, client, private, platform_ids, estimated_seconds,
             created_at, started_at, finished_at, error, recursive, follow_ups)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
          [
            search.id,
            search.username,
            search.state,
            search.tier,
            search.client,
            search.private === true,
            await encodeIds(search.platformIds),
            search.estimatedSeconds,
            search.createdAt,
            search.startedAt ?? null,
            search.finishedAt ?? null,
            search.error ?? null,
            search.recursive === true,
            search.followUps ? JSON.stringify(search.followUps) : null,
          ],
        );
      } catch (error) {
        if (isUniqueViolation(error)) throw duplicateIdError('Search', search.id, error);
        throw error;
      }
    });
  }

  getSearch(id: string): Promise<SearchRecord | undefined> {
    return this.#guard(async () => {
      const { rows } = await this.#query<SearchRow>('SELECT * FROM searches WHERE id = $1', [id]);
      return rows[0] && (await toSearch(rows[0]));
    });
  }

  updateSearch(
    id: string,
    patch: Partial<Pick<SearchRecord, 'state' | 'startedAt' | 'finishedAt' | 'error' | 'followUps'>>,
  ): Promise<void> {
    return this.#guard(async () => {
      const params = [
        id,
        patch.state ?? null,
        patch.startedAt ?? null,
        patch.finishedAt ?? null,
        patch.error ?? null,
        patch.followUps ? JSON.stringify(patch.followUps) : null,
      ];
      // A field left out of the patch is bound as NULL and keeps its value.
      const update = `UPDATE searches SET
          state = COALESCE($2, state),
          started_at = COALESCE($3, started_at),
          finished_at = COALESCE($4, finished_at),
          error = COALESCE($5, error),
          follow_ups = COALESCE($6::jsonb, follow_ups)
        WHERE id = $1 RETURNING key`;
      if (patch.state === undefined || !FINISHED.has(patch.state)) {
        await this.#query(update, params);
        return;
      }
      // A search that ends has its pages merged into one: it compresses best as a whole.
      await this.#transaction(async (client) => {
        const { rows } = await client.query<{ key: string }>(update, params);
        if (rows[0]) await mergePages(client, rows[0].key);
      });
    });
  }

  async addOutcome(searchId: string, outcome: Outcome): Promise<number | undefined> {
    return (await this.addOutcomes(searchId, [outcome]))[0];
  }

  /** One transaction: the search's row lock, one page INSERT, its counts updated. */
  addOutcomes(searchId: string, outcomes: readonly Outcome[]): Promise<(number | undefined)[]> {
    return this.#guard(() =>
      this.#transaction(async (client) => {
        const { rows } = await client.query<Pick<SearchRow, 'key' | 'outcome_count' | 'status_counts'>>(
          'SELECT key, outcome_count, status_counts FROM searches WHERE id = $1 FOR UPDATE',
          [searchId],
        );
        const row = rows[0];
        if (!row) throw new UserscoutError('search_not_found', `No search ${searchId} to add an outcome to`);
        if (outcomes.length === 0) return [];
        const seen = await storedPlatforms(client, row.key);
        const page: Outcome[] = [];
        const counts = [...row.status_counts];
        const firstSeq = row.outcome_count + 1;
        const seqs = outcomes.map((outcome) => {
          if (seen.has(outcome.platformId)) return undefined;
          seen.add(outcome.platformId);
          page.push(outcome);
          counts[STATUS_INDEX.get(outcome.status)!]! += 1;
          return firstSeq + page.length - 1;
        });
        if (page.length === 0) return seqs;
        await client.query(
          `INSERT INTO outcome_pages (search_key, first_seq, count, platform_ids, body) VALUES ($1, $2, $3, $4, $5)`,
          [
            row.key,
            firstSeq,
            page.length,
            JSON.stringify(page.map((o) => o.platformId)),
            await encodePage(page),
          ],
        );
        await client.query('UPDATE searches SET outcome_count = $2, status_counts = $3 WHERE key = $1', [
          row.key,
          row.outcome_count + page.length,
          counts,
        ]);
        return seqs;
      }),
    );
  }

  listOutcomes(
    searchId: string,
    options: { afterSeq?: number; statuses?: readonly OutcomeStatus[] } = {},
  ): Promise<StoredOutcome[]> {
    return this.#guard(async () => {
      const afterSeq = options.afterSeq ?? 0;
      const { rows } = await this.#query<{ first_seq: number; body: Buffer }>(
        `SELECT p.first_seq, p.body FROM outcome_pages p JOIN searches s ON s.key = p.search_key
         WHERE s.id = $1 AND p.first_seq + p.count - 1 > $2 ORDER BY p.first_seq`,
        [searchId, afterSeq],
      );
      return storedOutcomes(rows, afterSeq, options.statuses);
    });
  }

  progress(searchId: string): Promise<SearchProgress> {
    return this.#guard(async () => {
      const { rows } = await this.#query<Pick<SearchRow, 'status_counts'>>(
        'SELECT status_counts FROM searches WHERE id = $1',
        [searchId],
      );
      return progressOf(rows[0]?.status_counts);
    });
  }

  /** One statement, so one MVCC snapshot: the search, its counts and its pages agree. */
  snapshot(
    id: string,
    options: { statuses?: readonly OutcomeStatus[] } = {},
  ): Promise<SearchSnapshot | undefined> {
    return this.#guard(async () => {
      const { rows } = await this.#query<SearchRow & { page_seqs: number[]; page_bodies: Buffer[] }>(
        `SELECT s.*,
           ARRAY(SELECT p.first_seq FROM outcome_pages p WHERE p.search_key = s.key ORDER BY p.first_seq) AS page_seqs,
           ARRAY(SELECT p.body FROM outcome_pages p WHERE p.search_key = s.key ORDER BY p.first_seq) AS page_bodies
         FROM searches s WHERE s.id = $1`,
        [id],
      );
      const row = rows[0];
      if (!row) return undefined;
      const pages = row.page_seqs.map((first_seq, i) => ({ first_seq, body: row.page_bodies[i]! }));
      return {
        search: await toSearch(row),
        progress: progressOf(row.status_counts),
        outcomes: await storedOutcomes(pages, 0, options.statuses),
      };
    });
  }

  /** Newest first by (created_at, id), read along the searches_by_client index. */
  listSearchesByClient(
    client: string,
    options: { readonly limit: number; readonly before?: SearchCursor | undefined },
  ): Promise<SearchRecord[]> {
    return this.#guard(async () => {
      const { before, limit } = options;
      const { rows } = before
        ? await this.#query<SearchRow>(
            `SELECT * FROM searches WHERE client = $1 AND (created_at, id) < ($2, $3)
             ORDER BY created_at DESC, id DESC LIMIT $4`,
            [client, before.createdAt, before.id, limit],
          )
        : await this.#query<SearchRow>(
            'SELECT * FROM searches WHERE client = $1 ORDER BY created_at DESC, id DESC LIMIT $2',
            [client, limit],
          );
      return Promise.all(rows.map(toSearch));
    });
  }

  unfinishedSearches(): Promise<SearchRecord[]> {
    return this.#guard(async () => {
      const { rows } = await this.#query<SearchRow>(
        `SELECT * FROM searches WHERE state IN ('queued', 'running') ORDER BY created_at, id`,
      );
      return Promise.all(rows.map(toSearch));
    });
  }

  /** In batches, each its own short statement, so sweeping never holds many locks for long. */
  sweepSearches(before: number): Promise<number> {
    return this.#guard(async () => {
      let deleted = 0;
      for (let batch = 0; batch < 1_000_000; batch++) {
        const { rowCount } = await this.#query(
          `DELETE FROM searches WHERE key IN
             (SELECT key FROM searches WHERE created_at < $1 ORDER BY created_at LIMIT $2)`,
          [before, SWEEP_SEARCH_BATCH],
        );
        deleted += rowCount ?? 0;
        if ((rowCount ?? 0) < SWEEP_SEARCH_BATCH) break;
      }
      // Rows that expired before the cutoff are past any use; no clock needed.
      await this.#query('DELETE FROM leases WHERE expires_at <= $1', [before]);
      for (let batch = 0; batch < 1_000_000; batch++) {
        const { rowCount } = await this.#query(
          `DELETE FROM outcome_cache WHERE (platform_id, username) IN
             (SELECT platform_id, username FROM outcome_cache WHERE expires_at <= $1 LIMIT $2)`,
          [before, SWEEP_CACHE_BATCH],
        );
        if ((rowCount ?? 0) < SWEEP_CACHE_BATCH) break;
      }
      return deleted;
    });
  }

  getCachedOutcome(username: string, platformId: string, now: number): Promise<Outcome | undefined> {
    return this.#guard(async () => {
      const { rows } = await this.#query<{ outcome: string }>(
        'SELECT outcome FROM outcome_cache WHERE platform_id = $1 AND username = $2 AND expires_at > $3',
        [platformId, username, now],
      );
      return rows[0] && (JSON.parse(rows[0].outcome) as Outcome);
    });
  }

  putCachedOutcome(username: string, outcome: Outcome, expiresAt: number): Promise<void> {
    return this.#guard(async () => {
      await this.#query(
        `INSERT INTO outcome_cache (platform_id, username, outcome, expires_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (platform_id, username) DO UPDATE SET outcome = excluded.outcome, expires_at = excluded.expires_at`,
        [outcome.platformId, username, JSON.stringify(outcome), expiresAt],
      );
    });
  }

  createApiKey(key: ApiKeyRecord): Promise<void> {
    return this.#guard(async () => {
      try {
        await this.#query(
          'INSERT INTO api_keys (id, name, tier, hash, created_at, revoked_at) VALUES ($1, $2, $3, $4, $5, $6)',
          [key.id, key.name, key.tier, key.hash, key.createdAt, key.revokedAt ?? null],
        );
      } catch (error) {
        if (isUniqueViolation(error)) throw duplicateIdError('API key', key.id, error);
        throw error;
      }
    });
  }

  findApiKeyByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    return this.#guard(async () => {
      const { rows } = await this.#query<ApiKeyRow>('SELECT * FROM api_keys WHERE hash = $1', [hash]);
      return rows[0] && toApiKey(rows[0]);
    });
  }

  listApiKeys(): Promise<ApiKeyRecord[]> {
    return this.#guard(async () => {
      const { rows } = await this.#query<ApiKeyRow>('SELECT * FROM api_keys ORDER BY created_at, id');
      return rows.map(toApiKey);
    });
  }

  revokeApiKey(id: string, at: number): Promise<boolean> {
    return this.#guard(async () => {
      const { rowCount } = await this.#query(
        'UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL',
        [id, at],
      );
      return (rowCount ?? 0) > 0;
    });
  }

  recordCheck(platformId: string, status: OutcomeStatus, responseTimeMs: number, at: number): Promise<void> {
    return this.#guard(async () => {
      const answered = ANSWERED_STATUSES.has(status);
      const one = (s: OutcomeStatus) => (status === s ? 1 : 0);
      // SET expressions read the row as it was before the update.
      await this.#query(
        `INSERT INTO platform_stats AS t (platform_id, checks, hit_count, miss_count, unknown_count, error_count,
           invalid_count, answered, answered_ms, recent_ms, last_checked_at)
         VALUES ($1, 1, $2, $3, $4, $5, $6, $7, $8, $8, $9)
         ON CONFLICT (platform_id) DO UPDATE SET
           checks = t.checks + 1,
           hit_count = t.hit_count + excluded.hit_count,
           miss_count = t.miss_count + excluded.miss_count,
           unknown_count = t.unknown_count + excluded.unknown_count,
           error_count = t.error_count + excluded.error_count,
           invalid_count = t.invalid_count + excluded.invalid_count,
           answered = t.answered + excluded.answered,
           answered_ms = t.answered_ms + excluded.answered_ms,
           recent_ms = CASE
             WHEN excluded.answered = 0 THEN t.recent_ms
             WHEN t.answered = 0 THEN excluded.recent_ms
             ELSE t.recent_ms * (1 - $10::float8) + excluded.recent_ms * $10::float8
           END,
           last_checked_at = GREATEST(t.last_checked_at, excluded.last_checked_at)`,
        [
          platformId,
          one('hit'),
          one('miss'),
          one('unknown'),
          one('error'),
          one('invalid'),
          answered ? 1 : 0,
          answered ? responseTimeMs : 0,
          at,
          RECENT_MS_ALPHA,
        ],
      );
    });
  }

  platformStats(): Promise<PlatformStats[]> {
    return this.#guard(async () => {
      const { rows } = await this.#query<{
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
        last_checked_at: string;
      }>('SELECT * FROM platform_stats ORDER BY platform_id');
      return rows.map((row) => ({
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
        lastCheckedAt: Number(row.last_checked_at),
      }));
    });
  }

  getControl(platformId: string, identity: string): Promise<ControlRecord | undefined> {
    return this.#guard(async () => {
      const { rows } = await this.#query<{ record: ControlRecord }>(
        'SELECT record FROM platform_controls WHERE platform_id = $1 AND identity = $2',
        [platformId, identity],
      );
      return rows[0]?.record;
    });
  }

  putControl(record: ControlRecord): Promise<void> {
    return this.#guard(async () => {
      await this.#query(
        `INSERT INTO platform_controls (platform_id, identity, record) VALUES ($1, $2, $3)
         ON CONFLICT (platform_id, identity) DO UPDATE SET record = excluded.record`,
        [record.platformId, record.identity, JSON.stringify(record)],
      );
    });
  }

  listControls(): Promise<ControlRecord[]> {
    return this.#guard(async () => {
      const { rows } = await this.#query<{ record: ControlRecord }>(
        'SELECT record FROM platform_controls ORDER BY platform_id, identity',
      );
      return rows.map((row) => row.record);
    });
  }

  /**
   * One statement, so two processes never both take a lease: a row is
   * inserted, or an expired one taken over. Timed by the caller's clock, as
   * in SQLite; expired rows are deleted by `sweepSearches`.
   */
  claimLease(name: string, ttlMs: number, now: number): Promise<boolean> {
    return this.#guard(async () => {
      const { rowCount } = await this.#query(
        `INSERT INTO leases AS l (name, expires_at) VALUES ($1, $2)
         ON CONFLICT (name) DO UPDATE SET expires_at = excluded.expires_at WHERE l.expires_at <= $3
         RETURNING name`,
        [name, Math.round(now + ttlMs), Math.round(now)],
      );
      return (rowCount ?? 0) > 0;
    });
  }

  putPlatformHealth(platformId: string, entry: PlatformHealthEntry): Promise<void> {
    return this.#guard(async () => {
      await this.#query(
        `INSERT INTO platform_health (platform_id, entry) VALUES ($1, $2)
         ON CONFLICT (platform_id) DO UPDATE SET entry = excluded.entry`,
        [platformId, JSON.stringify(entry)],
      );
    });
  }

  listPlatformHealth(): Promise<Record<string, PlatformHealthEntry>> {
    return this.#guard(async () => {
      const { rows } = await this.#query<{ platform_id: string; entry: PlatformHealthEntry }>(
        'SELECT platform_id, entry FROM platform_health ORDER BY platform_id',
      );
      return Object.fromEntries(rows.map((row) => [row.platform_id, row.entry]));
    });
  }

  async ping(): Promise<boolean> {
    if (this.#closed) return false;
    try {
      await this.#guard(() => this.#query('SELECT 1'));
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#schemaReady?.catch(() => {});
    await this.#pool.end();
  }
}

/** Platform ids stored for a search: from each page's list, or its body once merged. */
async function storedPlatforms(client: pg.PoolClient, searchKey: string): Promise<Set<string>> {
  const { rows } = await client.query<{ platform_ids: string | null; body: Buffer | null }>(
    `SELECT platform_ids, CASE WHEN platform_ids IS NULL THEN body END AS body
     FROM outcome_pages WHERE search_key = $1`,
    [searchKey],
  );
  const seen = new Set<string>();
  for (const row of rows) {
    const ids =
      row.platform_ids === null
        ? (await decodePage(row.body!)).map((o) => o.platformId)
        : (JSON.parse(row.platform_ids) as string[]);
    for (const id of ids) seen.add(id);
  }
  return seen;
}

/** Replaces a search's pages by one (inside the caller's transaction, which holds the search's row). */
async function mergePages(client: pg.PoolClient, searchKey: string): Promise<void> {
  const { rows } = await client.query<{ body: Buffer }>(
    'SELECT body FROM outcome_pages WHERE search_key = $1 ORDER BY first_seq FOR UPDATE',
    [searchKey],
  );
  if (rows.length <= 1) return;
  const outcomes = (await Promise.all(rows.map((row) => decodePage(row.body)))).flat();
  await client.query('DELETE FROM outcome_pages WHERE search_key = $1', [searchKey]);
  await client.query(
    'INSERT INTO outcome_pages (search_key, first_seq, count, platform_ids, body) VALUES ($1, 1, $2, NULL, $3)',
    [searchKey, outcomes.length, await encodePage(outcomes, true)],
  );
}

/** Outcomes of pages in seq order, numbered from each page's first seq, after `afterSeq`, only `only` when given. */
async function storedOutcomes(
  pages: readonly { first_seq: number; body: Buffer }[],
  afterSeq: number,
  only: readonly OutcomeStatus[] | undefined,
): Promise<StoredOutcome[]> {
  const statuses = only && new Set(only);
  const decoded = await Promise.all(pages.map((page) => decodePage(page.body)));
  const listed: StoredOutcome[] = [];
  for (const [i, outcomes] of decoded.entries()) {
    for (const [j, outcome] of outcomes.entries()) {
      const seq = pages[i]!.first_seq + j;
      if (seq > afterSeq && (!statuses || statuses.has(outcome.status))) listed.push({ seq, outcome });
    }
  }
  return listed;
}

function progressOf(counts: readonly number[] | undefined): SearchProgress {
  const byStatus = emptyByStatus();
  let checked = 0;
  for (const status of OUTCOME_STATUSES) {
    byStatus[status] = counts?.[STATUS_INDEX.get(status)!] ?? 0;
    checked += byStatus[status];
  }
  return { checked, hits: byStatus.hit, byStatus };
}

async function toSearch(row: SearchRow): Promise<SearchRecord> {
  return {
    id: row.id,
    username: row.username,
    state: row.state,
    tier: row.tier,
    client: row.client,
    ...(row.private ? { private: true as const } : {}),
    platformIds: await decodeIds(row.platform_ids),
    estimatedSeconds: row.estimated_seconds,
    createdAt: Number(row.created_at),
    // Absent rather than undefined, so a record reads back deep-equal to the one created.
    ...(row.started_at === null ? {} : { startedAt: Number(row.started_at) }),
    ...(row.finished_at === null ? {} : { finishedAt: Number(row.finished_at) }),
    ...(row.error === null ? {} : { error: row.error }),
    ...(row.recursive ? { recursive: true as const } : {}),
    ...(row.follow_ups === null ? {} : { followUps: row.follow_ups }),
  };
}

function toApiKey(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    name: row.name,
    tier: row.tier,
    hash: row.hash,
    createdAt: Number(row.created_at),
    ...(row.revoked_at === null ? {} : { revokedAt: Number(row.revoked_at) }),
  };
}
