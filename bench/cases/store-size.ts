/**
 * Case 9: what a search costs the store. Real outcomes (the built-in catalogue
 * against the simulated web, zero latency) are stored by the search job itself
 * (`runSearchJob`: outcomes in batches, the outcome cache, platform statistics)
 * in each backend, then measured: SQLite, the file's bytes per search; Redis,
 * MEMORY USAGE of each search's keys and of the cache entries it wrote.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { loadConfig } from '../../src/config.js';
import type { Engine } from '../../src/engine/engine.js';
import type { Outcome } from '../../src/engine/outcome.js';
import { LocalEventHub } from '../../src/runner/events.js';
import { runSearchJob, searchJobDeps } from '../../src/runner/search-job.js';
import { RedisStore } from '../../src/store/redis.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { openDatabase } from '../../src/store/sqlite-driver.js';
import type { Store } from '../../src/store/store.js';
import { Child } from '../child.js';
import { benchRedisUrl, deletePrefix, redisAnswers } from '../cluster.js';
import type { BenchCase, BenchContext } from '../context.js';
import type { EngineInput, EngineReady } from '../engine-child.js';
import { ACCOUNT_POOL, loadPlatformSet } from '../platform-set.js';
import type { Column, Row } from '../results.js';

const SEARCHES_FULL = 8;
const SEARCHES_QUICK = 4;

/** Issue 16: a 991-platform search in at most 60 KB of SQLite. */
export const SQLITE_BYTES_TARGET = 60_000;

/**
 * Measured by this case at commit 99a65bb (before compact outcomes), 8 searches of
 * 991 platforms: the figures printed beside today's.
 */
const BEFORE = {
  sqlite: { kept: 418_304, cache: 471_040, total: 900_096 },
  redis: { kept: 387_763, cache: 501_896, total: 923_170 },
} as const;

interface StoreSize {
  readonly backend: 'sqlite' | 'redis';
  readonly searches: number;
  readonly outcomes: number;
  /** What a search keeps for the retention period: its record and its outcomes (bytes). */
  readonly kept: number;
  /** The outcome-cache entries it wrote, kept for the cache's time to live (bytes). */
  readonly cache: number;
  /** Bytes all searches share, whatever their number (vocabulary, platform statistics), in all. */
  readonly shared: number;
  /** Everything the store grew by, divided by the searches (SQLite: the file). */
  readonly total: number;
  /** Sweeping them all after the retention period: ms per search, and the longest the event loop waited (ms). */
  readonly sweepMsPerSearch: number;
  readonly sweepPauseMs: number;
  /** Share of the outcomes of each status, e.g. 'miss 55%, hit 40%'. */
  readonly statuses: string;
}

/** Outcomes of real searches, one list per username. */
async function realOutcomes(ctx: BenchContext, usernames: readonly string[]): Promise<Outcome[][]> {
  return ctx.memo(`outcomes:${usernames.length}`, async () => {
    const sim = await ctx.sim('builtin', 'zero');
    const engine = await Child.start<EngineReady>('./engine-child.ts', {
      set: 'builtin',
      seed: ctx.seed,
      connectTo: sim.connectTo,
      caFile: sim.caFile,
      overrides: {},
    } satisfies EngineInput);
    try {
      const all: Outcome[][] = [];
      for (const username of usernames) all.push(await engine.request<Outcome[]>('outcomes', username));
      return all;
    } finally {
      await engine.stop();
    }
  });
}

/** Stores each search as the runner does: the search job, with an engine that gives back recorded outcomes. */
async function storeSearches(
  ctx: BenchContext,
  store: Store,
  usernames: readonly string[],
  outcomes: readonly Outcome[][],
  tag: string,
): Promise<string[]> {
  const set = loadPlatformSet('builtin', ctx.seed);
  const ids: string[] = [];
  for (const [i, username] of usernames.entries()) {
    const recorded = new Map(outcomes[i]!.map((o) => [o.platformId, o]));
    const replay = {
      async *search(_username: string, platforms: readonly { id: string }[]) {
        for (const p of platforms) {
          const outcome = recorded.get(p.id);
          if (outcome) yield outcome;
        }
      },
    } as unknown as Engine;
    const deps = searchJobDeps(loadConfig({}, {}), {
      engine: replay,
      store,
      events: new LocalEventHub(),
      catalogue: set.catalogue,
      now: Date.now,
    });
    const id = `${tag}-${i}`;
    const search = {
      id,
      username,
      state: 'queued' as const,
      tier: 'professional' as const,
      client: 'key:bench',
      platformIds: set.searched.map((p) => p.id),
      estimatedSeconds: 10,
      createdAt: Date.now(),
    };
    await store.createSearch(search);
    await runSearchJob(search, deps, new AbortController().signal);
    ids.push(id);
  }
  return ids;
}

/** Tables and indexes of what a search keeps, and of the outcome cache; every other one is shared. */
const SQLITE_KEPT = /^(searches|outcomes|swept|sqlite_autoindex_(searches|outcomes)_\d+|searches_.*)$/;
const SQLITE_CACHE = /^(outcome_cache|outcome_cache_.*|sqlite_autoindex_outcome_cache_\d+)$/;

async function measureSqlite(
  ctx: BenchContext,
  usernames: readonly string[],
  outcomes: Outcome[][],
): Promise<Omit<StoreSize, 'backend' | 'searches' | 'outcomes' | 'statuses'>> {
  const empty = join(ctx.workDir, 'store-size-empty.db');
  await new SqliteStore(empty).close();
  const emptyPages = pagesByName(empty);
  const path = join(ctx.workDir, 'store-size.db');
  const store = new SqliteStore(path);
  await storeSearches(ctx, store, usernames, outcomes, 'sqlite');
  // Closing checkpoints the write-ahead log into the file.
  await store.close();
  const pages = pagesByName(path);
  const grown = (match: (name: string) => boolean) =>
    pages.filter((p) => match(p.name)).reduce((n, p) => n + p.bytes - (emptyPages.get(p.name) ?? 0), 0);
  ctx.log(
    `case 9: SQLite bytes per search by table and index: ${pages.map((p) => `${p.name} ${Math.round(p.bytes / usernames.length)}`).join(', ')}`,
  );
  const n = usernames.length;
  const sweep = await measureSweep(new SqliteStore(path), n);
  return {
    ...sweep,
    kept: grown((name) => SQLITE_KEPT.test(name)) / n,
    cache: grown((name) => SQLITE_CACHE.test(name)) / n,
    shared: grown((name) => !SQLITE_KEPT.test(name) && !SQLITE_CACHE.test(name)),
    total: (statSync(path).size - statSync(empty).size) / n,
  };
}

/** Sweeps every search stored (as after the retention period), timing it and the event loop meanwhile. */
async function measureSweep(store: Store, searches: number) {
  const loop = monitorEventLoopDelay({ resolution: 1 });
  try {
    loop.enable();
    const started = performance.now();
    const removed = await store.sweepSearches(Date.now() + 1);
    const ms = performance.now() - started;
    loop.disable();
    if (removed !== searches) throw new Error(`the sweep removed ${removed} searches of ${searches}`);
    return { sweepMsPerSearch: ms / searches, sweepPauseMs: loop.max / 1e6 };
  } finally {
    await store.close();
  }
}

/** Bytes of every table and index, from SQLite's dbstat table. */
function pagesByName(
  path: string,
): { name: string; bytes: number }[] & { get(name: string): number | undefined } {
  const db = openDatabase(path);
  try {
    const rows = db
      .prepare('SELECT name, SUM(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC')
      .all() as { name: string; bytes: number }[];
    const byName = new Map(rows.map((r) => [r.name, r.bytes]));
    return Object.assign(rows, { get: (name: string) => byName.get(name) });
  } finally {
    db.close();
  }
}

async function memoryUsage(client: Redis, keys: readonly string[]): Promise<number> {
  let bytes = 0;
  for (const key of keys) bytes += Number((await client.call('MEMORY', 'USAGE', key, 'SAMPLES', '0')) ?? 0);
  return bytes;
}

async function keysMatching(client: Redis, pattern: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    found.push(...keys);
    cursor = next;
  } while (cursor !== '0');
  return found;
}

async function measureRedis(
  ctx: BenchContext,
  usernames: readonly string[],
  outcomes: Outcome[][],
): Promise<Omit<StoreSize, 'backend' | 'searches' | 'outcomes' | 'statuses'>> {
  const url = benchRedisUrl();
  const prefix = `userscout-bench-store-${process.pid}`;
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  const store = new RedisStore({ redis: client, prefix, now: Date.now });
  try {
    const ids = await storeSearches(ctx, store, usernames, outcomes, 'redis');
    const searchKeys = new Set(
      ids.flatMap((id) => ['search', 'outcomes', 'seen', 'counts'].map((kind) => `${prefix}:${kind}:${id}`)),
    );
    const cacheKeys = new Set(await keysMatching(client, `${prefix}:cache:*`));
    const all = await keysMatching(client, `${prefix}:*`);
    const shared = all.filter((key) => !searchKeys.has(key) && !cacheKeys.has(key));
    const kept = await memoryUsage(client, [...searchKeys]);
    const cache = await memoryUsage(client, [...cacheKeys]);
    const sharedBytes = await memoryUsage(client, shared);
    const sweep = await measureSweep(store, ids.length);
    return {
      ...sweep,
      kept: kept / ids.length,
      cache: cache / ids.length,
      shared: sharedBytes,
      total: (kept + cache + sharedBytes) / ids.length,
    };
  } finally {
    await store.close().catch(() => {});
    await deletePrefix(url, prefix);
    client.disconnect();
  }
}

export async function measureStoreSize(ctx: BenchContext): Promise<StoreSize[]> {
  const usernames = ACCOUNT_POOL.slice(0, ctx.quick ? SEARCHES_QUICK : SEARCHES_FULL);
  const outcomes = await realOutcomes(ctx, usernames);
  const total = outcomes.reduce((n, list) => n + list.length, 0);
  ctx.log(`case 9: storing ${usernames.length} searches of ${outcomes[0]?.length} platforms`);
  const byStatus = new Map<string, number>();
  for (const o of outcomes.flat()) byStatus.set(o.status, (byStatus.get(o.status) ?? 0) + 1);
  const statuses = [...byStatus]
    .sort((a, b) => b[1] - a[1])
    .map(([status, n]) => `${status} ${Math.round((n / total) * 100)}%`)
    .join(', ');
  const counts = { searches: usernames.length, outcomes: total, statuses };
  const sizes: StoreSize[] = [
    { backend: 'sqlite', ...counts, ...(await measureSqlite(ctx, usernames, outcomes)) },
  ];
  if (await redisAnswers(benchRedisUrl())) {
    sizes.push({ backend: 'redis', ...counts, ...(await measureRedis(ctx, usernames, outcomes)) });
  } else ctx.log('case 9: no Redis answers; its row is left out');
  return sizes;
}

const COLUMNS: readonly Column[] = [
  { key: 'searches', title: 'searches', better: 'none' },
  { key: 'platforms', title: 'platforms', better: 'none' },
  { key: 'kept', title: 'kept bytes/search', better: 'lower' },
  { key: 'perOutcome', title: 'kept bytes/outcome', better: 'lower' },
  { key: 'cache', title: 'cache bytes/search', better: 'lower' },
  { key: 'sharedKb', title: 'shared KB', better: 'none' },
  { key: 'total', title: 'all bytes/search', better: 'lower' },
  { key: 'keptBefore', title: 'kept at 99a65bb', better: 'none' },
  { key: 'cacheBefore', title: 'cache at 99a65bb', better: 'none' },
  { key: 'totalBefore', title: 'all at 99a65bb', better: 'none' },
  { key: 'sweepMs', title: 'sweep ms/search', better: 'lower', digits: 1 },
  { key: 'sweepPauseMs', title: 'sweep longest pause ms', better: 'lower', digits: 1 },
];

function sizeRow(s: StoreSize): Row {
  const platforms = s.outcomes / s.searches;
  const before = BEFORE[s.backend];
  return {
    label: s.backend,
    values: {
      searches: s.searches,
      platforms,
      kept: Math.round(s.kept),
      perOutcome: Math.round(s.kept / platforms),
      cache: Math.round(s.cache),
      sharedKb: Math.round(s.shared / 1000),
      total: Math.round(s.total),
      keptBefore: before.kept,
      cacheBefore: before.cache,
      totalBefore: before.total,
      sweepMs: s.sweepMsPerSearch,
      sweepPauseMs: s.sweepPauseMs,
    },
  };
}

export const storeSizeCase: BenchCase = {
  id: '9',
  title: 'stored bytes per search, each backend',
  sims: () => [['builtin', 'zero']],
  async run(ctx) {
    const sizes = await measureStoreSize(ctx);
    const sqlite = sizes.find((s) => s.backend === 'sqlite')!;
    return {
      id: this.id,
      title: this.title,
      columns: COLUMNS,
      rows: sizes.map(sizeRow),
      targets: [
        {
          text: `SQLite <= ${SQLITE_BYTES_TARGET / 1000} KB kept per search (${Math.round(sqlite.kept / 1000)} KB)`,
          value: sqlite.kept,
          met: sqlite.kept <= SQLITE_BYTES_TARGET,
        },
      ],
      notes: [
        `outcomes of real searches (built-in catalogue, simulated web, zero latency; ${sqlite.statuses}), stored by the search job: outcomes, outcome cache, platform statistics`,
        'kept: the search and its outcomes, kept for the retention period (7 days by default); cache: the outcome-cache entries it wrote, kept an hour (misses) to a day (hits); shared: vocabulary and platform statistics, bounded by the catalogue',
        'SQLite: page bytes by table and index (dbstat), all = growth of the file (WAL checkpointed) per search; Redis: MEMORY USAGE (SAMPLES 0) of the keys',
        "sweep: every search deleted as after the retention period (SQLite: 500 rows a transaction); longest pause: the event loop's longest wait meanwhile",
      ],
      settings: {},
    };
  },
};
