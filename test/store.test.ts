/**
 * The store contract against every embedded backend, and what only a file
 * can show: the data outlives the process's handle on it.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Outcome } from '../src/engine/verdict/outcome.js';
import { createStore } from '../src/store/create-store.js';
import { RedisStore } from '../src/store/redis.js';
import { splitStore } from '../src/store/split-store.js';
import { SqliteStore } from '../src/store/sqlite.js';
import { openDatabase } from '../src/store/sqlite-driver.js';
import type { SearchRecord, Store } from '../src/store/store.js';
import { TEST_REDIS_URL, uniquePrefix } from './cluster/redis-support.js';
import { describeStoreContract } from './store.contract.js';
import { addOne } from './support/add-one.js';
import { putCached } from './support/cached.js';
import { MemoryStore } from './support/memory-store.js';
import { queuedSearch } from './support/search-job.js';

const T0 = Date.UTC(2025, 0, 15, 12, 0, 0);

/** Alice's search s1 on GitHub and GitLab, running, as these tests store it. */
const aliceSearch = (overrides: Partial<SearchRecord> = {}): SearchRecord =>
  queuedSearch('s1', 'alice', ['github', 'gitlab'], {
    state: 'running',
    client: 'ip:198.51.100.4',
    estimatedSeconds: 3,
    createdAt: T0,
    ...overrides,
  });

let dir: string;
let files = 0;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'userscout-store-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describeStoreContract('SqliteStore in memory', () => new SqliteStore(':memory:'));

// A new file per test, in a folder the store has to create.
describeStoreContract(
  'SqliteStore on a file',
  () => new SqliteStore(join(dir, `contract-${++files}`, 'store.db')),
);

describeStoreContract('MemoryStore', () => new MemoryStore());

// Records in one store, the outcome cache in another, as cluster mode with DATABASE_URL splits them.
describeStoreContract('SplitStore', () => splitStore(new SqliteStore(':memory:'), new MemoryStore()));

describe('SqliteStore on a file, reopened', () => {
  const stores: Store[] = [];
  const open = (path: string) => {
    const store = new SqliteStore(path);
    stores.push(store);
    return store;
  };

  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
  });

  const hit: Outcome = {
    platform: 'GitHub',
    platformId: 'github',
    category: 'coding',
    url: 'https://github.com/alice',
    status: 'hit',
    responseTime: 241,
    evidence: {
      rule: 'exists: status 200',
      attempts: 1,
      httpStatus: 200,
      finalUrl: 'https://github.com/alice',
    },
  };

  it('keeps everything across a restart', async () => {
    const path = join(dir, 'restart', 'nested', 'store.db');
    const before = open(path);
    expect(existsSync(path)).toBe(true);
    await before.createSearch(aliceSearch({ startedAt: T0 + 10 }));
    expect(await addOne(before, 's1', hit)).toBe(1);
    await before.putCachedOutcomes('alice', [
      { searchId: 's1', platformId: 'github', cachedAt: T0 + 20, expiresAt: T0 + 60_000 },
    ]);
    await before.createApiKey({
      id: 'k1',
      name: 'ci',
      tier: 'professional',
      hash: 'ab'.repeat(32),
      createdAt: T0,
    });
    await before.recordCheck('github', 'hit', 241, T0);
    await before.close();

    const after = open(path);
    expect(await after.unfinishedSearches()).toMatchObject([
      { id: 's1', state: 'running', startedAt: T0 + 10 },
    ]);
    expect(await after.listOutcomes('s1')).toEqual([{ seq: 1, outcome: hit }]);
    // Numbering resumes where it stopped, and the platform already stored is still refused.
    expect(await addOne(after, 's1', hit)).toBeUndefined();
    expect(await addOne(after, 's1', { ...hit, platformId: 'gitlab', platform: 'GitLab' })).toBe(2);
    expect((await after.getCachedOutcomes('alice', ['github'], T0)).get('github')).toEqual({
      ...hit,
      evidence: { ...hit.evidence, cachedAt: T0 + 20 },
    });
    expect(await after.findApiKeyByHash('ab'.repeat(32))).toMatchObject({ id: 'k1' });
    expect(await after.platformStats()).toMatchObject([{ platformId: 'github', checks: 1, recentMs: 241 }]);
  });

  it('packs a finished search into one page, rows gone, read back the same after a restart', async () => {
    const path = join(dir, 'packed', 'store.db');
    const before = open(path);
    await before.createSearch(aliceSearch());
    const miss: Outcome = {
      ...hit,
      platform: 'GitLab',
      platformId: 'gitlab',
      url: 'https://gitlab.com/alice',
      status: 'miss',
      evidence: { ...hit.evidence, httpStatus: 404, finalUrl: 'https://gitlab.com/alice', rule: 'missing' },
    };
    await before.addOutcomes('s1', [hit, miss]);
    await before.updateSearch('s1', { state: 'completed', finishedAt: T0 + 5 });
    await before.close();
    const db = openDatabase(path);
    const rows = db.prepare('SELECT COUNT(*) AS n FROM outcomes').get() as { n: number };
    const pages = db.prepare('SELECT last_seq, seqs FROM outcome_pages').all();
    db.close();
    expect(rows.n).toBe(0);
    expect(pages).toEqual([{ last_seq: 2, seqs: null }]);
    const after = open(path);
    expect(await after.listOutcomes('s1')).toEqual([
      { seq: 1, outcome: hit },
      { seq: 2, outcome: miss },
    ]);
    expect(await after.progress('s1')).toMatchObject({ checked: 2, hits: 1 });
  });

  it('packs a finished search with a replaced outcome too, its seqs with their gap', async () => {
    const path = join(dir, 'packed-gaps', 'store.db');
    const store = open(path);
    await store.createSearch(aliceSearch());
    const gitlab: Outcome = {
      ...hit,
      platform: 'GitLab',
      platformId: 'gitlab',
      url: 'https://gitlab.com/alice',
    };
    await store.addOutcomes('s1', [{ ...hit, status: 'error', reason: 'timeout' }, gitlab]);
    expect(await store.replaceOutcome('s1', hit)).toBe(3);
    await store.updateSearch('s1', { state: 'completed', finishedAt: T0 + 5 });
    await store.close();
    const db = openDatabase(path);
    const rows = db.prepare('SELECT COUNT(*) AS n FROM outcomes').get() as { n: number };
    const pages = db.prepare('SELECT last_seq, seqs FROM outcome_pages').all() as { seqs: Uint8Array }[];
    db.close();
    expect(rows.n).toBe(0);
    expect(pages).toMatchObject([{ last_seq: 3 }]);
    expect([...pages[0]!.seqs]).toEqual([2, 1]);
    expect(await open(path).listOutcomes('s1')).toEqual([
      { seq: 2, outcome: gitlab },
      { seq: 3, outcome: hit },
    ]);
  });

  it('finds expired leases by their expiry, never scanning the leases', async () => {
    const path = join(dir, `leases-${files++}.db`);
    const store = open(path);
    expect(await store.claimLease('control:github:default:0', 60_000, T0)).toBe(true);
    await store.close();
    const db = openDatabase(path);
    try {
      const plan = db.prepare('EXPLAIN QUERY PLAN DELETE FROM leases WHERE expires_at <= ?').all(T0) as {
        detail: string;
      }[];
      expect(plan.map((step) => step.detail)).toEqual([
        expect.stringContaining('USING INDEX leases_by_expires_at'),
      ]);
    } finally {
      db.close();
    }
  });

  it('lets two handles on one file see each other’s writes', async () => {
    const path = join(dir, 'shared', 'store.db');
    const writer = open(path);
    const reader = open(path);
    await writer.createSearch(aliceSearch({ state: 'queued', platformIds: ['github'], estimatedSeconds: 1 }));
    await addOne(writer, 's1', hit);
    expect(await reader.progress('s1')).toMatchObject({ checked: 1, hits: 1 });
  });

  /** An outcome on the platform given, of the status given. */
  const at = (platformId: string, status: 'hit' | 'miss' = 'hit'): Outcome => ({
    ...hit,
    platform: platformId.toUpperCase(),
    platformId,
    url: `https://${platformId}.example/alice`,
    status,
    evidence: { ...hit.evidence, finalUrl: `https://${platformId}.example/alice` },
  });

  it('reads at each poll only the rows stored since the last, another handle’s too', async () => {
    const path = join(dir, 'polls', 'store.db');
    const api = open(path);
    const searches = open(path);
    await searches.createSearch(aliceSearch({ platformIds: ['a', 'b', 'c', 'd'], estimatedSeconds: 4 }));
    await searches.addOutcomes('s1', [at('a'), at('b', 'miss'), at('c')]);
    const first = (await api.snapshot('s1', { statuses: ['hit'] }))!.outcomes;
    expect(first.map((s) => s.outcome.platformId)).toEqual(['a', 'c']);
    // Seq 1's row rewritten in place, which the store never does: a poll that read it again would list b twice.
    const db = openDatabase(path);
    try {
      db.prepare(
        'UPDATE outcomes SET outcome = (SELECT outcome FROM outcomes WHERE seq = 3) WHERE seq = 1',
      ).run();
    } finally {
      db.close();
    }
    await searches.addOutcomes('s1', [at('d')]);
    const second = (await api.snapshot('s1', { statuses: ['hit'] }))!.outcomes;
    expect(second.map((s) => [s.seq, s.outcome.platformId])).toEqual([
      [1, 'a'],
      [3, 'c'],
      [4, 'd'],
    ]);
    // The outcomes read before are the same objects, not decoded again.
    expect(second[0]!.outcome).toBe(first[0]!.outcome);
    expect(second[1]!.outcome).toBe(first[1]!.outcome);
  });

  it('polls a search packed by another handle as it finishes, then unpacked by a later answer, as it lists them', async () => {
    const path = join(dir, 'packed-polls', 'store.db');
    const api = open(path);
    const searches = open(path);
    await searches.createSearch(aliceSearch({ platformIds: ['a', 'b', 'c', 'd', 'e'], estimatedSeconds: 5 }));
    const same = async () => {
      expect((await api.snapshot('s1', { statuses: ['hit'] }))!.outcomes).toEqual(
        await searches.listOutcomes('s1', { statuses: ['hit'] }),
      );
      expect((await api.snapshot('s1'))!.outcomes).toEqual(await searches.listOutcomes('s1'));
    };
    await searches.addOutcomes('s1', [at('a'), at('b', 'miss'), at('c')]);
    await same();
    await searches.updateSearch('s1', { state: 'completed', finishedAt: T0 + 1 });
    await same();
    // An outcome stored after it ended: a row after the page.
    await searches.addOutcomes('s1', [at('d')]);
    await same();
    expect((await api.snapshot('s1', { statuses: ['hit'] }))!.outcomes.map((s) => s.seq)).toEqual([1, 3, 4]);
    // A check again after it ended: its rows come back from the page with their seqs, the new one after.
    expect(await searches.replaceOutcome('s1', at('a', 'miss'))).toBe(5);
    await same();
    expect((await api.snapshot('s1', { statuses: ['hit'] }))!.outcomes.map((s) => s.seq)).toEqual([3, 4]);
    await searches.addOutcomes('s1', [at('e', 'miss')]);
    await same();
    expect(await searches.replaceOutcome('s1', at('e'))).toBe(7);
    await same();
    expect((await api.snapshot('s1', { statuses: ['hit'] }))!.outcomes.map((s) => s.seq)).toEqual([3, 4, 7]);
    // Packed and unpacked again between two polls.
    await searches.updateSearch('s1', { state: 'completed', finishedAt: T0 + 2 });
    expect(await searches.replaceOutcome('s1', at('c', 'miss'))).toBe(8);
    await same();
    expect((await api.snapshot('s1', { statuses: ['hit'] }))!.outcomes.map((s) => s.seq)).toEqual([4, 7]);
  });

  it('hands the same frozen snapshot again while nothing of a search not finished changed, another handle’s writes seen', async () => {
    const path = join(dir, 'same-snapshot', 'store.db');
    const api = open(path);
    const searches = open(path);
    await searches.createSearch(aliceSearch({ platformIds: ['a', 'b', 'c', 'd'], estimatedSeconds: 4 }));
    const hits = () => api.snapshot('s1', { statuses: ['hit'] });
    const queued = await hits();
    expect(await hits()).toBe(queued);
    expect(Object.isFrozen(queued)).toBe(true);
    await searches.updateSearch('s1', { state: 'running', startedAt: T0 + 1 });
    const started = await hits();
    expect(started).not.toBe(queued);
    expect(started?.search.state).toBe('running');
    await searches.addOutcomes('s1', [at('a'), at('b', 'miss')]);
    const first = await hits();
    expect(first).not.toBe(started);
    expect(first?.outcomes.map((s) => s.seq)).toEqual([1]);
    expect(await hits()).toBe(first);
    // Each kind of poll has its own.
    const all = await api.snapshot('s1');
    expect(all).not.toBe(first);
    expect(all?.outcomes.map((s) => s.seq)).toEqual([1, 2]);
    expect(await api.snapshot('s1')).toBe(all);
    // A miss stored moves the progress, though the hits are the same.
    await searches.addOutcomes('s1', [at('c', 'miss')]);
    const missed = await hits();
    expect(missed).not.toBe(first);
    expect(missed?.progress.checked).toBe(3);
    // A later answer in place of one stored.
    expect(await searches.replaceOutcome('s1', at('b'))).toBe(4);
    const replaced = await hits();
    expect(replaced).not.toBe(missed);
    expect(replaced?.outcomes.map((s) => s.seq)).toEqual([1, 4]);
    // Finished: read as it is at each poll (the API keeps the finished answer).
    await searches.updateSearch('s1', { state: 'completed', finishedAt: T0 + 2 });
    const done = await hits();
    expect(done?.search.state).toBe('completed');
    expect(await hits()).not.toBe(done);
    expect(await hits()).toEqual(done);
  });

  it('reads a search again from the start when its rows are not those its polls kept', async () => {
    const path = join(dir, 'polls-checked', 'store.db');
    const store = open(path);
    await store.createSearch(aliceSearch({ platformIds: ['a', 'b', 'c', 'd'], estimatedSeconds: 4 }));
    await store.addOutcomes('s1', [at('a'), at('b'), at('c')]);
    expect((await store.snapshot('s1', { statuses: ['hit'] }))!.outcomes).toHaveLength(3);
    // A row gone behind the store's back (it deletes a search's rows only with the search, or into its page).
    const db = openDatabase(path);
    try {
      db.prepare('DELETE FROM outcomes WHERE seq = 2').run();
    } finally {
      db.close();
    }
    await store.addOutcomes('s1', [at('d')]);
    expect((await store.snapshot('s1', { statuses: ['hit'] }))!.outcomes.map((s) => s.seq)).toEqual([
      1, 3, 4,
    ]);
  });

  it('forgets the vocabulary ids of a write rolled back, which another handle may give to other texts', async () => {
    const path = join(dir, 'rollback', 'store.db');
    const a = open(path);
    const b = open(path);
    await a.createSearch(aliceSearch({ platformIds: ['github'], estimatedSeconds: 1 }));
    const on = (platformId: string): Outcome => ({
      ...hit,
      platform: platformId.toUpperCase(),
      platformId,
      url: `https://${platformId}.example/alice`,
      evidence: { ...hit.evidence, finalUrl: `https://${platformId}.example/alice` },
    });
    // The second outcome cannot be stored: the batch, and the texts the first one added, roll back.
    await expect(
      a.addOutcomes('s1', [on('fresh'), { ...on('broken'), platformId: null as never }]),
    ).rejects.toThrow();
    await b.addOutcomes('s1', [on('other')]);
    expect(await addOne(a, 's1', on('fresh'))).toBe(2);
    const expected = [
      { seq: 1, outcome: on('other') },
      { seq: 2, outcome: on('fresh') },
    ];
    expect(await a.listOutcomes('s1')).toEqual(expected);
    expect(await b.listOutcomes('s1')).toEqual(expected);
  });
});

describe('SqliteStore polls', () => {
  it('keeps the outcomes read of every search running, however many are polled in turn', async () => {
    const store = new SqliteStore(':memory:');
    try {
      // More running searches than one process runs at once, polled round and round as clients do.
      const ids = Array.from({ length: 40 }, (_, i) => `s${i}`);
      for (const [i, id] of ids.entries()) {
        await store.createSearch(
          queuedSearch(id, `user${i}`, ['github', 'gitlab'], { state: 'running', createdAt: T0 + i }),
        );
        await addOne(store, id, {
          platform: 'GitHub',
          platformId: 'github',
          category: 'coding',
          url: `https://github.com/user${i}`,
          status: 'hit',
          responseTime: 241,
          evidence: { rule: 'exists: status 200', attempts: 1, httpStatus: 200 },
        });
      }
      const first = new Map<string, unknown>();
      for (const id of ids)
        first.set(id, (await store.snapshot(id, { statuses: ['hit'] }))!.outcomes[0]!.outcome);
      for (const id of ids) {
        const again = (await store.snapshot(id, { statuses: ['hit'] }))!.outcomes;
        expect(again).toHaveLength(1);
        expect(again[0]!.outcome).toBe(first.get(id));
      }
    } finally {
      await store.close();
    }
  });

  it('decodes the platform ids of a selection once for all its searches, however many are polled in turn', async () => {
    const store = new SqliteStore(':memory:');
    try {
      const selection = Array.from({ length: 300 }, (_, i) => `platform-${i}`);
      const other = selection.slice(0, 299);
      // More searches than any cache by search would keep, polled round and round as clients do.
      const ids = Array.from({ length: 40 }, (_, i) => `s${i}`);
      for (const [i, id] of ids.entries())
        await store.createSearch(
          queuedSearch(id, `user${i}`, i === 7 ? other : selection, { createdAt: T0 + i }),
        );
      const lists = new Set<readonly string[]>();
      for (let round = 0; round < 2; round++)
        for (const [i, id] of ids.entries()) {
          const polled = (await store.snapshot(id))!.search;
          expect(polled.platformIds).toEqual(i === 7 ? other : selection);
          lists.add(polled.platformIds);
        }
      // One list for the shared selection, one for the search that chose fewer.
      expect(lists.size).toBe(2);
    } finally {
      await store.close();
    }
  });
});

describe('SqliteStore on a database of schema 1 (outcomes as JSON)', () => {
  /** Schema 1 as it shipped (src/store/sqlite.ts before compact outcomes), with rows it wrote. */
  function writeSchema1(path: string, outcomes: readonly Outcome[]): void {
    const db = openDatabase(path);
    db.exec(`
      CREATE TABLE searches (id TEXT PRIMARY KEY, username TEXT NOT NULL, state TEXT NOT NULL, tier TEXT NOT NULL,
        client TEXT NOT NULL, platform_ids TEXT NOT NULL, estimated_seconds REAL NOT NULL, created_at INTEGER NOT NULL,
        started_at INTEGER, finished_at INTEGER, error TEXT);
      CREATE INDEX searches_by_created_at ON searches (created_at);
      CREATE INDEX searches_unfinished ON searches (created_at, id) WHERE state IN ('queued', 'running');
      CREATE TABLE outcomes (search_id TEXT NOT NULL REFERENCES searches (id) ON DELETE CASCADE, seq INTEGER NOT NULL,
        platform_id TEXT NOT NULL, status TEXT NOT NULL, outcome TEXT NOT NULL, PRIMARY KEY (search_id, seq),
        UNIQUE (search_id, platform_id)) WITHOUT ROWID;
      CREATE TABLE outcome_cache (username TEXT NOT NULL, platform_id TEXT NOT NULL, outcome TEXT NOT NULL,
        expires_at INTEGER NOT NULL, PRIMARY KEY (username, platform_id)) WITHOUT ROWID;
      CREATE INDEX outcome_cache_by_expires_at ON outcome_cache (expires_at);
      CREATE TABLE api_keys (id TEXT PRIMARY KEY, name TEXT NOT NULL, tier TEXT NOT NULL, hash TEXT NOT NULL UNIQUE,
        created_at INTEGER NOT NULL, revoked_at INTEGER);
      CREATE TABLE platform_stats (platform_id TEXT PRIMARY KEY, checks INTEGER NOT NULL, hit_count INTEGER NOT NULL,
        miss_count INTEGER NOT NULL, unknown_count INTEGER NOT NULL, error_count INTEGER NOT NULL,
        invalid_count INTEGER NOT NULL, answered INTEGER NOT NULL, answered_ms REAL NOT NULL, recent_ms REAL NOT NULL,
        last_checked_at INTEGER NOT NULL);
      PRAGMA user_version = 1;
    `);
    const search = db.prepare('INSERT INTO searches VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
    search.run(
      'old',
      'alice',
      'completed',
      'professional',
      'key:k1',
      JSON.stringify(outcomes.map((o) => o.platformId)),
      4,
      T0,
      T0 + 1,
      T0 + 9,
      null,
    );
    search.run(
      'running',
      'bob',
      'running',
      'free',
      'ip:198.51.100.4',
      '["github","gitlab"]',
      2,
      T0 + 5,
      T0 + 6,
      null,
      null,
    );
    const outcome = db.prepare('INSERT INTO outcomes VALUES (?, ?, ?, ?, ?)');
    for (const [i, o] of outcomes.entries())
      outcome.run('old', i + 1, o.platformId, o.status, JSON.stringify(o));
    db.prepare('INSERT INTO outcome_cache VALUES (?, ?, ?, ?)').run(
      'alice',
      'github',
      JSON.stringify(outcomes[0]),
      T0 + 1e9,
    );
    db.prepare('INSERT INTO api_keys VALUES (?, ?, ?, ?, ?, ?)').run(
      'k1',
      'ci',
      'professional',
      'cd'.repeat(32),
      T0,
      null,
    );
    db.close();
  }

  const base = { platform: 'GitHub', platformId: 'github', category: 'coding' } as const;
  const outcomes: Outcome[] = [
    {
      ...base,
      url: 'https://github.com/alice',
      status: 'hit',
      responseTime: 241,
      evidence: {
        httpStatus: 200,
        finalUrl: 'https://github.com/alice',
        rule: 'exists: status 200',
        attempts: 1,
        bytesRead: 5120,
      },
    },
    {
      platform: 'GitLab',
      platformId: 'gitlab',
      category: 'coding',
      url: 'https://gitlab.com/alice',
      status: 'miss',
      responseTime: 90,
      evidence: {
        httpStatus: 404,
        finalUrl: 'https://gitlab.com/alice',
        rule: 'missing: status 404',
        attempts: 2,
        bytesRead: 0,
      },
    },
    {
      platform: 'Site',
      platformId: 'site',
      category: 'misc',
      url: 'https://site.example/alice',
      status: 'error',
      reason: 'timeout',
      responseTime: 10_000,
      evidence: { rule: 'timed out after 10000 ms', attempts: 3 },
    },
  ];

  it('migrates it at open: searches, outcomes, their numbering and the API keys read as before', async () => {
    const path = join(dir, 'schema-1', 'store.db');
    mkdirSync(join(dir, 'schema-1'), { recursive: true });
    writeSchema1(path, outcomes);
    const store = new SqliteStore(path);
    try {
      expect(await store.getSearch('old')).toEqual({
        id: 'old',
        username: 'alice',
        state: 'completed',
        tier: 'professional',
        client: 'key:k1',
        platformIds: ['github', 'gitlab', 'site'],
        estimatedSeconds: 4,
        createdAt: T0,
        startedAt: T0 + 1,
        finishedAt: T0 + 9,
      });
      expect(await store.listOutcomes('old')).toEqual(
        outcomes.map((outcome, i) => ({ seq: i + 1, outcome })),
      );
      expect(await store.progress('old')).toMatchObject({
        checked: 3,
        hits: 1,
        byStatus: { hit: 1, miss: 1, error: 1 },
      });
      expect((await store.unfinishedSearches()).map((s) => s.id)).toEqual(['running']);
      expect(await store.findApiKeyByHash('cd'.repeat(32))).toMatchObject({ id: 'k1' });
      // Numbering goes on after the migrated outcomes; the cache, only a cache, starts empty.
      expect(await addOne(store, 'running', outcomes[0]!)).toBe(1);
      expect(await addOne(store, 'old', { ...outcomes[0]!, platformId: 'x', platform: 'X' })).toBe(4);
      expect(await store.getCachedOutcomes('alice', ['github'], T0)).toEqual(new Map());
      expect(await store.sweepSearches(T0 + 1)).toBe(1);
      expect(await store.listOutcomes('old')).toEqual([]);
    } finally {
      await store.close();
    }
    // Opened again: already migrated, nothing lost.
    const again = new SqliteStore(path);
    expect(await again.listOutcomes('running')).toEqual([{ seq: 1, outcome: outcomes[0] }]);
    await again.close();
  });
});

describe('SplitStore', () => {
  it("keeps the outcome cache's rows, control checks and leases in the cache store and everything else in the records store", async () => {
    const records = new SqliteStore(':memory:');
    const cache = new MemoryStore();
    const split = splitStore(records, cache);
    const hit: Outcome = {
      platform: 'GitHub',
      platformId: 'github',
      category: 'coding',
      url: 'https://github.com/alice',
      status: 'hit',
      responseTime: 10,
      evidence: { rule: 'exists: status 200', attempts: 1 },
    };
    const [cached] = await putCached(split, 'alice', hit, T0 + 60_000);
    await split.recordCheck('github', 'hit', 10, T0);
    // The rows in the cache store, the outcome they refer to in the records store.
    expect(await cache.cacheRowsOf('alice', T0)).toHaveLength(1);
    expect(await records.cacheRowsOf('alice', T0)).toEqual([]);
    expect((await split.getCachedOutcomes('alice', ['github'], T0)).get('github')).toEqual(cached);
    expect(await cache.getCachedOutcomes('alice', ['github'], T0)).toEqual(new Map());
    expect(await records.platformStats()).toMatchObject([{ platformId: 'github', checks: 1 }]);
    expect(await cache.platformStats()).toEqual([]);
    // Durable records (health verdicts, watchlists) in the records store; control checks and leases in the cache store.
    await split.putPlatformHealth('github', { verdict: 'healthy', validatedAt: T0 });
    expect(await records.listPlatformHealth()).toEqual({ github: { verdict: 'healthy', validatedAt: T0 } });
    expect(await cache.listPlatformHealth()).toEqual({});
    expect(split.watchlists).toBe(records.watchlists);
    expect(await split.claimLease('control:github:default:0', 60_000, T0)).toBe(true);
    expect(await cache.claimLease('control:github:default:0', 60_000, T0 + 1)).toBe(false);
    expect(await records.claimLease('control:github:default:0', 60_000, T0 + 1)).toBe(true);
    const control = {
      platformId: 'github',
      identity: 'default',
      username: 'qzx81kf0ab3c9d2e',
      status: 'miss' as const,
      rule: 'missing: status 404',
      answer: { httpStatus: 404, finalUrl: 'https://github.com/q', bodyLength: 812 },
      drift: false,
      checkedAt: T0,
    };
    await split.putControl(control);
    expect(await cache.getControl('github', 'default')).toEqual(control);
    expect(await records.listControls()).toEqual([]);
    await split.close();
    expect(await split.ping()).toBe(false);
  });
});

describe('createStore', () => {
  it('makes the backend asked for', async () => {
    const redis = createStore({ kind: 'redis', redis: TEST_REDIS_URL, now: Date.now });
    const sqlite = createStore({ kind: 'sqlite', path: ':memory:' });
    expect(redis).toBeInstanceOf(RedisStore);
    expect(sqlite).toBeInstanceOf(SqliteStore);
    await redis.close();
    await sqlite.close();
  });

  it('makes a split store of the two backends asked for, the outcome cache in the coordination one', async () => {
    const prefix = uniquePrefix('split');
    const split = createStore({
      kind: 'split',
      records: { kind: 'sqlite', path: ':memory:' },
      coordination: { kind: 'redis', redis: TEST_REDIS_URL, prefix, now: () => T0 },
    });
    const coordination = createStore({ kind: 'redis', redis: TEST_REDIS_URL, prefix, now: () => T0 });
    try {
      expect(await split.ping()).toBe(true);
      const miss: Outcome = {
        platform: 'GitHub',
        platformId: 'github',
        category: 'coding',
        url: 'https://github.com/alice',
        status: 'miss',
        responseTime: 10,
        evidence: { rule: 'missing: status 404', attempts: 1 },
      };
      const [cached] = await putCached(split, 'alice', miss, T0 + 60_000);
      expect(await coordination.cacheRowsOf('alice', T0)).toHaveLength(1);
      expect((await split.getCachedOutcomes('alice', ['github'], T0)).get('github')).toEqual(cached);
      await split.createSearch(aliceSearch());
      expect(await coordination.getSearch('s1')).toBeUndefined();
      expect(await split.getSearch('s1')).toEqual(aliceSearch());
    } finally {
      await split.close();
      await coordination.close();
    }
    expect(await split.ping()).toBe(false);
  });

  it('refuses an unknown kind, naming it', () => {
    expect(() => createStore({ kind: 'mysql' } as never)).toThrow(/mysql/);
  });
});
