/**
 * The store of record on PostgreSQL (DATABASE_URL), through node-postgres' pool.
 * A search is one row; its outcomes are pages, one per batch written (one
 * INSERT, one transaction), merged into one page when the search ends: compact
 * outcomes compressed together (src/store/compact-page.ts; the texts a platform
 * repeats in `vocabulary`, postgres-vocabulary.ts), or, written before those,
 * columns (outcome-page.ts); see migrations/postgres. Writes to one search's
 * outcomes hold its row lock, so seqs are given once and a platform is stored
 * once. An outcome replaced by a later answer (`replaceOutcome`) stays in its
 * page, and the later answer is a page of its own at the next seq: on read, a
 * platform's last outcome wins (checked only when the search has one replaced,
 * that is when it has given more seqs than it counts outcomes). The schema is
 * migrated before the first query. A transaction (or a statement) PostgreSQL
 * ends as a deadlock or a serialization failure is run again, a few times at
 * most (postgres-retry.ts). An outage surfaces as
 * UserscoutError `store_unavailable` (503) within the connection and statement
 * timeouts, never as a hang.
 */
import pg from 'pg';
import type { PlatformHealthEntry } from '../catalogue/health.js';
import type { ControlRecord } from '../engine/controls/control.js';
import type { Outcome, OutcomeStatus } from '../engine/verdict/outcome.js';
import { UserscoutError } from '../errors.js';
import { RECENT_MS_ALPHA } from '../tuning.js';
import { STATUS_INDEX } from './compact-outcome.js';
import {
  COMPACT_PAGE_QUALITY,
  decodeCompactPage,
  encodeCompactPage,
  FORMAT_COMPACT_PAGE,
} from './compact-page.js';
import { decodeIds, decodePage, decodeVocabularyIds, encodeVocabularyIds } from './outcome-page.js';
import { migratePostgres } from './postgres-migrate.js';
import { retryOnConflict } from './postgres-retry.js';
import { type PostgresQuery, PostgresSiteFacts } from './postgres-site-facts.js';
import { asPostgresStoreError, isUniqueViolation } from './postgres-unavailable.js';
import { PostgresVocabulary } from './postgres-vocabulary.js';
import { PostgresWatchlists } from './postgres-watchlists.js';
import { recordCache } from './record-cache.js';
import type { OutcomeCache } from './roles/outcome-cache.js';
import { progressOf, searchRecordOf } from './search-record.js';
import { SITE_LIMITS, type SiteLimitStore, siteLimitStore } from './site-limits.js';
import {
  ANSWERED_STATUSES,
  type ApiKeyRecord,
  type CacheEntry,
  type CheckStat,
  duplicateIdError,
  type FollowUp,
  isFinished,
  noSearchForOutcomes,
  type PlatformStats,
  type SearchCursor,
  type SearchProgress,
  type SearchRecord,
  type SearchSnapshot,
  type SearchState,
  type Store,
  type StoredOutcome,
  type Tier,
  writeEach,
} from './store.js';
import { TRANSPORT_MEMORY, type TransportMemoryStore, transportMemoryStore } from './transport-memory.js';

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
/** Running searches whose stored platforms a process keeps in memory (a few hundred bytes... 15 KB each). */
const WRITTEN_SEARCHES = 256;
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
  platform_ids: Buffer | null;
  platform_vocab: Buffer | null;
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
  readonly siteLimits: SiteLimitStore;
  readonly transportMemory: TransportMemoryStore;
  readonly #vocabulary: PostgresVocabulary;
  readonly #cache: OutcomeCache;
  /** The platforms stored of searches this process writes, by search key, with the outcome_count they match. */
  readonly #written = new Map<string, { count: number; platforms: Set<string> }>();

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
    this.#vocabulary = new PostgresVocabulary((sql, params) => this.#query(sql, params));
    this.#cache = recordCache(this, this);
    const guarded: PostgresQuery = { query: (sql, params) => this.#guard(() => this.#query(sql, params)) };
    this.siteLimits = siteLimitStore(new PostgresSiteFacts(guarded, SITE_LIMITS));
    this.transportMemory = transportMemoryStore(new PostgresSiteFacts(guarded, TRANSPORT_MEMORY));
    this.watchlists = new PostgresWatchlists({
      ...guarded,
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

  /** Runs `work` once the schema is there, turning an outage into `store_unavailable`. */
  async #guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      await this.#migrated();
      return await work();
    } catch (error) {
      throw asPostgresStoreError(error);
    }
  }

  /** One statement (a transaction of its own), run again when a conflict ended it (postgres-retry.ts). */
  #query<R extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<pg.QueryResult<R>> {
    return retryOnConflict(() => this.#pool.query<R>(sql, params));
  }

  /**
   * BEGIN ... COMMIT on one connection of the pool; ROLLBACK when `work` throws. Run again
   * whole when a conflict ended it (postgres-retry.ts), so `work` keeps nothing in memory
   * before COMMIT: what it learns is acted on once this returns.
   */
  #transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return retryOnConflict(() => this.#transactionOnce(work));
  }

  async #transactionOnce<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
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
      await this.#vocabulary.intern(search.platformIds);
      try {
        await this.#query(
          `INSERT INTO searches (id, username, state, tier, client, private, platform_vocab, estimated_seconds,
             created_at, started_at, finished_at, error, recursive, follow_ups)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
          [
            search.id,
            search.username,
            search.state,
            search.tier,
            search.client,
            search.private === true,
            await encodeVocabularyIds(search.platformIds.map((id) => this.#vocabulary.idOf(id)!)),
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
      return rows[0] && (await this.#toSearch(rows[0]));
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
        WHERE id = $1 RETURNING key, username`;
      if (patch.state === undefined || !isFinished(patch.state)) {
        await this.#query(update, params);
        return;
      }
      // A search that ends has its pages merged into one: it compresses best as a whole.
      await this.#transaction(async (client) => {
        const { rows } = await client.query<{ key: string; username: string }>(update, params);
        if (rows[0]) await this.#mergePages(client, rows[0].key, rows[0].username);
      });
    });
  }

  /** The username of a search outcomes are added to; search_not_found when there is none. */
  async #usernameOf(searchId: string): Promise<string> {
    const { rows } = await this.#query<Pick<SearchRow, 'username'>>(
      'SELECT username FROM searches WHERE id = $1',
      [searchId],
    );
    const username = rows[0]?.username;
    if (username === undefined) throw noSearchForOutcomes(searchId);
    return username;
  }

  /**
   * Encoded first (its texts interned, committed on their own), then one transaction: the
   * search's row lock, one page INSERT, its counts updated. The platforms stored already come
   * from this process's memory when it wrote the search's last batch (the row's outcome_count
   * says so), else from the pages' lists: never every page per batch of a search written here.
   */
  addOutcomes(searchId: string, outcomes: readonly Outcome[]): Promise<(number | undefined)[]> {
    return this.#guard(async () => {
      const username = await this.#usernameOf(searchId);
      const encoded = await this.#vocabulary.encode(outcomes, username);
      const { seqs, written } = await this.#transaction<{
        seqs: (number | undefined)[];
        written?: { key: string; count: number; platforms: Set<string> };
      }>(async (client) => {
        const { rows } = await client.query<Pick<SearchRow, 'key' | 'outcome_count' | 'status_counts'>>(
          'SELECT key, outcome_count, status_counts FROM searches WHERE id = $1 FOR UPDATE',
          [searchId],
        );
        const row = rows[0];
        if (!row) throw noSearchForOutcomes(searchId);
        if (outcomes.length === 0) return { seqs: [] };
        const known = this.#written.get(row.key);
        const seen =
          known?.count === row.outcome_count
            ? known.platforms
            : await this.#storedPlatforms(client, row.key, username);
        this.#written.delete(row.key);
        const page: Uint8Array[] = [];
        const ids: string[] = [];
        const counts = [...row.status_counts];
        const firstSeq = row.outcome_count + 1;
        const seqs = outcomes.map((outcome, i) => {
          if (seen.has(outcome.platformId)) return undefined;
          seen.add(outcome.platformId);
          ids.push(outcome.platformId);
          page.push(encoded[i]!);
          counts[STATUS_INDEX.get(outcome.status)!]! += 1;
          return firstSeq + page.length - 1;
        });
        if (page.length === 0) return { seqs };
        await client.query(
          `INSERT INTO outcome_pages (search_key, first_seq, count, platform_ids, body) VALUES ($1, $2, $3, $4, $5)`,
          [
            row.key,
            firstSeq,
            page.length,
            JSON.stringify(ids),
            await encodeCompactPage(page, COMPACT_PAGE_QUALITY.batch),
          ],
        );
        const count = row.outcome_count + page.length;
        await client.query('UPDATE searches SET outcome_count = $2, status_counts = $3 WHERE key = $1', [
          row.key,
          count,
          counts,
        ]);
        return { seqs, written: { key: row.key, count, platforms: seen } };
      });
      // Kept for the next batch only once this one committed: an attempt ended by a conflict and run
      // again (postgres-retry.ts) must not find the platforms of a page that was rolled back.
      if (written) this.#remember(written.key, written);
      return seqs;
    });
  }

  /** Remembers a running search's platforms, this process's most recently written searches only. */
  #remember(key: string, written: { count: number; platforms: Set<string> }): void {
    this.#written.delete(key);
    this.#written.set(key, written);
    if (this.#written.size > WRITTEN_SEARCHES) this.#written.delete(this.#written.keys().next().value!);
  }

  /** Platform ids in a search's pages, read on the transaction's own connection (the pool may be all in use). */
  async #storedPlatforms(client: pg.PoolClient, searchKey: string, username: string): Promise<Set<string>> {
    const { rows } = await client.query<{ platform_ids: string | null; body: Buffer | null }>(
      `SELECT platform_ids, CASE WHEN platform_ids IS NULL THEN body END AS body
       FROM outcome_pages WHERE search_key = $1`,
      [searchKey],
    );
    const seen = new Set<string>();
    for (const row of rows) {
      const ids =
        row.platform_ids === null
          ? (await this.#decodePage(row.body!, username, client)).map((o) => o.platformId)
          : (JSON.parse(row.platform_ids) as string[]);
      for (const id of ids) seen.add(id);
    }
    return seen;
  }

  /** A page's outcomes: the compact format, or the columns written before it. */
  async #decodePage(body: Buffer, username: string, connection?: pg.PoolClient): Promise<Outcome[]> {
    return body[0] === FORMAT_COMPACT_PAGE
      ? this.#vocabulary.decode(
          decodeCompactPage(body),
          username,
          connection && ((sql, params) => connection.query(sql, params)),
        )
      : decodePage(body);
  }

  /** A page's compact outcomes, as they are or encoded from the columns written before. */
  async #compactOf(body: Buffer, username: string): Promise<Uint8Array[]> {
    return body[0] === FORMAT_COMPACT_PAGE
      ? decodeCompactPage(body)
      : this.#vocabulary.encode(await decodePage(body), username);
  }

  /** Replaces a search's pages by one (inside the caller's transaction, which holds the search's row). */
  async #mergePages(client: pg.PoolClient, searchKey: string, username: string): Promise<void> {
    const { rows } = await client.query<{ body: Buffer }>(
      'SELECT body FROM outcome_pages WHERE search_key = $1 ORDER BY first_seq FOR UPDATE',
      [searchKey],
    );
    this.#written.delete(searchKey);
    // Even one page is written again: batches are compressed fast, a whole search once well.
    if (rows.length === 0) return;
    const encoded = (await Promise.all(rows.map((row) => this.#compactOf(row.body, username)))).flat();
    await client.query('DELETE FROM outcome_pages WHERE search_key = $1', [searchKey]);
    await client.query(
      'INSERT INTO outcome_pages (search_key, first_seq, count, platform_ids, body) VALUES ($1, 1, $2, NULL, $3)',
      [searchKey, encoded.length, await encodeCompactPage(encoded)],
    );
  }

  /** A search's record: its platforms from the vocabulary, or by name as written before it. */
  async #toSearch(row: SearchRow): Promise<SearchRecord> {
    const platformIds =
      row.platform_vocab !== null
        ? await this.#vocabulary.textsOf(await decodeVocabularyIds(row.platform_vocab))
        : await decodeIds(row.platform_ids!);
    return toSearch(row, platformIds);
  }

  /**
   * Outcomes of pages in seq order, numbered from each page's first seq, after `afterSeq`, only `only`
   * when given. When `replaced`, an outcome whose platform comes again later is left out: the later
   * answer replaced it (its seq is higher, so it is in the pages read whenever the earlier one is).
   */
  async #storedOutcomes(
    pages: readonly { first_seq: number; body: Buffer }[],
    username: string,
    afterSeq: number,
    only: readonly OutcomeStatus[] | undefined,
    replaced: boolean,
  ): Promise<StoredOutcome[]> {
    const statuses = only && new Set(only);
    const decoded = await Promise.all(pages.map((page) => this.#decodePage(page.body, username)));
    const all: StoredOutcome[] = [];
    for (const [i, outcomes] of decoded.entries()) {
      for (const [j, outcome] of outcomes.entries()) {
        const seq = pages[i]!.first_seq + j;
        if (seq > afterSeq) all.push({ seq, outcome });
      }
    }
    const later = new Set<string>();
    const listed: StoredOutcome[] = [];
    for (let i = all.length - 1; i >= 0; i--) {
      const stored = all[i]!;
      if (replaced) {
        if (later.has(stored.outcome.platformId)) continue;
        later.add(stored.outcome.platformId);
      }
      if (!statuses || statuses.has(stored.outcome.status)) listed.push(stored);
    }
    return listed.reverse();
  }

  /** A platform's outcome as it stands (the last stored), read from the pages that may hold it. */
  async #latestOutcomeOf(
    client: pg.PoolClient,
    searchKey: string,
    username: string,
    platformId: string,
  ): Promise<Outcome | undefined> {
    const { rows } = await client.query<{ body: Buffer }>(
      `SELECT body FROM outcome_pages
       WHERE search_key = $1 AND (platform_ids IS NULL OR platform_ids::jsonb ? $2)
       ORDER BY first_seq DESC`,
      [searchKey, platformId],
    );
    for (const row of rows) {
      const found = (await this.#decodePage(row.body, username, client)).findLast(
        (o) => o.platformId === platformId,
      );
      if (found) return found;
    }
    return undefined;
  }

  /** One transaction under the search's row lock: the replaced outcome's status read, a page of one added. */
  replaceOutcome(searchId: string, outcome: Outcome): Promise<number | undefined> {
    return this.#guard(async () => {
      const username = await this.#usernameOf(searchId);
      const encoded = await this.#vocabulary.encode([outcome], username);
      return this.#transaction(async (client) => {
        const { rows } = await client.query<Pick<SearchRow, 'key' | 'outcome_count' | 'status_counts'>>(
          'SELECT key, outcome_count, status_counts FROM searches WHERE id = $1 FOR UPDATE',
          [searchId],
        );
        const row = rows[0];
        if (!row) throw noSearchForOutcomes(searchId);
        const old = await this.#latestOutcomeOf(client, row.key, username, outcome.platformId);
        if (!old) return undefined;
        const seq = row.outcome_count + 1;
        const counts = [...row.status_counts];
        counts[STATUS_INDEX.get(old.status)!]! -= 1;
        counts[STATUS_INDEX.get(outcome.status)!]! += 1;
        await client.query(
          `INSERT INTO outcome_pages (search_key, first_seq, count, platform_ids, body) VALUES ($1, $2, 1, $3, $4)`,
          [
            row.key,
            seq,
            JSON.stringify([outcome.platformId]),
            await encodeCompactPage(encoded, COMPACT_PAGE_QUALITY.batch),
          ],
        );
        await client.query('UPDATE searches SET outcome_count = $2, status_counts = $3 WHERE key = $1', [
          row.key,
          seq,
          counts,
        ]);
        return seq;
      });
    });
  }

  listOutcomes(
    searchId: string,
    options: { afterSeq?: number; statuses?: readonly OutcomeStatus[] } = {},
  ): Promise<StoredOutcome[]> {
    return this.#guard(async () => {
      const afterSeq = options.afterSeq ?? 0;
      const { rows } = await this.#query<
        { first_seq: number; body: Buffer } & Pick<SearchRow, 'username' | 'outcome_count' | 'status_counts'>
      >(
        `SELECT p.first_seq, p.body, s.username, s.outcome_count, s.status_counts
         FROM outcome_pages p JOIN searches s ON s.key = p.search_key
         WHERE s.id = $1 AND p.first_seq + p.count - 1 > $2 ORDER BY p.first_seq`,
        [searchId, afterSeq],
      );
      const first = rows[0];
      if (!first) return [];
      return this.#storedOutcomes(rows, first.username, afterSeq, options.statuses, hasReplaced(first));
    });
  }

  progress(searchId: string): Promise<SearchProgress> {
    return this.#guard(async () => {
      const { rows } = await this.#query<Pick<SearchRow, 'status_counts'>>(
        'SELECT status_counts FROM searches WHERE id = $1',
        [searchId],
      );
      return progressOfCounts(rows[0]?.status_counts);
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
        search: await this.#toSearch(row),
        progress: progressOfCounts(row.status_counts),
        outcomes: await this.#storedOutcomes(pages, row.username, 0, options.statuses, hasReplaced(row)),
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
      return Promise.all(rows.map((row) => this.#toSearch(row)));
    });
  }

  unfinishedSearches(): Promise<SearchRecord[]> {
    return this.#guard(async () => {
      const { rows } = await this.#query<SearchRow>(
        `SELECT * FROM searches WHERE state IN ('queued', 'running') ORDER BY created_at, id`,
      );
      return Promise.all(rows.map((row) => this.#toSearch(row)));
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
          `DELETE FROM outcome_cache WHERE ctid IN
             (SELECT ctid FROM outcome_cache WHERE expires_at <= $1 LIMIT $2)`,
          [before, SWEEP_CACHE_BATCH],
        );
        if ((rowCount ?? 0) < SWEEP_CACHE_BATCH) break;
      }
      return deleted;
    });
  }

  getCachedOutcomes(
    username: string,
    platformIds: readonly string[],
    now: number,
  ): Promise<Map<string, Outcome>> {
    return this.#cache.getCachedOutcomes(username, platformIds, now);
  }

  putCachedOutcomes(username: string, entries: readonly CacheEntry[]): Promise<void> {
    return this.#cache.putCachedOutcomes(username, entries);
  }

  addCacheRow(username: string, row: Uint8Array, expiresAt: number): Promise<void> {
    return this.#guard(async () => {
      await this.#query('INSERT INTO outcome_cache (username, expires_at, refs) VALUES ($1, $2, $3)', [
        username,
        expiresAt,
        Buffer.from(row.buffer, row.byteOffset, row.byteLength),
      ]);
    });
  }

  cacheRowsOf(username: string, now: number): Promise<Uint8Array[]> {
    return this.#guard(async () => {
      const { rows } = await this.#query<{ refs: Buffer }>(
        'SELECT refs FROM outcome_cache WHERE username = $1 AND expires_at > $2',
        [username, now],
      );
      return rows.map((r) => r.refs);
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

  /** Each check on its own, WRITES_IN_FLIGHT at once: `recentMs` weighs them in whatever order they land. */
  recordChecks(checks: readonly CheckStat[]): Promise<void> {
    return writeEach(checks, (c) => this.recordCheck(c.platformId, c.status, c.responseTimeMs, c.at));
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

/** Progress from a search's `status_counts` (by STATUS_CODES index). */
function progressOfCounts(counts: readonly number[] | undefined): SearchProgress {
  return progressOf((status) => counts?.[STATUS_INDEX.get(status)!] ?? 0);
}

/** SQL over `searches s`: whether the search has given more seqs than it counts outcomes (one was replaced). */
/** Whether a search has an outcome replaced: it gave more seqs than it counts outcomes. */
function hasReplaced(row: Pick<SearchRow, 'outcome_count' | 'status_counts'>): boolean {
  return row.outcome_count > row.status_counts.reduce((sum, n) => sum + n, 0);
}

function toSearch(row: SearchRow, platformIds: readonly string[]): SearchRecord {
  const number = (value: string | null) => (value === null ? null : Number(value));
  return searchRecordOf({
    id: row.id,
    username: row.username,
    state: row.state,
    tier: row.tier,
    client: row.client,
    private: row.private,
    platformIds,
    estimatedSeconds: row.estimated_seconds,
    createdAt: Number(row.created_at),
    startedAt: number(row.started_at),
    finishedAt: number(row.finished_at),
    error: row.error,
    recursive: row.recursive,
    followUps: row.follow_ups,
  });
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
