/**
 * Case 9: what a search costs the store. Real outcomes (the built-in catalogue
 * against the simulated web, zero latency) are stored by the search job itself
 * (`runSearchJob`: outcomes in batches, the outcome cache, platform statistics)
 * in each backend, then measured: SQLite, the file's bytes per search; Redis,
 * MEMORY USAGE of each search's keys and of the cache entries it wrote.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { loadConfig } from '../../src/config.js';
import type { Engine } from '../../src/engine/engine.js';
import type { Outcome } from '../../src/engine/outcome.js';
import { LocalEventHub } from '../../src/runner/events.js';
import { runSearchJob, searchJobDeps } from '../../src/runner/search-job.js';
import { RedisStore } from '../../src/store/redis.js';
import { SqliteStore } from '../../src/store/sqlite.js';
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
const BEFORE = { sqlite: 913_408, redisSearch: 388_792, redisCache: 502_960 } as const;

interface StoreSize {
  readonly backend: 'sqlite' | 'redis';
  readonly searches: number;
  readonly outcomes: number;
  /** Bytes each search adds: SQLite, the file; Redis, its own keys. */
  readonly perSearch: number;
  /** Redis: the outcome-cache entries a search wrote (SQLite: included in perSearch). */
  readonly cachePerSearch: number | null;
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

async function measureSqlite(ctx: BenchContext, usernames: readonly string[], outcomes: Outcome[][]) {
  const empty = join(ctx.workDir, 'store-size-empty.db');
  await new SqliteStore(empty).close();
  const path = join(ctx.workDir, 'store-size.db');
  const store = new SqliteStore(path);
  await storeSearches(ctx, store, usernames, outcomes, 'sqlite');
  // Closing checkpoints the write-ahead log into the file.
  await store.close();
  return (statSync(path).size - statSync(empty).size) / usernames.length;
}

async function memoryUsage(client: Redis, keys: readonly string[]): Promise<number> {
  let bytes = 0;
  for (const key of keys) bytes += Number((await client.call('MEMORY', 'USAGE', key, 'SAMPLES', '0')) ?? 0);
  return bytes;
}

async function measureRedis(usernames: readonly string[], outcomes: Outcome[][], ctx: BenchContext) {
  const url = benchRedisUrl();
  const prefix = `userscout-bench-store-${process.pid}`;
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  const store = new RedisStore({ redis: client, prefix, now: Date.now });
  try {
    const ids = await storeSearches(ctx, store, usernames, outcomes, 'redis');
    const searchKeys = ids.flatMap((id) =>
      ['search', 'outcomes', 'seen', 'counts'].map((kind) => `${prefix}:${kind}:${id}`),
    );
    const cacheKeys: string[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}:cache:*`, 'COUNT', 1000);
      cacheKeys.push(...keys);
      cursor = next;
    } while (cursor !== '0');
    return {
      perSearch: (await memoryUsage(client, searchKeys)) / ids.length,
      cachePerSearch: (await memoryUsage(client, cacheKeys)) / ids.length,
    };
  } finally {
    await store.close();
    await deletePrefix(url, prefix);
    client.disconnect();
  }
}

export async function measureStoreSize(ctx: BenchContext): Promise<StoreSize[]> {
  const usernames = ACCOUNT_POOL.slice(0, ctx.quick ? SEARCHES_QUICK : SEARCHES_FULL);
  const outcomes = await realOutcomes(ctx, usernames);
  const total = outcomes.reduce((n, list) => n + list.length, 0);
  ctx.log(`case 9: storing ${usernames.length} searches of ${outcomes[0]?.length} platforms`);
  const sizes: StoreSize[] = [
    {
      backend: 'sqlite',
      searches: usernames.length,
      outcomes: total,
      perSearch: await measureSqlite(ctx, usernames, outcomes),
      cachePerSearch: null,
    },
  ];
  if (await redisAnswers(benchRedisUrl())) {
    const redis = await measureRedis(usernames, outcomes, ctx);
    sizes.push({ backend: 'redis', searches: usernames.length, outcomes: total, ...redis });
  } else ctx.log('case 9: no Redis answers; its row is left out');
  return sizes;
}

const COLUMNS: readonly Column[] = [
  { key: 'searches', title: 'searches', better: 'none' },
  { key: 'platforms', title: 'platforms', better: 'none' },
  { key: 'bytesPerSearch', title: 'bytes/search', better: 'lower' },
  { key: 'bytesPerOutcome', title: 'bytes/outcome', better: 'lower' },
  { key: 'cachePerSearch', title: 'cache bytes/search', better: 'lower' },
  { key: 'before', title: 'bytes/search at 99a65bb', better: 'none' },
  { key: 'cacheBefore', title: 'cache at 99a65bb', better: 'none' },
];

function sizeRow(s: StoreSize): Row {
  const platforms = s.outcomes / s.searches;
  return {
    label: s.backend,
    values: {
      searches: s.searches,
      platforms,
      bytesPerSearch: Math.round(s.perSearch),
      bytesPerOutcome: Math.round(s.perSearch / platforms),
      cachePerSearch: s.cachePerSearch === null ? null : Math.round(s.cachePerSearch),
      before: s.backend === 'sqlite' ? BEFORE.sqlite : BEFORE.redisSearch,
      cacheBefore: s.backend === 'sqlite' ? null : BEFORE.redisCache,
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
          text: `SQLite <= ${SQLITE_BYTES_TARGET / 1000} KB per search (${Math.round(sqlite.perSearch / 1000)} KB)`,
          value: sqlite.perSearch,
          met: sqlite.perSearch <= SQLITE_BYTES_TARGET,
        },
      ],
      notes: [
        'outcomes of real searches (built-in catalogue, simulated web, zero latency), stored by the search job: outcomes, outcome cache, platform statistics',
        "SQLite: growth of the database file (WAL checkpointed) per search, outcome cache included; Redis: MEMORY USAGE (SAMPLES 0) of each search's keys, and of the cache entries apart",
      ],
      settings: {},
    };
  },
};
