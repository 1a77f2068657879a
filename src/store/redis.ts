/**
 * The cluster-mode store: every API and worker process shares one Redis.
 * Writes that must be atomic (numbering outcomes, refusing a platform twice,
 * state changes with their index) are Lua scripts. A search and its outcomes
 * expire after the retention period even if no sweep runs. A Redis outage
 * surfaces as UserscoutError `store_unavailable` (503), never as a hang.
 *
 * Keys, under `PREFIX:`: `search:ID` (hash), `outcomes:ID` (list, seq = index + 1),
 * `seen:ID` (platform id → seq), `counts:ID` (status → n), `searches` and
 * `unfinished` and `by-client:CLIENT` (sorted sets by creation time), `cache:PLATFORM:USERNAME`,
 * `key:ID` (hash), `key-hash:HASH` (→ id), `keys` (sorted set), `stats:PLATFORM`
 * (hash) and `stats` (set of platform ids).
 */
import type { Redis } from 'ioredis';
import type { Outcome, OutcomeStatus } from '../engine/outcome.js';
import { UserscoutError } from '../errors.js';
import { closeRedis, createRedisClient } from '../redis/connection.js';
import { asStoreError } from '../redis/unavailable.js';
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

export interface RedisStoreOptions {
  /**
   * A connection to use (not closed by the store), or a URL to open one (closed
   * by the store; its commands wait for the first connection, up to the command timeout).
   */
  readonly redis: Redis | string;
  /** Key prefix, without the trailing colon. @default 'userscout' */
  readonly prefix?: string;
  /** Searches and their outcomes expire this long after they are created; 0 keeps them until swept. @default 0 */
  readonly retentionMs?: number;
  /** The caller's clock (ms epoch): it turns a cached outcome's expiry time into a Redis TTL. */
  readonly now: () => number;
}

/** Redis keeps a cache entry this long past its expiry by the wall clock; reads compare with `now`. */
const CACHE_GRACE_MS = 5 * 60_000;
const SWEEP_BATCH = 100;
const UNFINISHED: ReadonlySet<string> = new Set<SearchState>(['queued', 'running']);

const SCRIPTS = {
  // KEYS: search, searches, unfinished, outcomes, seen, counts, by-client. ARGV: id, createdAt, unfinished?, ttl, fields...
  usCreateSearch: {
    numberOfKeys: 7,
    lua: `
      if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
      redis.call('DEL', KEYS[4], KEYS[5], KEYS[6])
      redis.call('HSET', KEYS[1], unpack(ARGV, 5))
      redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
      redis.call('ZADD', KEYS[7], ARGV[2], ARGV[1])
      if ARGV[3] == '1' then redis.call('ZADD', KEYS[3], ARGV[2], ARGV[1]) end
      if tonumber(ARGV[4]) > 0 then
        redis.call('PEXPIRE', KEYS[1], ARGV[4])
        redis.call('PEXPIRE', KEYS[7], ARGV[4])
      end
      return 1`,
  },
  // KEYS: search, unfinished. ARGV: id, state ('' = unchanged), fields...
  usUpdateSearch: {
    numberOfKeys: 2,
    lua: `
      if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
      if #ARGV > 2 then redis.call('HSET', KEYS[1], unpack(ARGV, 3)) end
      if ARGV[2] == 'queued' or ARGV[2] == 'running' then
        redis.call('ZADD', KEYS[2], redis.call('HGET', KEYS[1], 'createdAt'), ARGV[1])
      elseif ARGV[2] ~= '' then
        redis.call('ZREM', KEYS[2], ARGV[1])
      end
      return 1`,
  },
  // KEYS: search, seen, outcomes, counts. ARGV: (platformId, status, outcome JSON) per outcome.
  // Returns -1 (no such search) or each outcome's seq, 0 for a platform stored already.
  usAddOutcomes: {
    numberOfKeys: 4,
    lua: `
      if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
      local seqs = {}
      for i = 1, #ARGV, 3 do
        if redis.call('HEXISTS', KEYS[2], ARGV[i]) == 1 then
          seqs[#seqs + 1] = 0
        else
          local seq = redis.call('RPUSH', KEYS[3], ARGV[i + 2])
          redis.call('HSET', KEYS[2], ARGV[i], seq)
          redis.call('HINCRBY', KEYS[4], ARGV[i + 1], 1)
          if seq == 1 then
            local ttl = redis.call('PTTL', KEYS[1])
            if ttl > 0 then
              redis.call('PEXPIRE', KEYS[2], ttl)
              redis.call('PEXPIRE', KEYS[3], ttl)
              redis.call('PEXPIRE', KEYS[4], ttl)
            end
          end
          seqs[#seqs + 1] = seq
        end
      end
      return seqs`,
  },
  // KEYS: key, key-hash, keys. ARGV: id, hash, createdAt, fields...
  usCreateApiKey: {
    numberOfKeys: 3,
    lua: `
      if redis.call('EXISTS', KEYS[1]) == 1 or redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
      redis.call('HSET', KEYS[1], unpack(ARGV, 4))
      redis.call('SET', KEYS[2], ARGV[1])
      redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1])
      return 1`,
  },
  // KEYS: key. ARGV: revokedAt.
  usRevokeApiKey: {
    numberOfKeys: 1,
    lua: `
      if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('HEXISTS', KEYS[1], 'revokedAt') == 1 then return 0 end
      redis.call('HSET', KEYS[1], 'revokedAt', ARGV[1])
      return 1`,
  },
  // KEYS: stats:PLATFORM, stats. ARGV: platformId, status, answered (1/0), ms, at, alpha.
  usRecordCheck: {
    numberOfKeys: 2,
    lua: `
      local k = KEYS[1]
      redis.call('SADD', KEYS[2], ARGV[1])
      redis.call('HINCRBY', k, 'checks', 1)
      redis.call('HINCRBY', k, ARGV[2], 1)
      local last = redis.call('HGET', k, 'lastCheckedAt')
      if not last or tonumber(ARGV[5]) > tonumber(last) then redis.call('HSET', k, 'lastCheckedAt', ARGV[5]) end
      if ARGV[3] == '1' then
        local ms = tonumber(ARGV[4])
        local answered = tonumber(redis.call('HGET', k, 'answered') or '0')
        local recent = ms
        if answered > 0 then
          local alpha = tonumber(ARGV[6])
          recent = tonumber(redis.call('HGET', k, 'recentMs')) * (1 - alpha) + ms * alpha
        end
        redis.call('HSET', k, 'recentMs', string.format('%.17g', recent))
        redis.call('HINCRBY', k, 'answered', 1)
        redis.call('HINCRBYFLOAT', k, 'answeredMs', ARGV[4])
      end
      return 1`,
  },
} as const;

type ScriptName = keyof typeof SCRIPTS;
type Scripted = Redis & Record<ScriptName, (...args: (string | number)[]) => Promise<number>>;

export class RedisStore implements Store {
  readonly #redis: Scripted;
  readonly #ownsClient: boolean;
  readonly #prefix: string;
  readonly #retentionMs: number;
  readonly #now: () => number;
  #closed = false;

  constructor(options: RedisStoreOptions) {
    this.#ownsClient = typeof options.redis === 'string';
    const client =
      typeof options.redis === 'string'
        ? createRedisClient(options.redis, () => {}, { enableOfflineQueue: true })
        : options.redis;
    for (const [name, script] of Object.entries(SCRIPTS)) {
      if (!(name in client)) client.defineCommand(name, script);
    }
    this.#redis = client as Scripted;
    this.#prefix = `${options.prefix ?? 'userscout'}:`;
    this.#retentionMs = options.retentionMs ?? 0;
    this.#now = options.now;
  }

  #key(...parts: string[]): string {
    return this.#prefix + parts.join(':');
  }

  #searchKeys(id: string) {
    return {
      search: this.#key('search', id),
      outcomes: this.#key('outcomes', id),
      seen: this.#key('seen', id),
      counts: this.#key('counts', id),
    };
  }

  /** Runs `work`, turning a Redis outage into `store_unavailable`. */
  async #guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw asStoreError(error);
    }
  }

  createSearch(search: SearchRecord): Promise<void> {
    return this.#guard(async () => {
      const k = this.#searchKeys(search.id);
      const created = await this.#redis.usCreateSearch(
        k.search,
        this.#key('searches'),
        this.#key('unfinished'),
        k.outcomes,
        k.seen,
        k.counts,
        this.#key('by-client', search.client),
        search.id,
        search.createdAt,
        UNFINISHED.has(search.state) ? '1' : '0',
        this.#retentionMs,
        ...searchFields(search),
      );
      if (created === 0) throw duplicateIdError('Search', search.id);
    });
  }

  getSearch(id: string): Promise<SearchRecord | undefined> {
    return this.#guard(async () => toSearch(await this.#redis.hgetall(this.#key('search', id))));
  }

  updateSearch(
    id: string,
    patch: Partial<Pick<SearchRecord, 'state' | 'startedAt' | 'finishedAt' | 'error'>>,
  ): Promise<void> {
    return this.#guard(async () => {
      // A field given as undefined keeps its value, as in the other stores.
      const fields = Object.entries(patch)
        .filter(([, value]) => value !== undefined)
        .flatMap(([name, value]) => [name, String(value)]);
      await this.#redis.usUpdateSearch(
        this.#key('search', id),
        this.#key('unfinished'),
        id,
        patch.state ?? '',
        ...fields,
      );
    });
  }

  async addOutcome(searchId: string, outcome: Outcome): Promise<number | undefined> {
    return (await this.addOutcomes(searchId, [outcome]))[0];
  }

  /** One script call: atomic, and one round trip for the whole batch. */
  addOutcomes(searchId: string, outcomes: readonly Outcome[]): Promise<(number | undefined)[]> {
    return this.#guard(async () => {
      if (outcomes.length === 0) {
        if ((await this.#redis.exists(this.#key('search', searchId))) === 0)
          throw new UserscoutError('search_not_found', `No search ${searchId} to add an outcome to`);
        return [];
      }
      const k = this.#searchKeys(searchId);
      const seqs = (await this.#redis.usAddOutcomes(
        k.search,
        k.seen,
        k.outcomes,
        k.counts,
        ...outcomes.flatMap((o) => [o.platformId, o.status, JSON.stringify(o)]),
      )) as unknown as number | number[];
      if (!Array.isArray(seqs))
        throw new UserscoutError('search_not_found', `No search ${searchId} to add an outcome to`);
      return seqs.map((seq) => (seq === 0 ? undefined : seq));
    });
  }

  listOutcomes(
    searchId: string,
    options: { afterSeq?: number; statuses?: readonly OutcomeStatus[] } = {},
  ): Promise<StoredOutcome[]> {
    return this.#guard(async () => {
      const afterSeq = options.afterSeq ?? 0;
      const rows = await this.#redis.lrange(this.#key('outcomes', searchId), afterSeq, -1);
      return storedOutcomes(rows, afterSeq, options.statuses);
    });
  }

  progress(searchId: string): Promise<SearchProgress> {
    return this.#guard(async () => {
      return progressOf(await this.#redis.hgetall(this.#key('counts', searchId)));
    });
  }

  /** One MULTI: the search, its counts and its outcomes as they were at one moment. */
  snapshot(
    id: string,
    options: { statuses?: readonly OutcomeStatus[] } = {},
  ): Promise<SearchSnapshot | undefined> {
    return this.#guard(async () => {
      const k = this.#searchKeys(id);
      const results =
        (await this.#redis.multi().hgetall(k.search).hgetall(k.counts).lrange(k.outcomes, 0, -1).exec()) ??
        [];
      for (const [error] of results) if (error) throw error;
      const [row, counts, rows] = results.map(([, value]) => value) as [
        Record<string, string>,
        Record<string, string>,
        string[],
      ];
      const search = toSearch(row);
      if (!search) return undefined;
      return { search, progress: progressOf(counts), outcomes: storedOutcomes(rows, 0, options.statuses) };
    });
  }

  listSearchesByClient(
    client: string,
    options: { readonly limit: number; readonly before?: SearchCursor | undefined },
  ): Promise<SearchRecord[]> {
    return this.#guard(async () => {
      const index = this.#key('by-client', client);
      const listed: SearchRecord[] = [];
      let before = options.before;
      // Bounded: each round reads further down the index; searches expired by their TTL are dropped from it.
      for (let round = 0; round < 100 && listed.length < options.limit; round++) {
        const want = options.limit - listed.length;
        const page = await this.#indexBefore(index, before, want);
        const records = await this.#hgetallMany(page.map((e) => this.#key('search', e.id)));
        const gone = page.filter((_, i) => records[i] === undefined).map((e) => e.id);
        if (gone.length > 0) await this.#redis.zrem(index, ...gone);
        for (const record of records) {
          const search = toSearch(record);
          if (search) listed.push(search);
        }
        if (page.length < want) break;
        before = page[page.length - 1];
      }
      return listed;
    });
  }

  /** Up to `limit` members of a by-creation-time index after `before`, newest first (score, then id, descending). */
  async #indexBefore(
    index: string,
    before: SearchCursor | undefined,
    limit: number,
  ): Promise<SearchCursor[]> {
    const pairs = (flat: string[]) => {
      const out: SearchCursor[] = [];
      for (let i = 0; i < flat.length; i += 2) out.push({ id: flat[i]!, createdAt: Number(flat[i + 1]) });
      return out;
    };
    if (!before) return pairs(await this.#redis.zrevrange(index, 0, limit - 1, 'WITHSCORES'));
    // Those created at the cursor's own time with a smaller id, then those created earlier.
    const ties = pairs(
      await this.#redis.zrevrangebyscore(index, before.createdAt, before.createdAt, 'WITHSCORES'),
    ).filter((e) => compare(e.id, before.id) < 0);
    if (ties.length >= limit) return ties.slice(0, limit);
    const older = pairs(
      await this.#redis.zrevrangebyscore(
        index,
        `(${before.createdAt}`,
        '-inf',
        'WITHSCORES',
        'LIMIT',
        0,
        limit - ties.length,
      ),
    );
    return [...ties, ...older];
  }

  unfinishedSearches(): Promise<SearchRecord[]> {
    return this.#guard(async () => {
      // Score order, then member order (bytes): created_at, id as in SQLite.
      const ids = await this.#redis.zrange(this.#key('unfinished'), 0, -1);
      const records = await this.#hgetallMany(ids.map((id) => this.#key('search', id)));
      const gone = ids.filter((_, i) => records[i] === undefined);
      // Expired by the retention TTL: drop them from the index.
      if (gone.length > 0) await this.#redis.zrem(this.#key('unfinished'), ...gone);
      return records
        .map(toSearch)
        .filter((s): s is SearchRecord => s !== undefined && UNFINISHED.has(s.state));
    });
  }

  sweepSearches(before: number): Promise<number> {
    return this.#guard(async () => {
      let deleted = 0;
      // Bounded: each batch removes what it read from the index.
      for (let batch = 0; batch < 1_000_000; batch++) {
        const ids = await this.#redis.zrangebyscore(
          this.#key('searches'),
          '-inf',
          `(${before}`,
          'LIMIT',
          0,
          SWEEP_BATCH,
        );
        if (ids.length === 0) break;
        // Each search's client, to take it out of that client's index too (gone already when expired).
        const owners = await this.#redis
          .pipeline(ids.map((id) => ['hget', this.#key('search', id), 'client']))
          .exec();
        const pipeline = this.#redis.multi();
        for (const id of ids) {
          const k = this.#searchKeys(id);
          pipeline.exists(k.search);
          pipeline.del(k.search, k.outcomes, k.seen, k.counts);
        }
        pipeline.zrem(this.#key('searches'), ...ids);
        pipeline.zrem(this.#key('unfinished'), ...ids);
        // After the per-search commands, whose results are counted below by position.
        for (const [i, [, client]] of (owners ?? []).entries())
          if (typeof client === 'string') pipeline.zrem(this.#key('by-client', client), ids[i]!);
        const results = (await pipeline.exec()) ?? [];
        for (let i = 0; i < ids.length; i++) deleted += Number(results[2 * i]?.[1] ?? 0);
      }
      // Cached outcomes expire by themselves.
      return deleted;
    });
  }

  getCachedOutcome(username: string, platformId: string, now: number): Promise<Outcome | undefined> {
    return this.#guard(async () => {
      const raw = await this.#redis.get(this.#cacheKey(username, platformId));
      if (raw === null) return undefined;
      const cached = JSON.parse(raw) as { expiresAt: number; outcome: Outcome };
      return now < cached.expiresAt ? cached.outcome : undefined;
    });
  }

  putCachedOutcome(username: string, outcome: Outcome, expiresAt: number): Promise<void> {
    return this.#guard(async () => {
      const ttl = Math.max(0, Math.ceil(expiresAt - this.#now())) + CACHE_GRACE_MS;
      await this.#redis.set(
        this.#cacheKey(username, outcome.platformId),
        JSON.stringify({ expiresAt, outcome }),
        'PX',
        ttl,
      );
    });
  }

  #cacheKey(username: string, platformId: string): string {
    // Usernames are case-sensitive and may hold any character; the encoding keeps them apart.
    return this.#key('cache', platformId, encodeURIComponent(username));
  }

  createApiKey(key: ApiKeyRecord): Promise<void> {
    return this.#guard(async () => {
      const created = await this.#redis.usCreateApiKey(
        this.#key('key', key.id),
        this.#key('key-hash', key.hash),
        this.#key('keys'),
        key.id,
        key.hash,
        key.createdAt,
        ...apiKeyFields(key),
      );
      if (created === 0) throw duplicateIdError('API key', key.id);
    });
  }

  findApiKeyByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    return this.#guard(async () => {
      const id = await this.#redis.get(this.#key('key-hash', hash));
      return id === null ? undefined : toApiKey(await this.#redis.hgetall(this.#key('key', id)));
    });
  }

  listApiKeys(): Promise<ApiKeyRecord[]> {
    return this.#guard(async () => {
      const ids = await this.#redis.zrange(this.#key('keys'), 0, -1);
      const rows = await this.#hgetallMany(ids.map((id) => this.#key('key', id)));
      return rows.map(toApiKey).filter((k): k is ApiKeyRecord => k !== undefined);
    });
  }

  revokeApiKey(id: string, at: number): Promise<boolean> {
    return this.#guard(async () => (await this.#redis.usRevokeApiKey(this.#key('key', id), at)) === 1);
  }

  recordCheck(platformId: string, status: OutcomeStatus, responseTimeMs: number, at: number): Promise<void> {
    return this.#guard(async () => {
      await this.#redis.usRecordCheck(
        this.#key('stats', platformId),
        this.#key('stats'),
        platformId,
        status,
        ANSWERED_STATUSES.has(status) ? '1' : '0',
        String(responseTimeMs),
        at,
        RECENT_MS_ALPHA,
      );
    });
  }

  platformStats(): Promise<PlatformStats[]> {
    return this.#guard(async () => {
      const ids = (await this.#redis.smembers(this.#key('stats'))).sort(compare);
      const rows = await this.#hgetallMany(ids.map((id) => this.#key('stats', id)));
      const stats: PlatformStats[] = [];
      for (const [i, row] of rows.entries()) {
        if (!row) continue;
        const num = (field: string) => Number(row[field] ?? 0);
        const answered = num('answered');
        const byStatus = emptyByStatus();
        for (const s of Object.keys(byStatus) as OutcomeStatus[]) byStatus[s] = num(s);
        stats.push({
          platformId: ids[i]!,
          checks: num('checks'),
          meanMs: answered === 0 ? 0 : num('answeredMs') / answered,
          recentMs: num('recentMs'),
          byStatus,
          lastCheckedAt: num('lastCheckedAt'),
        });
      }
      return stats;
    });
  }

  /** HGETALL of many keys in one round trip; undefined for a key that does not exist. */
  async #hgetallMany(keys: readonly string[]): Promise<(Record<string, string> | undefined)[]> {
    if (keys.length === 0) return [];
    const pipeline = this.#redis.pipeline();
    for (const key of keys) pipeline.hgetall(key);
    const results = (await pipeline.exec()) ?? [];
    return results.map(([error, value]) => {
      if (error) throw error;
      const row = value as Record<string, string>;
      return Object.keys(row).length === 0 ? undefined : row;
    });
  }

  async ping(): Promise<boolean> {
    if (this.#closed) return false;
    try {
      return (await this.#redis.ping()) === 'PONG';
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#ownsClient) await closeRedis(this.#redis);
  }
}

function searchFields(search: SearchRecord): string[] {
  const fields: [string, string | number | undefined][] = [
    ['id', search.id],
    ['username', search.username],
    ['state', search.state],
    ['tier', search.tier],
    ['client', search.client],
    ['private', search.private ? '1' : undefined],
    ['platformIds', JSON.stringify(search.platformIds)],
    ['estimatedSeconds', search.estimatedSeconds],
    ['createdAt', search.createdAt],
    ['startedAt', search.startedAt],
    ['finishedAt', search.finishedAt],
    ['error', search.error],
  ];
  return fields.filter(([, value]) => value !== undefined).flatMap(([name, value]) => [name, String(value)]);
}

/** Progress from a search's counts hash. */
function progressOf(counts: Record<string, string>): SearchProgress {
  const byStatus = emptyByStatus();
  let checked = 0;
  for (const status of Object.keys(byStatus) as OutcomeStatus[]) {
    byStatus[status] = Number(counts[status] ?? 0);
    checked += byStatus[status];
  }
  return { checked, hits: byStatus.hit, byStatus };
}

/** Outcomes read from the list starting after `afterSeq`, only the given statuses when given. */
function storedOutcomes(
  rows: readonly string[],
  afterSeq: number,
  only: readonly OutcomeStatus[] | undefined,
): StoredOutcome[] {
  const statuses = only && new Set(only);
  const listed: StoredOutcome[] = [];
  for (const [i, row] of rows.entries()) {
    const outcome = JSON.parse(row) as Outcome;
    if (!statuses || statuses.has(outcome.status)) listed.push({ seq: afterSeq + i + 1, outcome });
  }
  return listed;
}

function toSearch(row: Record<string, string> | undefined): SearchRecord | undefined {
  if (!row || row.id === undefined) return undefined;
  return {
    id: row.id,
    username: row.username!,
    state: row.state as SearchState,
    tier: row.tier as Tier,
    client: row.client!,
    ...(row.private === '1' ? { private: true as const } : {}),
    platformIds: JSON.parse(row.platformIds!) as string[],
    estimatedSeconds: Number(row.estimatedSeconds),
    createdAt: Number(row.createdAt),
    // Absent rather than undefined, so a record reads back deep-equal to the one created.
    ...(row.startedAt === undefined ? {} : { startedAt: Number(row.startedAt) }),
    ...(row.finishedAt === undefined ? {} : { finishedAt: Number(row.finishedAt) }),
    ...(row.error === undefined ? {} : { error: row.error }),
  };
}

function apiKeyFields(key: ApiKeyRecord): string[] {
  return [
    'id',
    key.id,
    'name',
    key.name,
    'tier',
    key.tier,
    'hash',
    key.hash,
    'createdAt',
    String(key.createdAt),
    ...(key.revokedAt === undefined ? [] : ['revokedAt', String(key.revokedAt)]),
  ];
}

function toApiKey(row: Record<string, string> | undefined): ApiKeyRecord | undefined {
  if (!row || row.id === undefined) return undefined;
  return {
    id: row.id,
    name: row.name!,
    tier: row.tier as Tier,
    hash: row.hash!,
    createdAt: Number(row.createdAt),
    ...(row.revokedAt === undefined ? {} : { revokedAt: Number(row.revokedAt) }),
  };
}

/** Code-unit order, like SQLite's BINARY collation, so every store lists in the same order. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
