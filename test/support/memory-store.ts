/**
 * A store held in this process's memory, with the same semantics as the
 * persistent ones; the store contract suite runs against it too. Test-only:
 * nothing in src/ reaches it. Values are copied in and out, so callers never
 * share objects with the store.
 */
import type { PlatformHealthEntry } from '../../src/catalogue/health.js';
import type { ControlRecord } from '../../src/engine/controls/control.js';
import { MemoryTransportShelf } from '../../src/engine/transport-book.js';
import type { Outcome, OutcomeStatus } from '../../src/engine/verdict/outcome.js';
import { MemoryLimitShelf } from '../../src/schedule/site-limit-book.js';
import { recordCache } from '../../src/store/record-cache.js';
import { openDatabase } from '../../src/store/sqlite-driver.js';
import { SqliteWatchlists } from '../../src/store/sqlite-watchlists.js';
import {
  ANSWERED_STATUSES,
  type ApiKeyRecord,
  type CacheEntry,
  type CheckStat,
  duplicateIdError,
  emptyByStatus,
  noSearchForOutcomes,
  type PlatformStats,
  type SearchCursor,
  type SearchProgress,
  type SearchRecord,
  type SearchSnapshot,
  type Store,
  type StoredOutcome,
  writeEach,
} from '../../src/store/store.js';
import { RECENT_MS_ALPHA } from '../../src/tuning.js';

interface SearchEntry {
  record: SearchRecord;
  /** In seq order; one per platform (a replaced one is removed). */
  outcomes: StoredOutcome[];
  readonly platformIds: Set<string>;
  /** The last seq given. */
  lastSeq: number;
}

interface StatsEntry {
  checks: number;
  readonly byStatus: Record<OutcomeStatus, number>;
  answered: number;
  answeredMs: number;
  recentMs: number;
  lastCheckedAt: number;
}

export class MemoryStore implements Store {
  /** Watchlists on an in-memory SQLite database: their semantics are the SQLite store's. */
  readonly watchlists = memoryWatchlists();
  /** Learned site limits in memory, as an engine without a store keeps them. */
  readonly siteLimits = new MemoryLimitShelf();
  /** Remembered transports in memory, as an engine without a store keeps them. */
  readonly transportMemory = new MemoryTransportShelf();
  readonly #searches = new Map<string, SearchEntry>();
  /** username → the outcome cache's rows, with their expiry. */
  readonly #cacheRows = new Map<string, { row: Uint8Array; expiresAt: number }[]>();
  readonly #cache = recordCache(this, this);
  readonly #apiKeys = new Map<string, ApiKeyRecord>();
  readonly #stats = new Map<string, StatsEntry>();
  readonly #controls = new Map<string, ControlRecord>();
  readonly #leases = new Map<string, number>();
  #closed = false;

  async getControl(platformId: string, identity: string): Promise<ControlRecord | undefined> {
    const record = this.#controls.get(`${platformId}\u0000${identity}`);
    return record && structuredClone(record);
  }

  async putControl(record: ControlRecord): Promise<void> {
    this.#controls.set(`${record.platformId}\u0000${record.identity}`, structuredClone(record));
  }

  async listControls(): Promise<ControlRecord[]> {
    return [...this.#controls.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, record]) => structuredClone(record));
  }

  readonly #health = new Map<string, PlatformHealthEntry>();

  async putPlatformHealth(platformId: string, entry: PlatformHealthEntry): Promise<void> {
    this.#health.set(platformId, structuredClone(entry));
  }

  async listPlatformHealth(): Promise<Record<string, PlatformHealthEntry>> {
    return Object.fromEntries([...this.#health.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }

  async claimLease(name: string, ttlMs: number, now: number): Promise<boolean> {
    const until = this.#leases.get(name);
    if (until !== undefined && until > now) return false;
    this.#leases.set(name, now + ttlMs);
    return true;
  }

  async createSearch(search: SearchRecord): Promise<void> {
    if (this.#searches.has(search.id)) throw duplicateIdError('Search', search.id);
    this.#searches.set(search.id, {
      record: structuredClone(search),
      outcomes: [],
      platformIds: new Set(),
      lastSeq: 0,
    });
  }

  async getSearch(id: string): Promise<SearchRecord | undefined> {
    const entry = this.#searches.get(id);
    return entry && structuredClone(entry.record);
  }

  async updateSearch(
    id: string,
    patch: Partial<Pick<SearchRecord, 'state' | 'startedAt' | 'finishedAt' | 'error' | 'followUps'>>,
  ): Promise<void> {
    const entry = this.#searches.get(id);
    if (!entry) return;
    // A field given as undefined keeps its value, as in the SQLite store.
    const given = Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined));
    entry.record = { ...entry.record, ...given };
  }

  #addOne(searchId: string, outcome: Outcome): number | undefined {
    const entry = this.#searches.get(searchId)!;
    if (entry.platformIds.has(outcome.platformId)) return undefined;
    const seq = ++entry.lastSeq;
    entry.platformIds.add(outcome.platformId);
    entry.outcomes.push({ seq, outcome: structuredClone(outcome) });
    return seq;
  }

  async addOutcomes(searchId: string, outcomes: readonly Outcome[]): Promise<(number | undefined)[]> {
    if (!this.#searches.has(searchId)) throw noSearchForOutcomes(searchId);
    const seqs: (number | undefined)[] = [];
    for (const outcome of outcomes) seqs.push(this.#addOne(searchId, outcome));
    return seqs;
  }

  async replaceOutcome(searchId: string, outcome: Outcome): Promise<number | undefined> {
    const entry = this.#searches.get(searchId);
    if (!entry) throw noSearchForOutcomes(searchId);
    if (!entry.platformIds.has(outcome.platformId)) return undefined;
    entry.outcomes = entry.outcomes.filter((stored) => stored.outcome.platformId !== outcome.platformId);
    const seq = ++entry.lastSeq;
    entry.outcomes.push({ seq, outcome: structuredClone(outcome) });
    return seq;
  }

  async listOutcomes(
    searchId: string,
    options: { afterSeq?: number; statuses?: readonly OutcomeStatus[] } = {},
  ): Promise<StoredOutcome[]> {
    const outcomes = this.#searches.get(searchId)?.outcomes ?? [];
    const afterSeq = options.afterSeq ?? 0;
    const statuses = options.statuses && new Set(options.statuses);
    return outcomes
      .filter((stored) => stored.seq > afterSeq && (!statuses || statuses.has(stored.outcome.status)))
      .map((stored) => structuredClone(stored));
  }

  async snapshot(
    id: string,
    options: { statuses?: readonly OutcomeStatus[] } = {},
  ): Promise<SearchSnapshot | undefined> {
    const search = await this.getSearch(id);
    if (!search) return undefined;
    const statuses = options.statuses;
    const outcomes = await this.listOutcomes(id, statuses === undefined ? {} : { statuses });
    return { search, progress: await this.progress(id), outcomes };
  }

  async progress(searchId: string): Promise<SearchProgress> {
    const byStatus = emptyByStatus();
    const outcomes = this.#searches.get(searchId)?.outcomes ?? [];
    for (const { outcome } of outcomes) byStatus[outcome.status]++;
    return { checked: outcomes.length, hits: byStatus.hit, byStatus };
  }

  async listSearchesByClient(
    client: string,
    options: { readonly limit: number; readonly before?: SearchCursor | undefined },
  ): Promise<SearchRecord[]> {
    const { before } = options;
    return [...this.#searches.values()]
      .map((entry) => entry.record)
      .filter((record) => record.client === client)
      .filter(
        (r) =>
          !before ||
          r.createdAt < before.createdAt ||
          (r.createdAt === before.createdAt && compare(r.id, before.id) < 0),
      )
      .sort((a, b) => b.createdAt - a.createdAt || compare(b.id, a.id))
      .slice(0, options.limit)
      .map((record) => structuredClone(record));
  }

  async unfinishedSearches(): Promise<SearchRecord[]> {
    return [...this.#searches.values()]
      .map((entry) => entry.record)
      .filter((record) => record.state === 'queued' || record.state === 'running')
      .sort((a, b) => a.createdAt - b.createdAt || compare(a.id, b.id))
      .map((record) => structuredClone(record));
  }

  async sweepSearches(before: number): Promise<number> {
    let deleted = 0;
    for (const [id, entry] of this.#searches) {
      if (entry.record.createdAt < before) {
        this.#searches.delete(id);
        deleted++;
      }
    }
    for (const [username, rows] of this.#cacheRows) {
      const kept = rows.filter((r) => r.expiresAt > before);
      if (kept.length === 0) this.#cacheRows.delete(username);
      else this.#cacheRows.set(username, kept);
    }
    return deleted;
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
    const rows = this.#cacheRows.get(username) ?? [];
    rows.push({ row: row.slice(), expiresAt });
    this.#cacheRows.set(username, rows);
  }

  async cacheRowsOf(username: string, now: number): Promise<Uint8Array[]> {
    return (this.#cacheRows.get(username) ?? []).filter((r) => r.expiresAt > now).map((r) => r.row.slice());
  }

  async createApiKey(key: ApiKeyRecord): Promise<void> {
    for (const existing of this.#apiKeys.values()) {
      if (existing.id === key.id || existing.hash === key.hash) throw duplicateIdError('API key', key.id);
    }
    this.#apiKeys.set(key.id, structuredClone(key));
  }

  async findApiKeyByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    for (const key of this.#apiKeys.values()) {
      if (key.hash === hash) return structuredClone(key);
    }
    return undefined;
  }

  async listApiKeys(): Promise<ApiKeyRecord[]> {
    return [...this.#apiKeys.values()]
      .sort((a, b) => a.createdAt - b.createdAt || compare(a.id, b.id))
      .map((key) => structuredClone(key));
  }

  async revokeApiKey(id: string, at: number): Promise<boolean> {
    const key = this.#apiKeys.get(id);
    if (!key || key.revokedAt !== undefined) return false;
    this.#apiKeys.set(id, { ...key, revokedAt: at });
    return true;
  }

  recordChecks(checks: readonly CheckStat[]): Promise<void> {
    return writeEach(checks, (c) => this.recordCheck(c.platformId, c.status, c.responseTimeMs, c.at));
  }

  async recordCheck(
    platformId: string,
    status: OutcomeStatus,
    responseTimeMs: number,
    at: number,
  ): Promise<void> {
    let stats = this.#stats.get(platformId);
    if (!stats) {
      stats = {
        checks: 0,
        byStatus: emptyByStatus(),
        answered: 0,
        answeredMs: 0,
        recentMs: 0,
        lastCheckedAt: at,
      };
      this.#stats.set(platformId, stats);
    }
    stats.checks++;
    stats.byStatus[status]++;
    stats.lastCheckedAt = Math.max(stats.lastCheckedAt, at);
    if (ANSWERED_STATUSES.has(status)) {
      stats.recentMs =
        stats.answered === 0
          ? responseTimeMs
          : stats.recentMs * (1 - RECENT_MS_ALPHA) + responseTimeMs * RECENT_MS_ALPHA;
      stats.answered++;
      stats.answeredMs += responseTimeMs;
    }
  }

  async platformStats(): Promise<PlatformStats[]> {
    return [...this.#stats]
      .sort(([a], [b]) => compare(a, b))
      .map(([platformId, stats]) => ({
        platformId,
        checks: stats.checks,
        meanMs: stats.answered === 0 ? 0 : stats.answeredMs / stats.answered,
        recentMs: stats.recentMs,
        byStatus: { ...stats.byStatus },
        lastCheckedAt: stats.lastCheckedAt,
      }));
  }

  async ping(): Promise<boolean> {
    return !this.#closed;
  }

  async close(): Promise<void> {
    this.#closed = true;
  }
}

/** Code-unit order, like SQLite's BINARY collation, so both stores list in the same order. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function memoryWatchlists(): SqliteWatchlists {
  const db = openDatabase(':memory:');
  db.exec('PRAGMA foreign_keys = ON');
  return new SqliteWatchlists(db);
}
