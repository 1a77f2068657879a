/**
 * The cluster-mode store: every API and worker process shares one Redis.
 * Writes that must be atomic (numbering outcomes, refusing a platform twice,
 * state changes with their index) are Lua scripts. A search and its outcomes
 * expire after the retention period even if no sweep runs. A Redis outage
 * surfaces as UserscoutError `store_unavailable` (503), never as a hang.
 *
 * Keys, under `PREFIX:`: `search:ID` (hash; its platforms as vocabulary ids), `outcomes:ID` (list of compact
 * outcomes, see compact-outcome.ts; seq = index + 1 + the page's `last`; an outcome replaced by a later
 * answer is left as an empty entry, so indexes never move), `page:ID` (hash: when a search ends, its
 * entries up to seq `last` packed into one compact page, compact-page.ts, as SQLite does, taken off the
 * front of `outcomes:ID`; `body`, and `seqs` when a replaced outcome left a gap), `seen:ID` (bitmap by the
 * vocabulary id of each platform id stored), `counts:ID` (status → n), `searches`
 * and `unfinished` and `by-client:CLIENT` (sorted sets by creation time), `cache:USERNAME`
 * (list of the outcome cache's rows, each after its expiry time as a varint; cache-refs.ts), `key:ID` (hash),
 * `key-hash:HASH` (→ id), `keys` (sorted set), `stats:PLATFORM` (hash), `stats`
 * (set of platform ids), and `vocab`, `vocab-ids` (redis-vocabulary.ts).
 */
import type { Redis } from 'ioredis';
import type { PlatformHealthEntry } from '../catalogue/health.js';
import type { ControlRecord } from '../engine/controls/control.js';
import type { Outcome, OutcomeStatus } from '../engine/verdict/outcome.js';
import { UserscoutError } from '../errors.js';
import { closeRedis, createRedisClient } from '../redis/connection.js';
import { asStoreError } from '../redis/unavailable.js';
import { CACHE_ROWS_KEPT, RECENT_MS_ALPHA, REDIS_CACHE_GRACE_MS } from '../tuning.js';
import { decodeVarints, encodeVarints } from './compact-outcome.js';
import { decodeCompactPage, encodeCompactPage, encodePageSeqs, pageSeqs } from './compact-page.js';
import { recordCache } from './record-cache.js';
import { RedisSiteFacts } from './redis-site-facts.js';
import { checkGeneration, RedisVocabulary, STALE_VOCABULARY } from './redis-vocabulary.js';
import { RedisWatchlists } from './redis-watchlists.js';
import type { OutcomeCache } from './roles/outcome-cache.js';
import { progressOf, searchRecordOf } from './search-record.js';
import { SITE_LIMITS, type SiteLimitStore, siteLimitStore } from './site-limits.js';
import {
  ANSWERED_STATUSES,
  type ApiKeyRecord,
  type CacheEntry,
  type CheckStat,
  duplicateIdError,
  emptyByStatus,
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

const SWEEP_BATCH = 100;
/** Checks written by one script call at most (Lua's unpack has a limit). */
const SCRIPT_BATCH = 500;
const UNFINISHED: ReadonlySet<string> = new Set<SearchState>(['queued', 'running']);

const SCRIPTS = {
  // KEYS: search, searches, unfinished, outcomes, seen, counts, vocab, by-client, page.
  // ARGV: id, createdAt, unfinished?, ttl, vocabulary generation, fields...
  usCreateSearch: {
    numberOfKeys: 9,
    lua: `
      if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
      ${checkGeneration(7, 5)}
      redis.call('DEL', KEYS[4], KEYS[5], KEYS[6], KEYS[9])
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
  // KEYS: search, seen, outcomes, counts, vocab, page. ARGV: vocabulary generation, then
  // (platform id's vocabulary id, platform id, status, compact outcome) per outcome. Returns
  // -1 (no such search), STALE_VOCABULARY, or each outcome's seq, 0 for a platform stored
  // already. A search begun by an earlier release keeps its \`seen\` hash (platform id → seq).
  usAddOutcomes: {
    numberOfKeys: 6,
    lua: `
      if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
      ${checkGeneration(5, 1)}
      local legacy = redis.call('TYPE', KEYS[2]).ok == 'hash'
      -- The seqs up to the page's last are packed in it, off the list's front.
      local packed = tonumber(redis.call('HGET', KEYS[6], 'last') or '0')
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
          local before = redis.call('RPUSH', KEYS[3], unpack(rows)) - #rows
          if before == 0 then first = true end
          seq = packed + before
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
  // KEYS: search, outcomes, counts, vocab, page. ARGV: vocabulary generation, seq of the outcome
  // replaced (a list entry, not packed), its bytes as read, its status, the new status, the new
  // compact outcome. Returns -1 (no such search), STALE_VOCABULARY, 0 (that entry changed or was
  // packed since it was read: read again), or the new outcome's seq. The replaced entry is emptied
  // in place, so every seq keeps its index.
  usReplaceOutcome: {
    numberOfKeys: 5,
    lua: `
      if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
      ${checkGeneration(4, 1)}
      local packed = tonumber(redis.call('HGET', KEYS[5], 'last') or '0')
      local index = tonumber(ARGV[2]) - 1 - packed
      if index < 0 or redis.call('LINDEX', KEYS[2], index) ~= ARGV[3] then return 0 end
      redis.call('LSET', KEYS[2], index, '')
      local seq = packed + redis.call('RPUSH', KEYS[2], ARGV[6])
      redis.call('HINCRBY', KEYS[3], ARGV[4], -1)
      redis.call('HINCRBY', KEYS[3], ARGV[5], 1)
      return seq`,
  },
  // KEYS: search, outcomes, page. ARGV: the page's last seq as read, the list's length as read,
  // the new page's last seq, body and seqs ('' for 1, 2, 3...). Writes the page and takes the
  // entries it holds off the list, unless either changed since they were read (returns 0: they
  // stay as they are, and read the same).
  usPackOutcomes: {
    numberOfKeys: 3,
    lua: `
      if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
      if (redis.call('HGET', KEYS[3], 'last') or '0') ~= ARGV[1] then return 0 end
      if redis.call('LLEN', KEYS[2]) ~= tonumber(ARGV[2]) then return 0 end
      redis.call('DEL', KEYS[3])
      redis.call('HSET', KEYS[3], 'last', ARGV[3], 'body', ARGV[4])
      if ARGV[5] ~= '' then redis.call('HSET', KEYS[3], 'seqs', ARGV[5]) end
      redis.call('LTRIM', KEYS[2], tonumber(ARGV[2]), -1)
      local ttl = redis.call('PTTL', KEYS[1])
      if ttl > 0 then redis.call('PEXPIRE', KEYS[3], ttl) end
      return 1`,
  },
  // KEYS: search, outcomes, page. ARGV: the page's last seq as read, then its entries for seqs
  // 1..last in order ('' for a gap). Puts them back at the list's front and drops the page, unless
  // the page changed since it was read (returns 0). Rare: an outcome replaced after the search ended.
  usUnpackOutcomes: {
    numberOfKeys: 3,
    lua: `
      if redis.call('HGET', KEYS[3], 'last') ~= ARGV[1] then return 0 end
      local existed = redis.call('EXISTS', KEYS[2]) == 1
      -- LPUSH puts its values at the front one by one: each chunk is given last entry first.
      local CHUNK = 1000
      local i = #ARGV
      while i >= 2 do
        local lo = math.max(2, i - CHUNK + 1)
        local values = {}
        for j = i, lo, -1 do values[#values + 1] = ARGV[j] end
        redis.call('LPUSH', KEYS[2], unpack(values))
        i = lo - 1
      end
      redis.call('DEL', KEYS[3])
      local ttl = redis.call('PTTL', KEYS[1])
      if not existed and ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
      return 1`,
  },
  // KEYS: search, outcomes, page, vocab. ARGV: afterSeq. Returns nil (no such search), or the
  // username, the vocabulary's generation, the page's last seq, [body, seqs] of the page when it
  // holds seqs after afterSeq (else empty), and the list's entries after afterSeq: one moment's.
  usReadOutcomes: {
    numberOfKeys: 4,
    lua: `
      local username = redis.call('HGET', KEYS[1], 'username')
      if not username then return false end
      local packed = tonumber(redis.call('HGET', KEYS[3], 'last') or '0')
      local after = tonumber(ARGV[1])
      local page = {}
      if packed > after then page = redis.call('HMGET', KEYS[3], 'body', 'seqs') end
      local rows = redis.call('LRANGE', KEYS[2], math.max(0, after - packed), -1)
      return {username, redis.call('HGET', KEYS[4], '0'), packed, page, rows}`,
  },
  // KEYS: the username's cache rows. ARGV: row, ms to keep it, rows kept at most. The key lives
  // as long as its longest-lived row.
  usAddCacheRow: {
    numberOfKeys: 1,
    lua: `
      redis.call('RPUSH', KEYS[1], ARGV[1])
      redis.call('LTRIM', KEYS[1], -tonumber(ARGV[3]), -1)
      if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
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
type Scripted = Redis &
  Record<ScriptName, (...args: (string | number | Buffer)[]) => Promise<number>> & {
    usReadOutcomesBuffer(...args: (string | number)[]): Promise<ReadReply | null>;
  };

/** What usReadOutcomes answers, as buffers: username, generation, page's last seq, [body, seqs], rows. */
type ReadReply = [Buffer, Buffer | null, number, [Buffer | null, Buffer | null] | [], Buffer[]];

/** A search's page as read: seqs up to `last`, the outcomes of those not replaced in `body`. */
interface PageRead {
  readonly last: number;
  readonly seqs: Buffer | null;
  readonly body: Buffer | null;
}

export class RedisStore implements Store {
  readonly #redis: Scripted;
  readonly #ownsClient: boolean;
  readonly #prefix: string;
  readonly #retentionMs: number;
  readonly #now: () => number;
  readonly #vocabulary: RedisVocabulary;
  readonly #cache: OutcomeCache;
  #closed = false;
  readonly watchlists: RedisWatchlists;
  readonly siteLimits: SiteLimitStore;
  readonly transportMemory: TransportMemoryStore;

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
    this.#cache = recordCache(this, this);
    this.watchlists = new RedisWatchlists(client, this.#prefix);
    this.siteLimits = siteLimitStore(new RedisSiteFacts(client, this.#prefix, SITE_LIMITS));
    this.transportMemory = transportMemoryStore(new RedisSiteFacts(client, this.#prefix, TRANSPORT_MEMORY));
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
      page: this.#key('page', id),
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
          k.page,
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
      if (patch.state !== undefined && isFinished(patch.state)) await this.#pack(id);
    });
  }

  /**
   * Packs a finished search's list entries into its page (with the page's outcomes, if it has
   * one): read, compressed off the event loop, then written by one script that first checks
   * nothing was added, replaced or packed meanwhile (else it leaves them: they read the same).
   */
  async #pack(id: string): Promise<void> {
    const k = this.#searchKeys(id);
    const results = await this.#redis
      .multi()
      .hmgetBuffer(k.page, 'last', 'seqs', 'body')
      .lrangeBuffer(k.outcomes, 0, -1)
      .exec();
    const [pageFields, rows] = valuesOf(results) as [(Buffer | null)[], Buffer[]];
    if (rows.length === 0) return;
    const page = pageOf(pageFields);
    const entries = pageEntries(page);
    for (const [i, row] of rows.entries())
      if (row.length > 0) entries.push({ seq: page.last + i + 1, bytes: row });
    const body = await encodeCompactPage(entries.map((e) => e.bytes));
    const seqs = encodePageSeqs(entries.map((e) => e.seq));
    await this.#redis.usPackOutcomes(
      k.search,
      k.outcomes,
      k.page,
      String(page.last),
      rows.length,
      page.last + rows.length,
      body,
      seqs === null ? '' : Buffer.from(seqs),
    );
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
          k.page,
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
          .hmgetBuffer(k.page, 'last', 'seqs', 'body')
          .exec();
        const [username, rows, generation, pageFields] = valuesOf(results) as [
          string | null,
          Buffer[],
          string | null,
          (Buffer | null)[],
        ];
        if (username === null) throw notFound();
        const page = pageOf(pageFields);
        const entries = [...pageEntries(page), ...listEntries(rows, page.last)];
        const stored = await this.#storedOutcomes(entries, username, generation, undefined);
        const old = stored.find((s) => s.outcome.platformId === outcome.platformId);
        if (!old) return undefined;
        if (old.seq <= page.last) {
          // Packed: its page goes back to the list first (rare: a check again after the search ended).
          const unpacked: Buffer[] = Array.from({ length: page.last }, () => Buffer.alloc(0));
          for (const entry of entries) if (entry.seq <= page.last) unpacked[entry.seq - 1] = entry.bytes;
          await this.#redis.usUnpackOutcomes(k.search, k.outcomes, k.page, String(page.last), ...unpacked);
          continue;
        }
        const encoded = await this.#vocabulary.encode([outcome], username);
        const seq = await this.#redis.usReplaceOutcome(
          k.search,
          k.outcomes,
          k.counts,
          this.#vocabulary.vocabKey,
          k.page,
          encoded.generation,
          old.seq,
          rows[old.seq - page.last - 1]!,
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
      const k = this.#searchKeys(searchId);
      const reply = await this.#redis.usReadOutcomesBuffer(
        k.search,
        k.outcomes,
        k.page,
        this.#vocabulary.vocabKey,
        afterSeq,
      );
      if (reply === null) return [];
      const [username, generation, last, [body = null, seqs = null], rows] = reply;
      const entries = [
        ...pageEntries({ last, seqs, body }).filter((e) => e.seq > afterSeq),
        ...listEntries(rows, last + Math.max(0, afterSeq - last)),
      ];
      return this.#storedOutcomes(
        entries,
        username.toString(),
        generation?.toString() ?? null,
        options.statuses,
      );
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
        .hmgetBuffer(k.page, 'last', 'seqs', 'body')
        .exec();
      const [row, counts, rows, generation, pageFields] = valuesOf(results) as [
        Record<string, string>,
        Record<string, string>,
        Buffer[],
        string | null,
        (Buffer | null)[],
      ];
      const search = await this.#toSearch(row, generation);
      if (!search) return undefined;
      const page = pageOf(pageFields);
      const entries = [...pageEntries(page), ...listEntries(rows, page.last)];
      return {
        search,
        progress: progressOfHash(counts),
        outcomes: await this.#storedOutcomes(entries, search.username, generation, options.statuses),
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
          pipeline.unlink(k.search, k.outcomes, k.seen, k.counts, k.page);
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

  /** Each row after its expiry as a varint, so a read skips expired rows without decoding them. */
  addCacheRow(username: string, row: Uint8Array, expiresAt: number): Promise<void> {
    return this.#guard(async () => {
      const ttl = Math.max(0, Math.ceil(expiresAt - this.#now())) + REDIS_CACHE_GRACE_MS;
      await this.#redis.usAddCacheRow(
        this.#cacheKey(username),
        Buffer.concat([encodeVarints([Math.max(0, Math.round(expiresAt))]), row]),
        ttl,
        CACHE_ROWS_KEPT,
      );
    });
  }

  cacheRowsOf(username: string, now: number): Promise<Uint8Array[]> {
    return this.#guard(async () => {
      const rows: Uint8Array[] = [];
      for (const raw of await this.#redis.lrangeBuffer(this.#cacheKey(username), 0, -1)) {
        // The expiry (a varint: its last byte is under 0x80), then the row.
        const end = raw.findIndex((b) => b < 0x80) + 1;
        if (end === 0) continue;
        const [expiresAt] = decodeVarints(raw.subarray(0, end));
        if (now < expiresAt!) rows.push(raw.subarray(end));
      }
      return rows;
    });
  }

  #cacheKey(username: string): string {
    // Usernames are case-sensitive and may hold any character; the encoding keeps them apart.
    return this.#key('cache', encodeURIComponent(username));
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

  /** The outcomes of entries in seq order (page and list), only the given statuses when given. */
  async #storedOutcomes(
    entries: readonly Entry[],
    username: string,
    generation: string | null,
    only: readonly OutcomeStatus[] | undefined,
  ): Promise<StoredOutcome[]> {
    this.#vocabulary.observe(generation);
    const outcomes = await this.#vocabulary.decode(
      entries.map((e) => e.bytes),
      username,
    );
    const statuses = only && new Set(only);
    const listed: StoredOutcome[] = [];
    for (const [i, outcome] of outcomes.entries()) {
      if (!statuses || statuses.has(outcome.status)) listed.push({ seq: entries[i]!.seq, outcome });
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

/** A stored outcome's compact bytes and its seq. */
interface Entry {
  readonly seq: number;
  readonly bytes: Buffer;
}

/** A page from HMGET last, seqs, body: no page reads as one of no seqs. */
function pageOf([last, seqs, body]: readonly (Buffer | null | undefined)[]): PageRead {
  return { last: last ? Number(last.toString()) : 0, seqs: seqs ?? null, body: body ?? null };
}

/** The outcomes a page holds, in seq order. */
function pageEntries(page: PageRead): Entry[] {
  if (page.body === null) return [];
  const seqs = pageSeqs(page.seqs, page.last);
  return decodeCompactPage(page.body).map((bytes, i) => ({ seq: seqs[i]!, bytes: Buffer.from(bytes) }));
}

/**
 * List entries read from the one of seq `before` + 1 on. An empty entry is an outcome replaced
 * by a later answer: it keeps its place, unlisted.
 */
function listEntries(rows: readonly Buffer[], before: number): Entry[] {
  const entries: Entry[] = [];
  for (const [i, bytes] of rows.entries()) if (bytes.length > 0) entries.push({ seq: before + i + 1, bytes });
  return entries;
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
