/**
 * Case 9: what a search costs the store. Real outcomes (the built-in catalogue
 * against the simulated web, zero latency) are stored by the search job itself
 * (`runSearchJob`: outcomes in batches, the outcome cache, platform statistics)
 * in each backend, then measured: SQLite, the file's bytes per search; Redis,
 * MEMORY USAGE of each search's keys and of the cache entries it wrote;
 * PostgreSQL (the store of record with DATABASE_URL, in a schema of this run's
 * own, dropped after), the main forks (pg_relation_size) of `searches` and `outcome_pages`
 * per search, and of its own `outcome_cache` (what it keeps without Redis; with
 * Redis, as cluster mode, the cache is in Redis: each entry goes to both). A backend that does
 * not answer gets a row saying so, not a failed case.
 */

import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import type { Engine } from '../../src/engine/engine.js';
import type { Outcome } from '../../src/engine/verdict/outcome.js';
import { LocalEventHub } from '../../src/runner/events.js';
import { runSearchJob, searchJobDeps } from '../../src/runner/search-job.js';
import { createStore } from '../../src/store/create-store.js';
import type { CacheRows } from '../../src/store/roles/outcome-cache.js';
import { splitStore } from '../../src/store/split-store.js';
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

/** What a search of the whole selection adds to a store, its outcome-cache rows included: at most 60 KB. */
export const GROWTH_BYTES_TARGET = 60_000;

/** Where case 9 finds PostgreSQL: DATABASE_URL, else the local test database (trust auth). */
export function benchDatabaseUrl(env: NodeJS.ProcessEnv = process.env): string {
  return env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
}

/**
 * Measured by this case before compact outcomes (bench/results/history.md), 8 searches of
 * 991 platforms: the figures printed beside today's.
 */
const BEFORE: Readonly<Record<Backend, { kept: number; cache: number; total: number } | undefined>> = {
  sqlite: { kept: 418_304, cache: 471_040, total: 900_096 },
  redis: { kept: 387_763, cache: 501_896, total: 923_170 },
  // PostgreSQL came after compact outcomes: nothing to compare with.
  postgresql: undefined,
};

export type Backend = 'sqlite' | 'redis' | 'postgresql';

export interface StoreSize {
  readonly backend: Backend;
  readonly searches: number;
  readonly outcomes: number;
  /** What a search keeps for the retention period: its record and its outcomes (bytes). */
  readonly kept: number;
  /** The outcome-cache entries it wrote, kept for the cache's time to live (bytes); null: not measured. */
  readonly cache: number | null;
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
  afterEach?: () => Promise<void>,
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
    await afterEach?.();
    ids.push(id);
  }
  return ids;
}

/** Tables and indexes of what a search keeps, and of the outcome cache; every other one is shared. */
const SQLITE_KEPT =
  /^(searches|outcomes|outcome_pages|swept|sqlite_autoindex_(searches|outcomes)_\d+|searches_.*)$/;
const SQLITE_CACHE = /^(outcome_cache|outcome_cache_.*|sqlite_autoindex_outcome_cache_\d+)$/;

async function measureSqlite(
  ctx: BenchContext,
  usernames: readonly string[],
  outcomes: Outcome[][],
): Promise<Omit<StoreSize, 'backend' | 'searches' | 'outcomes' | 'statuses'>> {
  const empty = join(ctx.workDir, 'store-size-empty.db');
  await createStore({ kind: 'sqlite', path: empty }).close();
  const emptyPages = pagesByName(empty);
  const path = join(ctx.workDir, 'store-size.db');
  const store = createStore({ kind: 'sqlite', path });
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
  const sweep = await measureSweep(createStore({ kind: 'sqlite', path }), n);
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
  const store = createStore({ kind: 'redis', redis: client, prefix, now: Date.now });
  try {
    const ids = await storeSearches(ctx, store, usernames, outcomes, 'redis');
    const searchKeys = new Set(
      ids.flatMap((id) =>
        ['search', 'outcomes', 'page', 'seen', 'counts'].map((kind) => `${prefix}:${kind}:${id}`),
      ),
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

/** Why PostgreSQL cannot be measured at `url` (it does not answer), or undefined when it answers. */
async function postgresUnanswered(url: string, timeoutMs = 3_000): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    return (error as Error).message || String(error);
  } finally {
    await client.end().catch(() => {});
  }
}

/** What a search keeps in PostgreSQL: its row and its outcome pages; every other table is shared or not a search's. */
const POSTGRES_KEPT = ['searches', 'outcome_pages'];

/**
 * Bytes of every table of `schema` with its indexes and TOAST: the main forks only
 * (`pg_relation_size`), or everything (`pg_total_relation_size`, which adds each relation's
 * free-space map and visibility map: a few pages a table, made once it passes a few pages).
 */
async function tableBytes(
  client: pg.Client,
  schema: string,
  forks: 'main' | 'all' = 'main',
): Promise<Map<string, number>> {
  const main = (oid: string) => `COALESCE(pg_relation_size(${oid}, 'main'), 0)`;
  const indexes = (table: string) =>
    `COALESCE((SELECT SUM(pg_relation_size(i.indexrelid, 'main')) FROM pg_index i WHERE i.indrelid = ${table}), 0)`;
  const { rows } = await client.query<{ relname: string; bytes: string }>(
    `SELECT c.relname, ${
      forks === 'all'
        ? 'pg_total_relation_size(c.oid)'
        : `${main('c.oid')} + ${indexes('c.oid')} + CASE WHEN c.reltoastrelid = 0 THEN 0 ELSE ${main('c.reltoastrelid')} + ${indexes('c.reltoastrelid')} END`
    } AS bytes FROM pg_class c
     JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = $1 AND c.relkind = 'r'`,
    [schema],
  );
  return new Map(rows.map((r) => [r.relname, Number(r.bytes)]));
}

/**
 * The store of record of cluster mode with DATABASE_URL, in a schema of its own: the searches
 * are written through PostgresStore (the outcome cache to Redis as in that mode, under a prefix
 * of its own, when Redis answers), with a plain VACUUM after each search as autovacuum does on
 * a busy database (the per-batch pages merged away leave space the next search reuses).
 */
async function measurePostgres(
  ctx: BenchContext,
  usernames: readonly string[],
  outcomes: Outcome[][],
  withRedis: boolean,
): Promise<Omit<StoreSize, 'backend' | 'searches' | 'outcomes' | 'statuses'>> {
  const url = benchDatabaseUrl();
  const schema = `userscout_bench_size_${process.pid}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  admin.on('error', () => {});
  await admin.connect();
  const redisUrl = benchRedisUrl();
  const prefix = `userscout-bench-store-pg-${process.pid}`;
  const redis = withRedis ? new Redis(redisUrl, { maxRetriesPerRequest: 1 }) : undefined;
  // Statements get a minute: the machine may be loaded, and this is a measurement, not a service.
  const records = createStore({ kind: 'postgres', url, schema, poolSize: 4, statementTimeoutMs: 60_000 });
  const store = redis
    ? splitStore(
        records,
        alsoCachingIn(createStore({ kind: 'redis', redis, prefix, now: Date.now }), records),
      )
    : records;
  try {
    // PostgreSQL migrates its schema before its first query: the empty tables measured next.
    if (!(await records.ping())) throw new Error(`PostgreSQL at ${url} does not answer`);
    const empty = await tableBytes(admin, schema);
    let first: Map<string, number> | undefined;
    const vacuum = async () => {
      await admin.query(`VACUUM ${POSTGRES_KEPT.map((t) => `${schema}.${t}`).join(', ')}`);
      first ??= await tableBytes(admin, schema);
    };
    const ids = await storeSearches(ctx, store, usernames, outcomes, 'postgres', vacuum);
    const full = await tableBytes(admin, schema);
    const withForks = await tableBytes(admin, schema, 'all');
    ctx.log(
      `case 9: PostgreSQL bytes of searches, outcome_pages and outcome_cache, main forks / with free-space and visibility maps: ${[...POSTGRES_KEPT, 'outcome_cache'].map((name) => `${name} ${full.get(name)} / ${withForks.get(name)}`).join(', ')}`,
    );
    const grown = (name: string) => (full.get(name) ?? 0) - (empty.get(name) ?? 0);
    // What each search after the first adds: the first pays once for what every later one
    // reuses (each index's first pages, the space its batch pages leave for the next search's).
    const added = (name: string) => (full.get(name) ?? 0) - (first?.get(name) ?? 0);
    ctx.log(
      `case 9: PostgreSQL bytes per search by table (indexes and TOAST included): ${[...full]
        .filter(([, bytes]) => bytes > 0)
        .sort((a, b) => b[1] - a[1])
        .map(([name, bytes]) => `${name} ${Math.round(bytes / ids.length)}`)
        .join(', ')}`,
    );
    const kept = POSTGRES_KEPT.reduce((n, name) => n + added(name), 0) / Math.max(1, ids.length - 1);
    const keptFirst = POSTGRES_KEPT.reduce(
      (n, name) => n + (first?.get(name) ?? 0) - (empty.get(name) ?? 0),
      0,
    );
    ctx.log(`case 9: PostgreSQL: the first search grew searches and outcome_pages by ${keptFirst} bytes`);
    // PostgreSQL's own outcome cache (DATABASE_URL without Redis), written alongside Redis's,
    // grown per search after the first as the kept bytes are.
    const cache = added('outcome_cache') / Math.max(1, ids.length - 1);
    const shared = [...full.keys()]
      .filter((name) => !POSTGRES_KEPT.includes(name) && name !== 'outcome_cache')
      .reduce((n, name) => n + grown(name), 0);
    const sweep = await measureSweep(store, ids.length);
    return {
      ...sweep,
      kept,
      cache,
      shared,
      total: kept + cache + shared / ids.length,
    };
  } finally {
    await store.close().catch(() => {});
    if (redis) {
      await deletePrefix(redisUrl, prefix);
      redis.disconnect();
    }
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => {});
    await admin.end().catch(() => {});
  }
}

/**
 * `cache` as the outcome cache's rows, each row added to `also`'s too: PostgreSQL's, measured
 * as it is without Redis while the run keeps cluster mode's split.
 */
export function alsoCachingIn<S extends CacheRows>(cache: S, also: CacheRows): S {
  return new Proxy(cache, {
    get(target, name) {
      if (name === 'addCacheRow')
        return async (...args: Parameters<CacheRows['addCacheRow']>) => {
          await Promise.all([target.addCacheRow(...args), also.addCacheRow(...args)]);
        };
      const value = Reflect.get(target, name, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * Compressed page bytes per hit and per other outcome (miss, unknown, error, invalid): each
 * search's hits stored as one search and the rest as another, finished (so packed), in SQLite,
 * and the pages' body lengths summed. PostgreSQL keeps the same pages. With the row a search
 * adds, they give a search's bytes for any share of hits.
 */
async function bytesByStatus(
  ctx: BenchContext,
  usernames: readonly string[],
  outcomes: readonly Outcome[][],
): Promise<{ perHit: number; perOther: number; rawPerHit: number; rawPerOther: number }> {
  const path = join(ctx.workDir, 'store-size-by-status.db');
  const store = createStore({ kind: 'sqlite', path });
  // A second connection reads each search's rows before they are packed: their compact bytes alone.
  const reader = openDatabase(path);
  const rowBytes = reader.prepare(
    'SELECT COALESCE(SUM(length(o.outcome)), 0) AS bytes FROM outcomes o JOIN searches s ON s.key = o.search_key WHERE s.id = ?',
  );
  let hits = 0;
  let others = 0;
  let rawHits = 0;
  let rawOthers = 0;
  try {
    for (const [i, username] of usernames.entries()) {
      for (const [part, kept] of [
        ['hits', outcomes[i]!.filter((o) => o.status === 'hit')],
        ['others', outcomes[i]!.filter((o) => o.status !== 'hit')],
      ] as const) {
        const id = `${part}-${i}`;
        await store.createSearch({
          id,
          username,
          state: 'running',
          tier: 'professional',
          client: 'key:bench',
          platformIds: kept.map((o) => o.platformId),
          estimatedSeconds: 10,
          createdAt: Date.now(),
        });
        await store.addOutcomes(id, kept);
        const { bytes } = rowBytes.get(id) as { bytes: number };
        await store.updateSearch(id, { state: 'completed', finishedAt: Date.now() });
        if (part === 'hits') {
          hits += kept.length;
          rawHits += bytes;
        } else {
          others += kept.length;
          rawOthers += bytes;
        }
      }
    }
  } finally {
    reader.close();
    await store.close();
  }
  const db = openDatabase(path);
  try {
    const rows = db
      .prepare(
        'SELECT s.id AS id, length(p.body) AS bytes FROM outcome_pages p JOIN searches s ON s.key = p.search_key',
      )
      .all() as { id: string; bytes: number }[];
    const sum = (prefix: string) =>
      rows.filter((r) => r.id.startsWith(prefix)).reduce((n, r) => n + r.bytes, 0);
    return {
      perHit: sum('hits-') / Math.max(1, hits),
      perOther: sum('others-') / Math.max(1, others),
      rawPerHit: rawHits / Math.max(1, hits),
      rawPerOther: rawOthers / Math.max(1, others),
    };
  } finally {
    db.close();
  }
}

/** A backend's figures, or why it has none (it did not answer). */
export type Measured = StoreSize | { readonly backend: Backend; readonly unanswered: string };

export async function measureStoreSize(ctx: BenchContext): Promise<{
  sizes: Measured[];
  byStatus: { perHit: number; perOther: number; rawPerHit: number; rawPerOther: number; hitShare: number };
}> {
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
  const hitShare = (byStatus.get('hit') ?? 0) / total;
  const perStatus = await bytesByStatus(ctx, usernames, outcomes);
  const sizes: Measured[] = [
    { backend: 'sqlite', ...counts, ...(await measureSqlite(ctx, usernames, outcomes)) },
  ];
  const withRedis = await redisAnswers(benchRedisUrl());
  if (withRedis) {
    sizes.push({ backend: 'redis', ...counts, ...(await measureRedis(ctx, usernames, outcomes)) });
  } else {
    ctx.log('case 9: no Redis answers; its row says so');
    sizes.push({ backend: 'redis', unanswered: `no Redis answers at ${benchRedisUrl()}` });
  }
  const unanswered = await postgresUnanswered(benchDatabaseUrl());
  if (unanswered === undefined) {
    sizes.push({
      backend: 'postgresql',
      ...counts,
      ...(await measurePostgres(ctx, usernames, outcomes, withRedis)),
    });
  } else {
    ctx.log(`case 9: no PostgreSQL answers (${unanswered}); its row says so`);
    sizes.push({
      backend: 'postgresql',
      unanswered: `no PostgreSQL answers at ${benchDatabaseUrl()}: ${unanswered}`,
    });
  }
  return { sizes, byStatus: { ...perStatus, hitShare } };
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

/** The label of a backend's row: a backend that did not answer says so. */
export function rowLabel(m: Measured): string {
  if ('unanswered' in m) return `${m.backend} (not answering)`;
  return m.backend;
}

/** One backend's row: every figure '-' (null) where it was not measured or does not apply. */
export function sizeRow(m: Measured): Row {
  const before = BEFORE[m.backend];
  if ('unanswered' in m) {
    return { label: rowLabel(m), values: Object.fromEntries(COLUMNS.map((c) => [c.key, null])) };
  }
  const platforms = m.outcomes / m.searches;
  return {
    label: rowLabel(m),
    values: {
      searches: m.searches,
      platforms,
      kept: Math.round(m.kept),
      perOutcome: Math.round(m.kept / platforms),
      cache: m.cache === null ? null : Math.round(m.cache),
      sharedKb: Math.round(m.shared / 1000),
      total: Math.round(m.total),
      keptBefore: before?.kept ?? null,
      cacheBefore: before?.cache ?? null,
      totalBefore: before?.total ?? null,
      sweepMs: m.sweepMsPerSearch,
      sweepPauseMs: m.sweepPauseMs,
    },
  };
}

function measured(sizes: readonly Measured[], backend: Backend): StoreSize | undefined {
  const m = sizes.find((s) => s.backend === backend);
  return m && !('unanswered' in m) ? m : undefined;
}

export const storeSizeCase: BenchCase = {
  id: '9',
  title: 'stored bytes per search, each backend',
  sims: () => [['builtin', 'zero']],
  async run(ctx) {
    const { sizes, byStatus } = await measureStoreSize(ctx);
    const sqlite = measured(sizes, 'sqlite')!;
    const growth = (m: StoreSize) => m.kept + (m.cache ?? 0);
    return {
      id: this.id,
      title: this.title,
      columns: COLUMNS,
      rows: sizes.map(sizeRow),
      targets: (['sqlite', 'postgresql', 'redis'] as const).map((backend) => {
        const m = measured(sizes, backend);
        return {
          text: `${backend}: <= ${GROWTH_BYTES_TARGET / 1000} KB a search, cache included (${m ? `${Math.round(growth(m) / 1000)} KB: kept ${Math.round(m.kept / 1000)} + cache ${Math.round((m.cache ?? 0) / 1000)}, ${Math.round(m.outcomes / m.searches)} platforms` : 'not measured'})`,
          value: m ? growth(m) : null,
          met: m ? growth(m) <= GROWTH_BYTES_TARGET : null,
        };
      }),
      notes: [
        `outcomes of real searches (built-in catalogue, simulated web, zero latency; ${sqlite.statuses}), stored by the search job: outcomes, outcome cache, platform statistics`,
        'kept: the search and its outcomes, kept for the retention period (7 days by default); cache: the outcome-cache entries it wrote, kept an hour (misses) to a day (hits); shared: vocabulary and platform statistics, bounded by the catalogue',
        'SQLite: page bytes by table and index (dbstat), all = growth of the file (WAL checkpointed) per search; Redis: MEMORY USAGE (SAMPLES 0) of the keys',
        'PostgreSQL (DATABASE_URL, a schema of its own, dropped after): pg_relation_size of the main forks (table, indexes, TOAST; the free-space and visibility maps, a few pages a table made once, left out: the log gives both) of searches and outcome_pages, grown per search after the first (which pays once for the first pages of each index and the room its batch pages leave, reused by every later search), a plain VACUUM after each search as autovacuum does; cache: its own outcome_cache grown per search after the first, what DATABASE_URL without Redis keeps (each entry written there and to Redis, as cluster mode keeps it: the redis row); all: kept + that cache + shared; shared: the other tables (platform statistics)',
        `targets: kept + cache per search (shared bytes are bounded by the catalogue, not by the searches), measured at this run's share of hits (${Math.round(byStatus.hitShare * 100)}%, more than a search of a name that is not everywhere finds), so met there, met at any smaller share; cache: rows referring to the search's stored outcomes (platform, check time, expiry), not copies`,
        `compressed page bytes (SQLite, and PostgreSQL's pages alike): ${Math.round(byStatus.perHit)} per hit, ${Math.round(byStatus.perOther)} per miss or other outcome (each search's hits packed apart from the rest); a search's bytes at a share h of hits ~ platforms x (h x ${Math.round(byStatus.perHit)} + (1 - h) x ${Math.round(byStatus.perOther)}) + its row; uncompressed (an outcome alone, as Redis keeps each, before its per-entry overhead; SQLite's rows while a search runs): ${Math.round(byStatus.rawPerHit)} per hit, ${Math.round(byStatus.rawPerOther)} per other outcome`,
        ...sizes.flatMap((s) => ('unanswered' in s ? [`${s.backend}: not measured, ${s.unanswered}`] : [])),
        "sweep: every search deleted as after the retention period (SQLite: 500 rows a transaction; PostgreSQL: 500 searches a statement); longest pause: the event loop's longest wait meanwhile",
      ],
      settings: {},
    };
  },
};
