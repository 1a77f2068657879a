/**
 * The embedded store: one SQLite file (or ':memory:') through better-sqlite3,
 * WAL journal, schema migrated at open. The driver is synchronous; methods are
 * async only to fit the Store interface, so a thrown error becomes a rejection.
 *
 * Outcomes are kept compact (src/store/compact-outcome.ts): a row of small
 * integers and a blob of a dozen bytes for a plain miss, the texts a platform
 * repeats kept once in `vocabulary`. A search's platforms are vocabulary ids too.
 * When a search finishes, its rows are packed into one compressed page
 * (compact-page.ts, `outcome_pages`): a hit's evidence is most of its bytes, and
 * a search's hits repeat much of it. Outcomes stored after that are rows again.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { PlatformHealthEntry } from '../catalogue/health.js';
import type { ControlRecord } from '../engine/controls/control.js';
import type { Outcome, OutcomeStatus } from '../engine/verdict/outcome.js';
import { UserscoutError } from '../errors.js';
import { Lru } from '../lru.js';
import { RECENT_MS_ALPHA, SQLITE_BUSY_TIMEOUT_MS, SWEEP_BATCH_ROWS } from '../tuning.js';
import { decodeVarints, encodeVarints, STATUS_CODES, STATUS_INDEX } from './compact-outcome.js';
import { decodeCompactPage, encodeCompactPage, encodePageSeqs, pageSeqs } from './compact-page.js';
import { type OutcomeRow, PolledOutcomes } from './polled-outcomes.js';
import { recordCache } from './record-cache.js';
import type { OutcomeCache } from './roles/outcome-cache.js';
import { progressOf, searchRecordOf } from './search-record.js';
import { SITE_LIMITS, type SiteLimitStore, siteLimitStore } from './site-limits.js';
import { type Database, openDatabase, type Transaction } from './sqlite-driver.js';
import { SqliteSiteFacts } from './sqlite-site-facts.js';
import { Vocabulary } from './sqlite-vocabulary.js';
import { SqliteWatchlists } from './sqlite-watchlists.js';
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
} from './store.js';
import { TRANSPORT_MEMORY, type TransportMemoryStore, transportMemoryStore } from './transport-memory.js';

/**
 * Schema versions in order: entry i takes `user_version` from i to i + 1.
 * Append new entries; never edit one that has shipped.
 */
const MIGRATIONS: readonly (string | ((db: Database) => void))[] = [
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
  // 2: compact outcomes. Searches get an integer key that outcomes refer to;
  // outcomes and cached outcomes become compact blobs; swept searches' outcomes go in batches.
  migrateToCompactOutcomes,
  // 3: a search readable only with the key that started it.
  `ALTER TABLE searches ADD COLUMN private INTEGER NOT NULL DEFAULT 0;`,
  // 4: control checks, leases and the scheduled self-check's verdicts.
  `
  CREATE TABLE platform_controls (
    platform_id TEXT NOT NULL,
    identity TEXT NOT NULL,
    record TEXT NOT NULL, -- JSON ControlRecord
    PRIMARY KEY (platform_id, identity)
  );
  CREATE TABLE leases (
    name TEXT PRIMARY KEY,
    expires_at INTEGER NOT NULL
  );
  CREATE TABLE platform_health (
    platform_id TEXT PRIMARY KEY,
    entry TEXT NOT NULL -- JSON PlatformHealthEntry
  );
  `,
  // 5: a client's own searches, newest first (GET /api/searches).
  `CREATE INDEX searches_by_client ON searches (client, created_at DESC, id DESC);`,
  // 6: recursive searches and the follow-ups they started.
  `
  ALTER TABLE searches ADD COLUMN recursive INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE searches ADD COLUMN follow_ups TEXT; -- JSON FollowUp[], once recorded
  `,
  // 7: a finished search's outcomes in one compressed page; rows written before stay rows and read as before.
  `
  CREATE TABLE outcome_pages (
    search_key INTEGER PRIMARY KEY, -- searches.key
    last_seq INTEGER NOT NULL, -- the highest seq in the page
    seqs BLOB, -- each outcome's seq, as varints of the steps between them; NULL: 1 to last_seq
    status_counts BLOB NOT NULL, -- outcomes of each status, varints in STATUS_CODES order
    body BLOB NOT NULL -- compact-page.ts, in seq order
  );
  `,
  // 8: every control claim deletes the expired leases first: found by their expiry, not by a scan.
  `CREATE INDEX leases_by_expires_at ON leases (expires_at);`,
  // 9: the outcome cache refers to the searches' records instead of copying outcomes. Entries
  // written before are dropped, not converted: they are only a cache.
  `
  DROP TABLE outcome_cache;
  CREATE TABLE outcome_cache (
    username TEXT NOT NULL, -- case-sensitive: BINARY collation
    expires_at INTEGER NOT NULL, -- of the row's last-expiring entry
    refs BLOB NOT NULL -- cache-refs.ts
  );
  CREATE INDEX outcome_cache_by_username ON outcome_cache (username, expires_at);
  CREATE INDEX outcome_cache_by_expires_at ON outcome_cache (expires_at);
  `,
];

const SCHEMA_2 = `
  CREATE TABLE vocabulary (
    id INTEGER PRIMARY KEY,
    text TEXT NOT NULL UNIQUE -- a template of compact-outcome.ts, or a platform id
  );

  CREATE TABLE searches_2 (
    key INTEGER PRIMARY KEY AUTOINCREMENT, -- never reused: outcomes of a swept search may outlive it briefly
    id TEXT NOT NULL UNIQUE,
    username TEXT NOT NULL,
    state TEXT NOT NULL,
    tier TEXT NOT NULL,
    client TEXT NOT NULL,
    platform_ids BLOB NOT NULL, -- vocabulary ids, varints
    estimated_seconds REAL NOT NULL,
    created_at INTEGER NOT NULL,
    started_at INTEGER,
    finished_at INTEGER,
    error TEXT,
    outcome_count INTEGER NOT NULL DEFAULT 0 -- the last seq given
  );

  CREATE TABLE outcomes_2 (
    search_key INTEGER NOT NULL, -- searches.key
    platform INTEGER NOT NULL, -- vocabulary id of the platform id
    seq INTEGER NOT NULL,
    status INTEGER NOT NULL, -- index in STATUS_CODES (compact-outcome.ts)
    outcome BLOB NOT NULL, -- compact-outcome.ts
    PRIMARY KEY (search_key, platform)
  ) WITHOUT ROWID;

  -- Searches deleted whose outcomes are still being deleted, in batches.
  CREATE TABLE swept (search_key INTEGER PRIMARY KEY);
`;

const SCHEMA_2_AFTER = `
  DROP TABLE outcomes;
  DROP TABLE searches;
  DROP TABLE outcome_cache;
  ALTER TABLE searches_2 RENAME TO searches;
  ALTER TABLE outcomes_2 RENAME TO outcomes;
  CREATE INDEX searches_by_created_at ON searches (created_at);
  CREATE INDEX searches_unfinished ON searches (created_at, id) WHERE state IN ('queued', 'running');

  CREATE TABLE outcome_cache (
    username TEXT NOT NULL, -- case-sensitive: BINARY collation
    platform INTEGER NOT NULL, -- vocabulary id of the platform id
    outcome BLOB NOT NULL, -- compact-outcome.ts
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (username, platform)
  ) WITHOUT ROWID;
  CREATE INDEX outcome_cache_by_expires_at ON outcome_cache (expires_at);
`;

/**
 * Schema 1 to 2: every search and outcome rewritten compact, in the migration's
 * transaction. The outcome cache is dropped, not converted: it is only a cache.
 */
function migrateToCompactOutcomes(db: Database): void {
  db.exec(SCHEMA_2);
  const vocabulary = new Vocabulary(db);
  const insertSearch = db.prepare(`
    INSERT INTO searches_2 (id, username, state, tier, client, platform_ids, estimated_seconds, created_at,
      started_at, finished_at, error, outcome_count)
    VALUES (@id, @username, @state, @tier, @client, @platformIds, @estimated_seconds, @created_at,
      @started_at, @finished_at, @error, 0)
    RETURNING key`);
  const outcomesOf = db.prepare('SELECT seq, outcome FROM outcomes WHERE search_id = ? ORDER BY seq');
  const insertOutcome = db.prepare(`
    INSERT INTO outcomes_2 (search_key, platform, seq, status, outcome) VALUES (?, ?, ?, ?, ?)`);
  const setCount = db.prepare('UPDATE searches_2 SET outcome_count = ? WHERE key = ?');
  for (const row of db.prepare('SELECT * FROM searches ORDER BY created_at, id').all() as (Omit<
    SearchRow,
    'platform_ids'
  > & { platform_ids: string })[]) {
    const platformIds = JSON.parse(row.platform_ids) as string[];
    const { key } = insertSearch.get({
      ...row,
      platformIds: encodeVarints(platformIds.map((id) => vocabulary.intern(id))),
    }) as { key: number };
    let last = 0;
    for (const { seq, outcome } of outcomesOf.all(row.id) as { seq: number; outcome: string }[]) {
      const parsed = JSON.parse(outcome) as Outcome;
      insertOutcome.run(
        key,
        vocabulary.intern(parsed.platformId),
        seq,
        STATUS_INDEX.get(parsed.status) ?? -1,
        vocabulary.encode(parsed, row.username),
      );
      last = seq;
    }
    setCount.run(last, key);
  }
  db.exec(SCHEMA_2_AFTER);
}

interface SearchRow {
  key: number;
  id: string;
  username: string;
  state: SearchState;
  tier: Tier;
  client: string;
  private: number;
  recursive: number;
  follow_ups: string | null;
  platform_ids: Uint8Array;
  estimated_seconds: number;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
  error: string | null;
  outcome_count: number;
}

interface PageRow {
  last_seq: number;
  seqs: Uint8Array | null;
  status_counts: Uint8Array;
  body: Uint8Array;
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

/** Rows of one status of a search (countOutcomes). */
interface StatusCount {
  status: number;
  n: number;
}

/**
 * Snapshots of searches not finished kept for their next poll, by search and kind of poll
 * (hits, every outcome): a poll that finds the search's row as its last one did gets the
 * same snapshot object (`snapshot`). 50 searches polled in turn, each for hits or all.
 */
const SNAPSHOTS_KEPT = 128;

/**
 * What of a search's row changes while it is queued or running: its state and times, its
 * error, its follow-ups, and `outcome_count`, which every write of its outcomes moves
 * (adding, replacing, unpacking); its other columns never change.
 */
function changingColumns(row: SearchRow): string {
  return [
    row.id,
    row.state,
    row.outcome_count,
    row.started_at,
    row.finished_at,
    row.error,
    row.follow_ups,
  ].join('\u0000');
}

/** Distinct platform selections whose decoded id lists polls keep (a few KB each). */
const PLATFORM_ID_LISTS_KEPT = 64;

export class SqliteStore implements Store {
  readonly #db: Database;
  readonly #sql: ReturnType<typeof prepareStatements>;
  readonly #vocabulary: Vocabulary;
  /** Running searches' rows as their last poll read them, so a poll reads only those stored since. */
  readonly #polled = new PolledOutcomes();
  /**
   * Platform id lists decoded for polls, by their stored bytes (`#toPolledSearch`): searches of one
   * selection share one list, so polling many searches in turn decodes it once, not once a poll.
   */
  readonly #platformIdLists = new Lru<string, readonly string[]>(PLATFORM_ID_LISTS_KEPT);
  /** The last snapshot of each search not finished, and the changing columns of the row it was read from. */
  readonly #snapshots = new Lru<string, { readonly columns: string; readonly snapshot: SearchSnapshot }>(
    SNAPSHOTS_KEPT,
  );
  /** One read transaction: the search, its counts and its outcomes agree. */
  readonly #snapshot: Transaction<
    [string, { statuses?: readonly OutcomeStatus[] }],
    SearchSnapshot | undefined
  >;
  readonly #addOutcomes: Transaction<[string, readonly Outcome[]], (number | undefined)[]>;
  readonly #replaceOutcome: Transaction<[string, Outcome], number | undefined>;
  readonly #createSearch: Transaction<[SearchRecord], void>;
  readonly #cache: OutcomeCache;
  readonly #recordChecks: Transaction<[readonly CheckStat[]], void>;
  /** Deletes up to SWEEP_BATCH_ROWS searches created before the time given, noting them in `swept`. */
  readonly #sweepBatch: Transaction<[number], number>;
  readonly watchlists: SqliteWatchlists;
  readonly siteLimits: SiteLimitStore;
  readonly transportMemory: TransportMemoryStore;

  /** `path`: a database file (its folders are created) or ':memory:'. */
  constructor(path: string) {
    if (path !== ':memory:' && path !== '') mkdirSync(dirname(path), { recursive: true });
    this.#db = openDatabase(path);
    try {
      this.#db.exec(`PRAGMA busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
      this.#db.exec('PRAGMA journal_mode = WAL');
      this.#db.exec('PRAGMA synchronous = NORMAL');
      this.#db.exec('PRAGMA foreign_keys = ON');
      migrate(this.#db);
      this.#sql = prepareStatements(this.#db);
      this.#vocabulary = new Vocabulary(this.#db);
      this.watchlists = new SqliteWatchlists(this.#db);
      this.siteLimits = siteLimitStore(new SqliteSiteFacts(this.#db, SITE_LIMITS));
      this.transportMemory = transportMemoryStore(new SqliteSiteFacts(this.#db, TRANSPORT_MEMORY));
    } catch (error) {
      this.#db.close();
      throw error;
    }
    const sql = this.#sql;
    this.#snapshot = this.#db.transaction((id: string, options: { statuses?: readonly OutcomeStatus[] }) => {
      const row = sql.getSearch.get(id) as SearchRow | undefined;
      if (!row) return undefined;
      // Its row as the last poll of this kind found it: nothing stored since, the same snapshot.
      const kind = `${row.key} ${options.statuses === undefined ? '*' : options.statuses.join(',')}`;
      const columns = changingColumns(row);
      const kept = this.#snapshots.get(kind);
      if (kept?.columns === columns) return kept.snapshot;
      const counts = this.#sql.countOutcomes.all(row.key) as StatusCount[];
      const snapshot: SearchSnapshot = Object.freeze({
        search: Object.freeze(this.#toPolledSearch(row)),
        progress: Object.freeze(this.#progressOf(row.key, counts)),
        outcomes: Object.freeze(this.#polledOutcomes(row, options.statuses, counts)) as StoredOutcome[],
      });
      // A finished search's answer is cached by the API, and its rows are packed: not kept here.
      if (isFinished(row.state)) this.#snapshots.delete(kind);
      else this.#snapshots.set(kind, { columns, snapshot });
      return snapshot;
    });
    const vocabulary = this.#vocabulary;
    this.#addOutcomes = this.#db.transaction((searchId: string, outcomes: readonly Outcome[]) => {
      const search = sql.searchKey.get(searchId) as
        | Pick<SearchRow, 'key' | 'username' | 'outcome_count'>
        | undefined;
      if (search === undefined) {
        throw noSearchForOutcomes(searchId);
      }
      let seq = search.outcome_count;
      const packed = this.#packedPlatforms(search);
      const seqs = outcomes.map((outcome) => {
        if (packed?.has(outcome.platformId)) return undefined;
        const inserted = sql.insertOutcome.run(
          search.key,
          vocabulary.intern(outcome.platformId),
          seq + 1,
          STATUS_INDEX.get(outcome.status) ?? -1,
          vocabulary.encode(outcome, search.username),
        );
        return inserted.changes > 0 ? ++seq : undefined;
      });
      if (seq !== search.outcome_count) sql.setOutcomeCount.run(seq, search.key);
      return seqs;
    });
    // The platform's row takes the next seq and the later answer: one row per platform, as before.
    this.#replaceOutcome = this.#db.transaction((searchId: string, outcome: Outcome) => {
      const search = sql.searchKey.get(searchId) as
        | Pick<SearchRow, 'key' | 'username' | 'outcome_count'>
        | undefined;
      if (search === undefined) {
        throw noSearchForOutcomes(searchId);
      }
      this.#unpack(search);
      const seq = search.outcome_count + 1;
      const replaced = sql.replaceOutcome.run(
        seq,
        STATUS_INDEX.get(outcome.status) ?? -1,
        vocabulary.encode(outcome, search.username),
        search.key,
        vocabulary.intern(outcome.platformId),
      );
      if (replaced.changes === 0) return undefined;
      sql.setOutcomeCount.run(seq, search.key);
      return seq;
    });
    this.#createSearch = this.#db.transaction((search: SearchRecord) => {
      sql.insertSearch.run({
        id: search.id,
        username: search.username,
        state: search.state,
        tier: search.tier,
        client: search.client,
        private: search.private ? 1 : 0,
        recursive: search.recursive ? 1 : 0,
        followUps: search.followUps ? JSON.stringify(search.followUps) : null,
        platformIds: encodeVarints(search.platformIds.map((id) => vocabulary.intern(id))),
        estimatedSeconds: search.estimatedSeconds,
        createdAt: search.createdAt,
        startedAt: search.startedAt ?? null,
        finishedAt: search.finishedAt ?? null,
        error: search.error ?? null,
      });
    });
    this.#sweepBatch = this.#db.transaction((before: number) => {
      sql.noteSwept.run(before, SWEEP_BATCH_ROWS);
      return sql.sweepSearches.run().changes;
    });
    this.#cache = recordCache(this, this);
    this.#recordChecks = this.#db.transaction((checks: readonly CheckStat[]) => {
      for (const check of checks) recordCheckRow(sql, check);
    });
  }

  /** Runs a write transaction that may add to the vocabulary: ids it gave are forgotten if it rolls back. */
  #writing<T>(transaction: () => T): T {
    try {
      const result = transaction();
      this.#vocabulary.committed();
      return result;
    } catch (error) {
      this.#vocabulary.forgetUncommitted();
      throw error;
    }
  }

  async createSearch(search: SearchRecord): Promise<void> {
    refusingDuplicates('Search', search.id, () => this.#writing(() => this.#createSearch.immediate(search)));
  }

  async getSearch(id: string): Promise<SearchRecord | undefined> {
    const row = this.#sql.getSearch.get(id) as SearchRow | undefined;
    return row && this.#toSearch(row);
  }

  async updateSearch(
    id: string,
    patch: Partial<Pick<SearchRecord, 'state' | 'startedAt' | 'finishedAt' | 'error' | 'followUps'>>,
  ): Promise<void> {
    this.#sql.updateSearch.run({
      id,
      state: patch.state ?? null,
      startedAt: patch.startedAt ?? null,
      finishedAt: patch.finishedAt ?? null,
      error: patch.error ?? null,
      followUps: patch.followUps ? JSON.stringify(patch.followUps) : null,
    });
    if (patch.state !== undefined && isFinished(patch.state)) await this.#pack(id);
  }

  /**
   * Packs a finished search's rows into its page: read, compressed off the event
   * loop, then written in one transaction that first checks no other process
   * packed them meanwhile (else it leaves them: they read the same either way).
   */
  async #pack(id: string): Promise<void> {
    const sql = this.#sql;
    const search = sql.searchKey.get(id) as Pick<SearchRow, 'key' | 'username'> | undefined;
    if (!search) return;
    const page = sql.getPage.get(search.key) as PageRow | undefined;
    const rows = sql.outcomeRows.all(search.key) as { seq: number; status: number; outcome: Uint8Array }[];
    const from = page?.last_seq ?? 0;
    if (rows.length === 0) return;
    const seqs = [...(page ? pageSeqs(page.seqs, page.last_seq) : []), ...rows.map((row) => row.seq)];
    const counts = page ? decodeVarints(page.status_counts) : STATUS_CODES.map(() => 0);
    for (const row of rows) counts[row.status] = (counts[row.status] ?? 0) + 1;
    const body = await encodeCompactPage([
      ...(page ? decodeCompactPage(page.body) : []),
      ...rows.map((row) => row.outcome),
    ]);
    const lastSeq = rows.at(-1)!.seq;
    this.#db
      .transaction(() => {
        const now = sql.getPage.get(search.key) as PageRow | undefined;
        if ((now?.last_seq ?? 0) !== from) return;
        const { n } = sql.countRowsUpTo.get(search.key, lastSeq) as { n: number };
        if (n !== rows.length) return;
        sql.putPage.run(search.key, lastSeq, encodePageSeqs(seqs), encodeVarints(counts), body);
        sql.deleteRowsUpTo.run(search.key, lastSeq);
      })
      .immediate();
  }

  /**
   * A packed search's outcomes back as rows, its page gone (inside the caller's write
   * transaction): what replacing one needs, rare (a check again after the search ended).
   */
  #unpack(search: Pick<SearchRow, 'key' | 'username'>): void {
    const page = this.#sql.getPage.get(search.key) as PageRow | undefined;
    if (!page) return;
    const seqs = pageSeqs(page.seqs, page.last_seq);
    for (const [i, bytes] of decodeCompactPage(page.body).entries()) {
      const outcome = this.#vocabulary.decode(bytes, search.username);
      this.#sql.insertOutcome.run(
        search.key,
        this.#vocabulary.intern(outcome.platformId),
        seqs[i]!,
        STATUS_INDEX.get(outcome.status) ?? -1,
        bytes,
      );
    }
    this.#sql.deletePage.run(search.key);
  }

  /** Platform ids in the search's page, or undefined when it has none (the rows' key refuses the rest). */
  #packedPlatforms(search: Pick<SearchRow, 'key' | 'username'>): Set<string> | undefined {
    const page = this.#sql.getPage.get(search.key) as PageRow | undefined;
    if (!page) return undefined;
    return new Set(
      decodeCompactPage(page.body).map((bytes) => this.#vocabulary.decode(bytes, search.username).platformId),
    );
  }

  async addOutcomes(searchId: string, outcomes: readonly Outcome[]): Promise<(number | undefined)[]> {
    return this.#writing(() => this.#addOutcomes.immediate(searchId, outcomes));
  }

  async replaceOutcome(searchId: string, outcome: Outcome): Promise<number | undefined> {
    return this.#writing(() => this.#replaceOutcome.immediate(searchId, outcome));
  }

  async listOutcomes(
    searchId: string,
    options: { afterSeq?: number; statuses?: readonly OutcomeStatus[] } = {},
  ): Promise<StoredOutcome[]> {
    const search = this.#sql.searchKey.get(searchId) as Pick<SearchRow, 'key' | 'username'> | undefined;
    return search ? this.#outcomesOf(search, options) : [];
  }

  /**
   * A poll's outcomes: a running search's rows stored since its last poll are read,
   * the others taken from `#polled`, decoded once, frozen and shared. `counts`: its
   * rows by status, read in the same transaction, to check those kept against.
   */
  #polledOutcomes(
    row: Pick<SearchRow, 'key' | 'id' | 'username' | 'outcome_count'>,
    statuses: readonly OutcomeStatus[] | undefined,
    counts: readonly StatusCount[],
  ): StoredOutcome[] {
    if (counts.length === 0 || this.#sql.pageLastSeq.get(row.key) !== undefined) {
      // No rows yet, or a page: a finished search's, read once (its answer is cached), as listOutcomes does.
      this.#polled.forget(row.key);
      return this.#outcomesOf(row, statuses === undefined ? {} : { statuses });
    }
    const stored: number[] = [];
    for (const { status, n } of counts) stored[status] = n;
    const only = statuses && new Set(statuses.map((status) => STATUS_INDEX.get(status) ?? -1));
    const decode = (bytes: Uint8Array) => this.#vocabulary.decode(bytes, row.username);
    const read = (platform: number, seq: number) =>
      (this.#sql.outcomeAt.get(row.key, platform, seq) as { outcome: Uint8Array } | undefined)?.outcome;
    const search = this.#polled.of(row.key, row.id, row.username, row.outcome_count);
    search.take(this.#sql.rowsAfter.all(row.key, search.lastSeq) as OutcomeRow[]);
    const listed = search.matches(stored) ? search.list(only, decode, read) : undefined;
    if (listed !== undefined) return listed;
    // Not the rows kept: read from the start, every row's bytes at hand.
    const again = this.#polled.restart(row.key, row.id, row.username);
    again.take(this.#sql.rowsAfter.all(row.key, 0) as OutcomeRow[]);
    return again.list(only, decode, read)!;
  }

  #outcomesOf(
    search: Pick<SearchRow, 'key' | 'username'>,
    options: { afterSeq?: number; statuses?: readonly OutcomeStatus[] },
  ): StoredOutcome[] {
    const afterSeq = options.afterSeq ?? 0;
    const listed: StoredOutcome[] = [];
    const lastPacked = (this.#sql.pageLastSeq.get(search.key) as { last_seq: number } | undefined)?.last_seq;
    if (lastPacked !== undefined && lastPacked > afterSeq) {
      const page = this.#sql.getPage.get(search.key) as PageRow;
      const seqs = pageSeqs(page.seqs, page.last_seq);
      const only = options.statuses && new Set<string>(options.statuses);
      for (const [i, bytes] of decodeCompactPage(page.body).entries()) {
        const seq = seqs[i]!;
        if (seq <= afterSeq) continue;
        const outcome = this.#vocabulary.decode(bytes, search.username);
        if (!only || only.has(outcome.status)) listed.push({ seq, outcome });
      }
    }
    const rows = this.#sql.listOutcomes.all({
      searchKey: search.key,
      afterSeq,
      statuses:
        options.statuses === undefined
          ? null
          : JSON.stringify(options.statuses.map((s) => STATUS_INDEX.get(s) ?? -1)),
    }) as { seq: number; outcome: Uint8Array }[];
    for (const row of rows)
      listed.push({ seq: row.seq, outcome: this.#vocabulary.decode(row.outcome, search.username) });
    return listed;
  }

  async progress(searchId: string): Promise<SearchProgress> {
    const search = this.#sql.searchKey.get(searchId) as Pick<SearchRow, 'key'> | undefined;
    return this.#progress(search?.key ?? -1);
  }

  /**
   * Keeps a running search's decoded outcomes for its next poll, and hands the same frozen
   * snapshot again while nothing of a search not finished changed.
   */
  async snapshot(
    id: string,
    options: { statuses?: readonly OutcomeStatus[] } = {},
  ): Promise<SearchSnapshot | undefined> {
    return this.#snapshot(id, options);
  }

  #progress(searchKey: number): SearchProgress {
    return this.#progressOf(searchKey, this.#sql.countOutcomes.all(searchKey) as StatusCount[]);
  }

  /** `counts`: the search's rows by status (countOutcomes); its page's are added. */
  #progressOf(searchKey: number, rowCounts: readonly StatusCount[]): SearchProgress {
    const rows = [...rowCounts];
    const page = this.#sql.pageCounts.get(searchKey) as Pick<PageRow, 'status_counts'> | undefined;
    if (page) rows.push(...decodeVarints(page.status_counts).map((n, status) => ({ status, n })));
    const counts: number[] = [];
    for (const row of rows) counts[row.status] = (counts[row.status] ?? 0) + row.n;
    return progressOf((status) => counts[STATUS_INDEX.get(status)!] ?? 0);
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
    return rows.map((row) => this.#toSearch(row));
  }

  async unfinishedSearches(): Promise<SearchRecord[]> {
    return (this.#sql.unfinishedSearches.all() as SearchRow[]).map((row) => this.#toSearch(row));
  }

  /**
   * In batches of at most SWEEP_BATCH_ROWS rows a transaction, yielding between
   * them, so a sweep of thousands of searches never holds the write lock (or the
   * event loop) long. Searches go first, a batch at a time, their keys noted in
   * `swept` in the same transaction; their outcomes follow. A sweep cut short
   * (a crash) is finished by the next one.
   */
  async sweepSearches(before: number): Promise<number> {
    const sql = this.#sql;
    let deleted = 0;
    for (;;) {
      const changes = this.#sweepBatch.immediate(before);
      deleted += changes;
      if (changes < SWEEP_BATCH_ROWS) break;
      await nextTick();
    }
    for (let key = this.#nextSwept(); key !== undefined; key = this.#nextSwept()) {
      for (;;) {
        const { changes } = sql.sweepOutcomes.run(key, key, SWEEP_BATCH_ROWS);
        await nextTick();
        if (changes < SWEEP_BATCH_ROWS) break;
      }
      sql.deletePage.run(key);
      sql.forgetSwept.run(key);
    }
    // Rows that expired before the cutoff are past any use; no clock needed.
    for (;;) {
      const { changes } = sql.sweepCache.run(before, SWEEP_BATCH_ROWS);
      if (changes < SWEEP_BATCH_ROWS) break;
      await nextTick();
    }
    return deleted;
  }

  #nextSwept(): number | undefined {
    return (this.#sql.nextSwept.get() as { search_key: number } | undefined)?.search_key;
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

  async addCacheRow(username: string, row: Uint8Array, expiresAt: number): Promise<void> {
    this.#writing(() => this.#sql.putCacheRow.run(username, expiresAt, row));
  }

  async cacheRowsOf(username: string, now: number): Promise<Uint8Array[]> {
    return (this.#sql.cacheRowsOf.all(username, now) as { refs: Uint8Array }[]).map((r) => r.refs);
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
    recordCheckRow(this.#sql, { platformId, status, responseTimeMs, at });
  }

  /** One transaction, the checks in the order given. */
  async recordChecks(checks: readonly CheckStat[]): Promise<void> {
    if (checks.length > 0) this.#recordChecks.immediate(checks);
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

  async getControl(platformId: string, identity: string): Promise<ControlRecord | undefined> {
    const row = this.#sql.getControl.get(platformId, identity) as { record: string } | undefined;
    return row ? (JSON.parse(row.record) as ControlRecord) : undefined;
  }

  async putControl(record: ControlRecord): Promise<void> {
    this.#sql.putControl.run(record.platformId, record.identity, JSON.stringify(record));
  }

  async listControls(): Promise<ControlRecord[]> {
    return (this.#sql.listControls.all() as { record: string }[]).map(
      (row) => JSON.parse(row.record) as ControlRecord,
    );
  }

  async putPlatformHealth(platformId: string, entry: PlatformHealthEntry): Promise<void> {
    this.#sql.putHealth.run(platformId, JSON.stringify(entry));
  }

  async listPlatformHealth(): Promise<Record<string, PlatformHealthEntry>> {
    const rows = this.#sql.listHealth.all() as { platform_id: string; entry: string }[];
    return Object.fromEntries(rows.map((r) => [r.platform_id, JSON.parse(r.entry) as PlatformHealthEntry]));
  }

  async claimLease(name: string, ttlMs: number, now: number): Promise<boolean> {
    this.#sql.sweepLeases.run(now);
    return this.#sql.claimLease.get({ name, expiresAt: now + ttlMs, now }) !== undefined;
  }

  async ping(): Promise<boolean> {
    try {
      return this.#sql.ping.get() !== undefined;
    } catch {
      return false;
    }
  }

  #toSearch(row: SearchRow): SearchRecord {
    return toSearch(row, this.#platformIdsOf(row.platform_ids));
  }

  #platformIdsOf(bytes: Uint8Array): string[] {
    return decodeVarints(bytes).map((id) => this.#vocabulary.text(id));
  }

  /**
   * A polled search: its platform ids (1,000 and more) decoded once for every search stored with the
   * same bytes. Kept by content, not by search: a cache of the last 16 searches polled missed on
   * every poll once more searches than that were followed at once (50 at once: decoding them was
   * ~6% of the API thread). Stored ids never change meaning (the vocabulary only grows).
   */
  #toPolledSearch(row: SearchRow): SearchRecord {
    const bytes = row.platform_ids;
    const key = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
    let ids = this.#platformIdLists.get(key);
    if (ids === undefined) {
      ids = Object.freeze(this.#platformIdsOf(bytes));
      this.#platformIdLists.set(key, ids);
    }
    return toSearch(row, ids);
  }

  async close(): Promise<void> {
    if (!this.#db.open) return;
    this.#db.exec('PRAGMA optimize');
    this.#db.close();
  }
}

/** Adds one check to its platform's row of statistics. */
function recordCheckRow(sql: ReturnType<typeof prepareStatements>, check: CheckStat): void {
  const { status, responseTimeMs } = check;
  const answered = ANSWERED_STATUSES.has(status);
  sql.recordCheck.run({
    platformId: check.platformId,
    hit: status === 'hit' ? 1 : 0,
    miss: status === 'miss' ? 1 : 0,
    unknown: status === 'unknown' ? 1 : 0,
    error: status === 'error' ? 1 : 0,
    invalid: status === 'invalid' ? 1 : 0,
    answered: answered ? 1 : 0,
    ms: answered ? responseTimeMs : 0,
    at: check.at,
    alpha: RECENT_MS_ALPHA,
  });
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
      const migration = MIGRATIONS[next]!;
      if (typeof migration === 'string') db.exec(migration);
      else migration(db);
      db.exec(`PRAGMA user_version = ${next + 1}`);
    }
  }).immediate();
}

function prepareStatements(db: Database) {
  return {
    ping: db.prepare('SELECT 1'),
    insertSearch: db.prepare(`
      INSERT INTO searches (id, username, state, tier, client, private, recursive, follow_ups, platform_ids,
        estimated_seconds, created_at, started_at, finished_at, error)
      VALUES (@id, @username, @state, @tier, @client, @private, @recursive, @followUps, @platformIds,
        @estimatedSeconds, @createdAt, @startedAt, @finishedAt, @error)`),
    getSearch: db.prepare('SELECT * FROM searches WHERE id = ?'),
    searchKey: db.prepare('SELECT key, username, outcome_count FROM searches WHERE id = ?'),
    // A field left out of the patch is bound as NULL and keeps its value.
    updateSearch: db.prepare(`
      UPDATE searches SET
        state = COALESCE(@state, state),
        started_at = COALESCE(@startedAt, started_at),
        finished_at = COALESCE(@finishedAt, finished_at),
        error = COALESCE(@error, error),
        follow_ups = COALESCE(@followUps, follow_ups)
      WHERE id = @id`),
    searchesByClient: db.prepare(`
      SELECT * FROM searches WHERE client = @client ORDER BY created_at DESC, id DESC LIMIT @limit`),
    searchesByClientBefore: db.prepare(`
      SELECT * FROM searches WHERE client = @client AND (created_at, id) < (@createdAt, @id)
      ORDER BY created_at DESC, id DESC LIMIT @limit`),
    unfinishedSearches: db.prepare(`
      SELECT * FROM searches WHERE state IN ('queued', 'running') ORDER BY created_at, id`),
    // The same searches, oldest first, as sweepSearches deletes next.
    noteSwept: db.prepare(`
      INSERT INTO swept (search_key) SELECT key FROM searches WHERE created_at < ? ORDER BY created_at LIMIT ?`),
    sweepSearches: db.prepare('DELETE FROM searches WHERE key IN (SELECT search_key FROM swept)'),
    nextSwept: db.prepare('SELECT search_key FROM swept ORDER BY search_key LIMIT 1'),
    sweepOutcomes: db.prepare(`
      DELETE FROM outcomes WHERE search_key = ? AND platform IN
        (SELECT platform FROM outcomes WHERE search_key = ? LIMIT ?)`),
    forgetSwept: db.prepare('DELETE FROM swept WHERE search_key = ?'),
    // A platform already stored inserts nothing (changes 0).
    insertOutcome: db.prepare(`
      INSERT INTO outcomes (search_key, platform, seq, status, outcome) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (search_key, platform) DO NOTHING`),
    replaceOutcome: db.prepare(
      'UPDATE outcomes SET seq = ?, status = ?, outcome = ? WHERE search_key = ? AND platform = ?',
    ),
    setOutcomeCount: db.prepare('UPDATE searches SET outcome_count = ? WHERE key = ?'),
    outcomeRows: db.prepare('SELECT seq, status, outcome FROM outcomes WHERE search_key = ? ORDER BY seq'),
    countRowsUpTo: db.prepare('SELECT COUNT(*) AS n FROM outcomes WHERE search_key = ? AND seq <= ?'),
    deleteRowsUpTo: db.prepare('DELETE FROM outcomes WHERE search_key = ? AND seq <= ?'),
    getPage: db.prepare('SELECT last_seq, seqs, status_counts, body FROM outcome_pages WHERE search_key = ?'),
    pageLastSeq: db.prepare('SELECT last_seq FROM outcome_pages WHERE search_key = ?'),
    pageCounts: db.prepare('SELECT status_counts FROM outcome_pages WHERE search_key = ?'),
    putPage: db.prepare(`
      INSERT INTO outcome_pages (search_key, last_seq, seqs, status_counts, body) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (search_key) DO UPDATE SET last_seq = excluded.last_seq, seqs = excluded.seqs,
        status_counts = excluded.status_counts, body = excluded.body`),
    deletePage: db.prepare('DELETE FROM outcome_pages WHERE search_key = ?'),
    listOutcomes: db.prepare(`
      SELECT seq, outcome FROM outcomes
      WHERE search_key = @searchKey AND seq > @afterSeq
        AND (@statuses IS NULL OR status IN (SELECT value FROM json_each(@statuses)))
      ORDER BY seq`),
    // A poll's rows stored since the last it read (rows of every status: a replaced hit may be a miss now).
    rowsAfter: db.prepare(
      'SELECT seq, platform, status, outcome FROM outcomes WHERE search_key = ? AND seq > ? ORDER BY seq',
    ),
    // An outcome a poll lists for the first time, its bytes not kept (the search's rows since checked).
    outcomeAt: db.prepare('SELECT outcome FROM outcomes WHERE search_key = ? AND platform = ? AND seq = ?'),
    countOutcomes: db.prepare(
      'SELECT status, COUNT(*) AS n FROM outcomes WHERE search_key = ? GROUP BY status',
    ),
    cacheRowsOf: db.prepare('SELECT refs FROM outcome_cache WHERE username = ? AND expires_at > ?'),
    putCacheRow: db.prepare('INSERT INTO outcome_cache (username, expires_at, refs) VALUES (?, ?, ?)'),
    sweepCache: db.prepare(`
      DELETE FROM outcome_cache WHERE rowid IN
        (SELECT rowid FROM outcome_cache WHERE expires_at <= ? LIMIT ?)`),
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
    getControl: db.prepare('SELECT record FROM platform_controls WHERE platform_id = ? AND identity = ?'),
    putControl: db.prepare(`
      INSERT INTO platform_controls (platform_id, identity, record) VALUES (?, ?, ?)
      ON CONFLICT (platform_id, identity) DO UPDATE SET record = excluded.record`),
    listControls: db.prepare('SELECT record FROM platform_controls ORDER BY platform_id, identity'),
    putHealth: db.prepare(`
      INSERT INTO platform_health (platform_id, entry) VALUES (?, ?)
      ON CONFLICT (platform_id) DO UPDATE SET entry = excluded.entry`),
    listHealth: db.prepare('SELECT platform_id, entry FROM platform_health ORDER BY platform_id'),
    sweepLeases: db.prepare('DELETE FROM leases WHERE expires_at <= ?'),
    // One statement, so two connections (the search thread's, the API's) never both take a lease.
    claimLease: db.prepare(`
      INSERT INTO leases (name, expires_at) VALUES (@name, @expiresAt)
      ON CONFLICT (name) DO UPDATE SET expires_at = excluded.expires_at WHERE leases.expires_at <= @now
      RETURNING name`),
  };
}

function toSearch(row: SearchRow, platformIds: readonly string[]): SearchRecord {
  return searchRecordOf({
    id: row.id,
    username: row.username,
    state: row.state,
    tier: row.tier,
    client: row.client,
    private: row.private !== 0,
    platformIds,
    estimatedSeconds: row.estimated_seconds,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    error: row.error,
    recursive: row.recursive !== 0,
    followUps: row.follow_ups === null ? null : (JSON.parse(row.follow_ups) as FollowUp[]),
  });
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
