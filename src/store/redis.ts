/**
 * The cluster-mode store: every API and worker process shares one Redis.
 * Writes that must be atomic (numbering outcomes, refusing a platform twice,
 * state changes with their index) are Lua scripts. A search and its outcomes
 * expire after the retention period even if no sweep runs. A Redis outage
 * surfaces as UserscoutError `store_unavailable` (503), never as a hang.
 *
 * Keys, under `PREFIX:`: `search:ID` (hash; its platforms as vocabulary ids), `outcomes:ID` (list of compact
 * outcomes, see compact-outcome.ts; seq = index + 1; an outcome replaced by a later answer is
 * left as an empty entry, so indexes never move), `seen:ID` (bitmap by the
 * vocabulary id of each platform id stored), `counts:ID` (status → n), `searches`
 * and `unfinished` and `by-client:CLIENT` (sorted sets by creation time), `cache:PLATFORM:USERNAME`
 * (expiry time as a varint, then the compact outcome), `key:ID` (hash),
 * `key-hash:HASH` (→ id), `keys` (sorted set), `stats:PLATFORM` (hash), `stats`
 * (set of platform ids), and `vocab`, `vocab-ids` (redis-vocabulary.ts).
 */
import type { Redis } from 'ioredis';
import type { PlatformHealthEntry } from '../catalogue/health.js';
import type { ControlRecord } from '../engine/control.js';
import type { Outcome, OutcomeStatus } from '../engine/outcome.js';
import { UserscoutError } from '../errors.js';
import { closeRedis, createRedisClient } from '../redis/connection.js';
import { asStoreError } from '../redis/unavailable.js';
import { decodeVarints, encodeVarints } from './compact-outcome.js';
import { RedisSiteLimits } from './redis-site-limits.js';
import { checkGeneration, RedisVocabulary, STALE_VOCABULARY } from './redis-vocabulary.js';
import { RedisWatchlists } from './redis-watchlists.js';
import { progressOf, searchRecordOf } from './search-record.js';
import {
  ANSWERED_STATUSES,
  type ApiKeyRecord,
  type CacheEntry,
  type CheckStat,
  duplicateIdError,
  emptyByStatus,
  type FollowUp,
  noSearchForOutcomes,
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
/** Cache entries or checks written by one script call at most (Lua's unpack has a limit). */
const SCRIPT_BATCH = 500;
const UNFINISHED: ReadonlySet<string> = new Set<SearchState>(['queued', 'running']);

const SCRIPTS = {
  // KEYS: search, searches, unfinished, outcomes, seen, counts, vocab, by-client.
  // ARGV: id, createdAt, unfinished?, ttl, vocabulary generation, fields...
  usCreateSearch: {
    numberOfKeys: 8,
    lua: `
      if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
      ${checkGeneration(7, 5)}
      redis.call('DEL', KEYS[4], KEYS[5], KEYS[6])
      redis.call('HSET', KEYS[1], unpack(ARGV, 6))
      redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
      redis.call('ZADD', KEYS[8], ARGV[2], ARGV[1])
      if ARGV[3] == '1' then redis.call('ZADD', KEYS[3], ARGV[2], ARGV[1]) end
      if tonumber(ARGV[4]) > 0 then
        redis.call('PEXPIRE', KEYS[1], ARGV[4])
        redis.call('PEXPIRE', KEYS[8], ARGV[4])
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
  // KEYS: search, seen, outcomes, counts, vocab. ARGV: vocabulary generation, then
  // (platform id's vocabulary id, platform id, status, compact outcome) per outcome. Returns
  // -1 (no such search), STALE_VOCABULARY, or each outcome's seq, 0 for a platform stored
  // already. A search begun by an earlier release keeps its \`seen\` hash (platform id → seq).
  usAddOutcomes: {
    numberOfKeys: 5,
    lua: `
      if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
      ${checkGeneration(5, 1)}
      local legacy = redis.call('TYPE', KEYS[2]).ok == 'hash'
      local seqs, added, first = {}, {}, false
      -- A few commands per batch, not per outcome: each CHUNK outcomes (unpack's limit) are one
      -- BITFIELD (every platform's seen bit set, its old value read) and one RPUSH of the new
      -- ones, whose seqs follow from the list's length.
      local CHUNK = 1000
      for from = 2, #ARGV, 4 * CHUNK do
        local to = math.min(#ARGV, from + 4 * CHUNK - 1)
        local stored = {}
        if legacy then
          for i = from, to, 4 do stored[#stored + 1] = redis.call('HSETNX', KEYS[2], ARGV[i + 1], 0) == 0 end
        else
          local ops = {}
          for i = from, to, 4 do
            ops[#ops + 1] = 'SET'
            ops[#ops + 1] = 'u1'
            ops[#ops + 1] = ARGV[i]
            ops[#ops + 1] = 1
          end
          for k, old in ipairs(redis.call('BITFIELD', KEYS[2], unpack(ops))) do stored[k] = old == 1 end
        end
        local rows = {}
        for k, was in ipairs(stored) do
          if not was then
            local a = from + 4 * (k - 1)
            rows[#rows + 1] = ARGV[a + 3]
            added[ARGV[a + 2]] = (added[ARGV[a + 2]] or 0) + 1
          end
        end
        local seq = 0
        if #rows > 0 then
          seq = redis.call('RPUSH', KEYS[3], unpack(rows)) - #rows
          if seq == 0 then first = true end
        end
        for _, was in ipairs(stored) do
          if was then
            seqs[#seqs + 1] = 0
          else
            seq = seq + 1
            seqs[#seqs + 1] = seq
          end
        end
      end
      -- One HINCRBY per status in the batch, not one per outcome.
      for status, n in pairs(added) do redis.call('HINCRBY', KEYS[4], status, n) end
      if first then
        local ttl = redis.call('PTTL', KEYS[1])
        if ttl > 0 then
          redis.call('PEXPIRE', KEYS[2], ttl)
          redis.call('PEXPIRE', KEYS[3], ttl)
          redis.call('PEXPIRE', KEYS[4], ttl)
        end
      end
      return seqs`,
  },
  // KEYS: search, outcomes, counts, vocab. ARGV: vocabulary generation, index of the outcome
  // replaced, its bytes as read, its status, the new status, the new compact outcome. Returns -1
  // (no such search), STALE_VOCABULARY, 0 (that entry changed since it was read: read again), or
  // the new outcome's seq. The replaced entry is emptied in place, so every seq keeps its index.
  usReplaceOutcome: {
    numberOfKeys: 4,
    lua: `
      if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
      ${checkGeneration(4, 1)}
      if redis.call('LINDEX', KEYS[2], ARGV[2]) ~= ARGV[3] then return 0 end
      redis.call('LSET', KEYS[2], ARGV[2], '')
      local seq = redis.call('RPUSH', KEYS[2], ARGV[6])
      redis.call('HINCRBY', KEYS[3], ARGV[4], -1)
      redis.call('HINCRBY', KEYS[3], ARGV[5], 1)
      return seq`,
  },
  // Keys vary in number: the count goes with each call (as for the scripts below).
  // KEYS: vocab, then one cache key per entry. ARGV: vocabulary generation, then (value, ttl ms) per entry.
  usPutCachedMany: {
    lua: `
      ${checkGeneration(1, 1)}
      for i = 2, #KEYS do redis.call('SET', KEYS[i], ARGV[2 * i - 2], 'PX', ARGV[2 * i - 1]) end
      return 1`,
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
  // KEYS: stats, then stats:PLATFORM of each platform. ARGV: alpha, each platform's id (in
  // the order of KEYS), then (platform's index from 1, status, answered (1/0), ms, at) per
  // check, in order. Adds each check to its platform's counts, lastCheckedAt (the latest),
  // recentMs (moving average of answered checks), answered and answeredMs: one read and one
  // write per platform, however many checks it has in the batch.
  usRecordChecks: {
    lua: `
      local platforms = #KEYS - 1
      local alpha = tonumber(ARGV[1])
      redis.call('SADD', KEYS[1], unpack(ARGV, 2, platforms + 1))
      local rows = {}
      for j = 1, platforms do
        local row = {}
        local flat = redis.call('HGETALL', KEYS[j + 1])
        for f = 1, #flat, 2 do row[flat[f]] = tonumber(flat[f + 1]) end
        rows[j] = row
      end
      for i = platforms + 2, #ARGV, 5 do
        local row = rows[tonumber(ARGV[i])]
        local status, at = ARGV[i + 1], tonumber(ARGV[i + 4])
        row.checks = (row.checks or 0) + 1
        row[status] = (row[status] or 0) + 1
        if not row.lastCheckedAt or at > row.lastCheckedAt then row.lastCheckedAt = at end
        if ARGV[i + 2] == '1' then
          local ms = tonumber(ARGV[i + 3])
          local answered = row.answered or 0
          if answered > 0 then row.recentMs = (row.recentMs or ms) * (1 - alpha) + ms * alpha else row.recentMs = ms end
          row.answered = answered + 1
          row.answeredMs = (row.answeredMs or 0) + ms
        end
      end
      for j = 1, platforms do
        local fields = {}
        for name, value in pairs(rows[j]) do
          fields[#fields + 1] = name
          fields[#fields + 1] = string.format('%.17g', value)
        end
        redis.call('HSET', KEYS[j + 1], unpack(fields))
      end
      return 1`,
  },
} as const;

type ScriptName = keyof typeof SCRIPTS;
type Scripted = Redis & Record<ScriptName, (...args: (string | number | Buffer)[]) => Promise<number>>;

export class RedisStore implements Store {
  readonly #redis: Scripted;
  readonly #ownsClient: boolean;
  readonly #prefix: string;
  readonly #retentionMs: number;
  readonly #now: () => number;
  readonly #vocabulary: RedisVocabulary;
  #closed = false;
  readonly watchlists: RedisWatchlists;
  readonly siteLimits: RedisSiteLimits;

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
    this.#vocabulary = new RedisVocabulary(client, this.#key('vocab'), this.#key('vocab-ids'));
    this.watchlists = new RedisWatchlists(client, this.#prefix);
    this.siteLimits = new RedisSiteLimits(client, this.#prefix);
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
      // Twice at most, as addOutcomes: the platforms are vocabulary ids.
      for (let attempt = 1; ; attempt++) {
        await this.#vocabulary.intern(search.platformIds);
        const platforms = search.platformIds.map((id) => this.#vocabulary.idOf(id)!.toString(36)).join(',');
        const generation = this.#vocabulary.generation;
        const created = await this.#redis.usCreateSearch(
          k.search,
          this.#key('searches'),
          this.#key('unfinished'),
          k.outcomes,
          k.seen,
          k.counts,
          this.#vocabulary.vocabKey,
          this.#key('by-client', search.client),
          search.id,
          search.createdAt,
          UNFINISHED.has(search.state) ? '1' : '0',
          this.#retentionMs,
          generation,
          ...searchFields(search, platforms),
        );
        if (created === STALE_VOCABULARY && attempt < 2) {
          this.#vocabulary.reset(generation);
          continue;
        }
        if (created !== 1) throw duplicateIdError('Search', search.id);
        return;
      }
    });
  }

  getSearch(id: string): Promise<SearchRecord | undefined> {
    return this.#guard(async () => {
      const results = await this.#redis
        .multi()
        .hgetall(this.#key('search', id))
        .hget(this.#vocabulary.vocabKey, '0')
        .exec();
      const [row, generation] = valuesOf(results) as [Record<string, string>, string | null];
      return this.#toSearch(row, generation);
    });
  }

  /** A search record from its hash; its platforms, stored as vocabulary ids, read back as platform ids. */
  async #toSearch(
    row: Record<string, string> | undefined,
    generation: string | null,
  ): Promise<SearchRecord | undefined> {
    if (!row || row.id === undefined) return undefined;
    // A search stored by an earlier release keeps its platform ids as JSON.
    if (row.platformIds !== undefined) return toSearch(row, JSON.parse(row.platformIds) as string[]);
    this.#vocabulary.observe(generation);
    const ids = row.platforms ? row.platforms.split(',').map((id) => Number.parseInt(id, 36)) : [];
    return toSearch(row, await this.#vocabulary.textsOf(ids));
  }

  updateSearch(
    id: string,
    patch: Partial<Pick<SearchRecord, 'state' | 'startedAt' | 'finishedAt' | 'error' | 'followUps'>>,
  ): Promise<void> {
    return this.#guard(async () => {
      // A field given as undefined keeps its value, as in the other stores.
      const fields = Object.entries(patch)
        .filter(([, value]) => value !== undefined)
        .flatMap(([name, value]) => [name, name === 'followUps' ? JSON.stringify(value) : String(value)]);
      await this.#redis.usUpdateSearch(
        this.#key('search', id),
        this.#key('unfinished'),
        id,
        patch.state ?? '',
        ...fields,
      );
    });
  }

  /** One script call: atomic, and one round trip for the whole batch (two when a text is new). */
  addOutcomes(searchId: string, outcomes: readonly Outcome[]): Promise<(number | undefined)[]> {
    return this.#guard(async () => {
      const notFound = () => noSearchForOutcomes(searchId);
      const k = this.#searchKeys(searchId);
      const username = outcomes.length === 0 ? null : await this.#redis.hget(k.search, 'username');
      if (username === null) {
        if (outcomes.length > 0 || (await this.#redis.exists(k.search)) === 0) throw notFound();
        return [];
      }
      // Twice at most: a Redis emptied since the vocabulary was cached is seen once, then interned anew.
      for (let attempt = 1; ; attempt++) {
        const { generation, rows, platforms } = await this.#vocabulary.encode(outcomes, username);
        const seqs = (await this.#redis.usAddOutcomes(
          k.search,
          k.seen,
          k.outcomes,
          k.counts,
          this.#vocabulary.vocabKey,
          generation,
          ...outcomes.flatMap((o, i) => [platforms[i]!, o.platformId, o.status, rows[i]!]),
        )) as unknown as number | number[];
        if (seqs === STALE_VOCABULARY && attempt < 2) {
          this.#vocabulary.reset(generation);
          continue;
        }
        if (!Array.isArray(seqs)) throw notFound();
        return seqs.map((seq) => (seq === 0 ? undefined : seq));
      }
    });
  }

  /**
   * Reads the list to find the platform's entry, then one script replaces it if it is
   * still what was read (else reads again, a few times at most). Rare: a platform
   * checked again, at most once a search.
   */
  replaceOutcome(searchId: string, outcome: Outcome): Promise<number | undefined> {
    return this.#guard(async () => {
      const notFound = () => noSearchForOutcomes(searchId);
      const k = this.#searchKeys(searchId);
      for (let attempt = 1; attempt <= 4; attempt++) {
        const results = await this.#redis
          .multi()
          .hget(k.search, 'username')
          .lrangeBuffer(k.outcomes, 0, -1)
          .hget(this.#vocabulary.vocabKey, '0')
          .exec();
        const [username, rows, generation] = valuesOf(results) as [string | null, Buffer[], string | null];
        if (username === null) throw notFound();
        const stored = await this.#storedOutcomes(rows, username, generation, 0, undefined);
        const old = stored.find((s) => s.outcome.platformId === outcome.platformId);
        if (!old) return undefined;
        const encoded = await this.#vocabulary.encode([outcome], username);
        const seq = await this.#redis.usReplaceOutcome(
          k.search,
          k.outcomes,
          k.counts,
          this.#vocabulary.vocabKey,
          encoded.generation,
          old.seq - 1,
          rows[old.seq - 1]!,
          old.outcome.status,
          outcome.status,
          encoded.rows[0]!,
        );
        if (seq === STALE_VOCABULARY) this.#vocabulary.reset(encoded.generation);
        else if (seq === -1) throw notFound();
        else if (seq > 0) return seq;
      }
      throw new UserscoutError(
        'internal',
        `The outcome of ${outcome.platformId} kept changing while replaced`,
      );
    });
  }

  listOutcomes(
    searchId: string,
    options: { afterSeq?: number; statuses?: readonly OutcomeStatus[] } = {},
  ): Promise<StoredOutcome[]> {
    return this.#guard(async () => {
      const afterSeq = options.afterSeq ?? 0;
      const results = await this.#redis
        .multi()
        .hget(this.#key('search', searchId), 'username')
        .lrangeBuffer(this.#key('outcomes', searchId), afterSeq, -1)
        .hget(this.#vocabulary.vocabKey, '0')
        .exec();
      const [username, rows, generation] = valuesOf(results) as [string | null, Buffer[], string | null];
      if (username === null) return [];
      return this.#storedOutcomes(rows, username, generation, afterSeq, options.statuses);
    });
  }

  progress(searchId: string): Promise<SearchProgress> {
    return this.#guard(async () => {
      return progressOfHash(await this.#redis.hgetall(this.#key('counts', searchId)));
    });
  }

  /** One MULTI: the search, its counts and its outcomes as they were at one moment. */
  snapshot(
    id: string,
    options: { statuses?: readonly OutcomeStatus[] } = {},
  ): Promise<SearchSnapshot | undefined> {
    return this.#guard(async () => {
      const k = this.#searchKeys(id);
      const results = await this.#redis
        .multi()
        .hgetall(k.search)
        .hgetall(k.counts)
        .lrangeBuffer(k.outcomes, 0, -1)
        .hget(this.#vocabulary.vocabKey, '0')
        .exec();
      const [row, counts, rows, generation] = valuesOf(results) as [
        Record<string, string>,
        Record<string, string>,
        Buffer[],
        string | null,
      ];
      const search = await this.#toSearch(row, generation);
      if (!search) return undefined;
      return {
        search,
        progress: progressOfHash(counts),
        outcomes: await this.#storedOutcomes(rows, search.username, generation, 0, options.statuses),
      };
    });
  }

  listSearchesByClient(
    client: string,
    options: { readonly limit: number; readonly before?: SearchCursor | undefined },
  ): Promise<SearchRecord[]> {
    return this.#guard(async () => {
      const index = this.#key('by-client', client);
      const generation = await this.#redis.hget(this.#vocabulary.vocabKey, '0');
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
          const search = await this.#toSearch(record, generation);
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
      const generation = await this.#redis.hget(this.#vocabulary.vocabKey, '0');
      const records = await this.#hgetallMany(ids.map((id) => this.#key('search', id)));
      const gone = ids.filter((_, i) => records[i] === undefined);
      // Expired by the retention TTL: drop them from the index.
      if (gone.length > 0) await this.#redis.zrem(this.#key('unfinished'), ...gone);
      const searches: SearchRecord[] = [];
      for (const record of records) {
        const search = await this.#toSearch(record, generation);
        if (search !== undefined && UNFINISHED.has(search.state)) searches.push(search);
      }
      return searches;
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
          // UNLINK: Redis frees a search's outcomes in the background, not while other commands wait.
          pipeline.unlink(k.search, k.outcomes, k.seen, k.counts);
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

  async getCachedOutcome(username: string, platformId: string, now: number): Promise<Outcome | undefined> {
    return (await this.getCachedOutcomes(username, [platformId], now)).get(platformId);
  }

  getCachedOutcomes(
    username: string,
    platformIds: readonly string[],
    now: number,
  ): Promise<Map<string, Outcome>> {
    return this.#guard(async () => {
      const found = new Map<string, Outcome>();
      if (platformIds.length === 0) return found;
      // One round trip, two commands: every entry (one MGET), then the vocabulary's generation.
      const [values, generation] = valuesOf(
        await this.#redis
          .multi()
          .mgetBuffer(...platformIds.map((id) => this.#cacheKey(username, id)))
          .hget(this.#vocabulary.vocabKey, '0')
          .exec(),
      ) as [(Buffer | null)[], string | null];
      const compact: { platformId: string; bytes: Uint8Array }[] = [];
      for (const [i, raw] of values.entries()) {
        if (raw === null) continue;
        const platformId = platformIds[i]!;
        if (raw[0] === 0x7b) {
          // Written by an earlier release: JSON.
          const cached = JSON.parse(raw.toString('utf8')) as { expiresAt: number; outcome: Outcome };
          if (now < cached.expiresAt) found.set(platformId, cached.outcome);
          continue;
        }
        // The expiry time (a varint: its last byte is under 0x80), then the outcome.
        const end = raw.findIndex((b) => b < 0x80) + 1;
        const [expiresAt] = decodeVarints(raw.subarray(0, end));
        if (now < expiresAt!) compact.push({ platformId, bytes: raw.subarray(end) });
      }
      if (compact.length === 0) return found;
      this.#vocabulary.observe(generation);
      const outcomes = await this.#vocabulary.decode(
        compact.map((c) => c.bytes),
        username,
      );
      for (const [i, { platformId }] of compact.entries()) found.set(platformId, outcomes[i]!);
      return found;
    });
  }

  putCachedOutcome(username: string, outcome: Outcome, expiresAt: number): Promise<void> {
    return this.putCachedOutcomes(username, [{ outcome, expiresAt }]);
  }

  /**
   * One script call per SCRIPT_BATCH entries: the generation checked once, then one SET each
   * (of two entries of one platform, the last is kept).
   */
  putCachedOutcomes(username: string, entries: readonly CacheEntry[]): Promise<void> {
    return this.#guard(async () => {
      for (let from = 0; from < entries.length; from += SCRIPT_BATCH) {
        const chunk = entries.slice(from, from + SCRIPT_BATCH);
        const now = this.#now();
        for (let attempt = 1; attempt <= 2; attempt++) {
          const { generation, rows } = await this.#vocabulary.encode(
            chunk.map((e) => e.outcome),
            username,
          );
          const done = await this.#redis.usPutCachedMany(
            1 + chunk.length,
            this.#vocabulary.vocabKey,
            ...chunk.map((e) => this.#cacheKey(username, e.outcome.platformId)),
            generation,
            ...chunk.flatMap((e, i) => [
              Buffer.concat([encodeVarints([Math.max(0, Math.round(e.expiresAt))]), rows[i]!]),
              Math.max(0, Math.ceil(e.expiresAt - now)) + CACHE_GRACE_MS,
            ]),
          );
          if (done !== STALE_VOCABULARY) break;
          this.#vocabulary.reset(generation);
        }
      }
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
    return this.recordChecks([{ platformId, status, responseTimeMs, at }]);
  }

  /** One script call per SCRIPT_BATCH checks, in order: one read and one write per platform. */
  recordChecks(checks: readonly CheckStat[]): Promise<void> {
    return this.#guard(async () => {
      for (let from = 0; from < checks.length; from += SCRIPT_BATCH) {
        const chunk = checks.slice(from, from + SCRIPT_BATCH);
        const platforms = [...new Set(chunk.map((c) => c.platformId))];
        const index = new Map(platforms.map((id, i) => [id, i + 1]));
        await this.#redis.usRecordChecks(
          1 + platforms.length,
          this.#key('stats'),
          ...platforms.map((id) => this.#key('stats', id)),
          RECENT_MS_ALPHA,
          ...platforms,
          ...chunk.flatMap((c) => [
            index.get(c.platformId)!,
            c.status,
            ANSWERED_STATUSES.has(c.status) ? '1' : '0',
            String(c.responseTimeMs),
            c.at,
          ]),
        );
      }
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

  /** Outcomes read from a list starting after `afterSeq`, only the given statuses when given. */
  async #storedOutcomes(
    rows: readonly Buffer[],
    username: string,
    generation: string | null,
    afterSeq: number,
    only: readonly OutcomeStatus[] | undefined,
  ): Promise<StoredOutcome[]> {
    this.#vocabulary.observe(generation);
    // An empty entry is an outcome replaced by a later answer: it keeps its place, unlisted.
    const seqs: number[] = [];
    const kept: Buffer[] = [];
    for (const [i, row] of rows.entries()) {
      if (row.length === 0) continue;
      seqs.push(afterSeq + i + 1);
      kept.push(row);
    }
    const outcomes = await this.#vocabulary.decode(kept, username);
    const statuses = only && new Set(only);
    const listed: StoredOutcome[] = [];
    for (const [i, outcome] of outcomes.entries()) {
      if (!statuses || statuses.has(outcome.status)) listed.push({ seq: seqs[i]!, outcome });
    }
    return listed;
  }

  getControl(platformId: string, identity: string): Promise<ControlRecord | undefined> {
    return this.#guard(async () => {
      const json = await this.#redis.hget(this.#key('controls'), controlField(platformId, identity));
      return json === null ? undefined : (JSON.parse(json) as ControlRecord);
    });
  }

  putControl(record: ControlRecord): Promise<void> {
    return this.#guard(async () => {
      await this.#redis.hset(
        this.#key('controls'),
        controlField(record.platformId, record.identity),
        JSON.stringify(record),
      );
    });
  }

  listControls(): Promise<ControlRecord[]> {
    return this.#guard(async () => {
      const all = await this.#redis.hgetall(this.#key('controls'));
      return Object.keys(all)
        .sort(compare)
        .map((field) => JSON.parse(all[field]!) as ControlRecord);
    });
  }

  putPlatformHealth(platformId: string, entry: PlatformHealthEntry): Promise<void> {
    return this.#guard(async () => {
      await this.#redis.hset(this.#key('health'), platformId, JSON.stringify(entry));
    });
  }

  listPlatformHealth(): Promise<Record<string, PlatformHealthEntry>> {
    return this.#guard(async () => {
      const all = await this.#redis.hgetall(this.#key('health'));
      return Object.fromEntries(
        Object.keys(all)
          .sort(compare)
          .map((id) => [id, JSON.parse(all[id]!) as PlatformHealthEntry]),
      );
    });
  }

  /** SET NX PX: Redis's own clock times the lease, so `now` is not needed here. */
  claimLease(name: string, ttlMs: number, _now: number): Promise<boolean> {
    return this.#guard(
      async () =>
        (await this.#redis.set(this.#key('lease', name), '1', 'PX', Math.max(1, Math.round(ttlMs)), 'NX')) ===
        'OK',
    );
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

/** The search's hash; `platforms`: its platform ids as vocabulary ids, base 36, comma-separated. */
function searchFields(search: SearchRecord, platforms: string): string[] {
  const fields: [string, string | number | undefined][] = [
    ['id', search.id],
    ['username', search.username],
    ['state', search.state],
    ['tier', search.tier],
    ['client', search.client],
    ['private', search.private ? '1' : undefined],
    ['platforms', platforms],
    ['estimatedSeconds', search.estimatedSeconds],
    ['createdAt', search.createdAt],
    ['startedAt', search.startedAt],
    ['finishedAt', search.finishedAt],
    ['error', search.error],
    ['recursive', search.recursive ? '1' : undefined],
    ['followUps', search.followUps ? JSON.stringify(search.followUps) : undefined],
  ];
  return fields.filter(([, value]) => value !== undefined).flatMap(([name, value]) => [name, String(value)]);
}

/** The replies of a MULTI, throwing the first error. */
function valuesOf(results: [Error | null, unknown][] | null): unknown[] {
  for (const [error] of results ?? []) if (error) throw error;
  return (results ?? []).map(([, value]) => value);
}

/** Progress from a search's counts hash (status → count). */
function progressOfHash(counts: Record<string, string>): SearchProgress {
  return progressOf((status) => Number(counts[status] ?? 0));
}

function toSearch(row: Record<string, string>, platformIds: string[]): SearchRecord {
  const number = (field: string | undefined) => (field === undefined ? undefined : Number(field));
  return searchRecordOf({
    id: row.id!,
    username: row.username!,
    state: row.state as SearchState,
    tier: row.tier as Tier,
    client: row.client!,
    private: row.private === '1',
    platformIds,
    estimatedSeconds: Number(row.estimatedSeconds),
    createdAt: Number(row.createdAt),
    startedAt: number(row.startedAt),
    finishedAt: number(row.finishedAt),
    error: row.error,
    recursive: row.recursive === '1',
    followUps: row.followUps === undefined ? undefined : (JSON.parse(row.followUps) as FollowUp[]),
  });
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
/** A control's field in the controls hash: platform ids never hold a NUL. */
function controlField(platformId: string, identity: string): string {
  return `${platformId}\u0000${identity}`;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
