/**
 * The store contract against the PostgreSQL store on a real server, each test
 * in a schema of its own (dropped after), and what only PostgreSQL adds:
 * migrations run once by any number of processes, pages merged when a search
 * ends, and an outage answered as store_unavailable.
 */
import { runner } from 'node-pg-migrate';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { Outcome } from '../../src/engine/verdict/outcome.js';
import { encodeIds, encodePage } from '../../src/store/outcome-page.js';
import { PostgresStore } from '../../src/store/postgres.js';
import { MIGRATIONS_DIR, migratePostgres } from '../../src/store/postgres-migrate.js';
import type { Store } from '../../src/store/store.js';
import { describeStoreContract } from '../store.contract.js';
import { addOne } from '../support/add-one.js';
import { putCached } from '../support/cached.js';
import { describeWatchlistStoreContract } from '../watchlist-store.contract.js';
import {
  adminQuery,
  dropSchema,
  missOf as miss,
  SchemaShelf,
  TEST_DATABASE_URL,
  uniqueSchema,
} from './postgres-support.js';

const schemas = new Map<Store, string>();
const others: string[] = [];

afterAll(async () => {
  for (const schema of others) await dropSchema(schema);
});

// Each contract test on a schema of its own with no rows: migrated once, emptied after each test.
const shelf = new SchemaShelf();
afterAll(() => shelf.dropAll());

describeStoreContract(
  'PostgresStore',
  () => {
    const { schema } = shelf.take('store');
    const store = new PostgresStore({ url: TEST_DATABASE_URL, schema });
    schemas.set(store, schema);
    return store;
  },
  async (store) => {
    await store.close();
    await shelf.give(schemas.get(store)!);
    schemas.delete(store);
  },
);

describeWatchlistStoreContract('PostgresStore', () => {
  const { schema } = shelf.take('watch');
  const store = new PostgresStore({ url: TEST_DATABASE_URL, schema });
  return {
    store: store.watchlists,
    close: async () => {
      await store.close();
      await shelf.give(schema);
    },
  };
});

const MIGRATIONS = [
  '1764000000000_initial',
  '1764100000000_watchlists-controls',
  '1764200000000_recursive-searches',
  '1764300000000_compact-pages',
  '1764400000000_compact-cache',
  '1764500000000_site-limits',
  '1764600000000_transport-memory',
  '1764700000000_cache-refs',
];

describe('PostgresStore on PostgreSQL', () => {
  it('migrates once when several processes start at once, and records the version', async () => {
    const schema = uniqueSchema('migrate');
    others.push(schema);
    const runs = await Promise.all(
      Array.from({ length: 4 }, () => migratePostgres({ url: TEST_DATABASE_URL, schema })),
    );
    // One run applied the migrations; the others waited for its lock and found nothing to do.
    expect(runs.flat()).toEqual(MIGRATIONS);
    const { rows } = await adminQuery(`SELECT name FROM ${schema}.pgmigrations ORDER BY run_on, id`);
    expect(rows.map((r) => r.name)).toEqual(MIGRATIONS);
    expect(await migratePostgres({ url: TEST_DATABASE_URL, schema })).toEqual([]);
  });

  it('keeps the searches of a schema-1 database when migrating it, none of them private', async () => {
    const schema = uniqueSchema('upgrade');
    others.push(schema);
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    try {
      await runner({
        dbClient: client,
        dir: MIGRATIONS_DIR,
        migrationsTable: 'pgmigrations',
        schema,
        createSchema: true,
        direction: 'up',
        // Another test file may be migrating its own schema: node-pg-migrate's lock is one per database.
        advisoryLockMode: 'wait',
        count: 1,
        logger: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
      });
      await client.query(
        `INSERT INTO ${schema}.searches (id, username, state, tier, client, platform_ids, estimated_seconds, created_at)
         VALUES ('old', 'alice', 'completed', 'professional', 'key:k1', $1, 1, 1000)`,
        [await encodeIds(['p1', 'p2'])],
      );
    } finally {
      await client.end();
    }
    const store = new PostgresStore({ url: TEST_DATABASE_URL, schema });
    try {
      const old = {
        id: 'old',
        username: 'alice',
        state: 'completed',
        tier: 'professional',
        client: 'key:k1',
        platformIds: ['p1', 'p2'],
        estimatedSeconds: 1,
        createdAt: 1000,
      };
      expect(await store.getSearch('old')).toEqual(old);
      expect(await store.listSearchesByClient('key:k1', { limit: 10 })).toEqual([old]);
      const { rows } = await adminQuery(`SELECT name FROM ${schema}.pgmigrations ORDER BY run_on, id`);
      expect(rows.map((r) => r.name)).toEqual(MIGRATIONS);
    } finally {
      await store.close();
    }
  });

  it('drops the JSON outcome cache written before cache rows, and keeps references to the records after (a cache: not converted)', async () => {
    const schema = uniqueSchema('cache');
    others.push(schema);
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    // As the engine orders its fields (what takes the compact path), cached by the search job.
    const { rule, attempts, httpStatus, finalUrl, bytesRead } = miss('p1').evidence;
    const cached: Outcome = {
      ...miss('p1'),
      evidence: { httpStatus, finalUrl, rule, attempts, bytesRead, cachedAt: 1_000 },
    };
    try {
      await runner({
        dbClient: client,
        dir: MIGRATIONS_DIR,
        migrationsTable: 'pgmigrations',
        schema,
        createSchema: true,
        direction: 'up',
        advisoryLockMode: 'wait',
        count: MIGRATIONS.indexOf('1764300000000_compact-pages') + 1,
        logger: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
      });
      await client.query(
        `INSERT INTO ${schema}.outcome_cache (platform_id, username, outcome, expires_at) VALUES ('p1', 'alice', $1, $2)`,
        [JSON.stringify(cached), Number.MAX_SAFE_INTEGER],
      );
    } finally {
      await client.end();
    }
    const store = new PostgresStore({ url: TEST_DATABASE_URL, schema });
    try {
      const read = async () => (await store.getCachedOutcomes('alice', ['p1'], 2_000)).get('p1');
      expect(await read()).toBeUndefined();
      const [reused] = await putCached(store, 'alice', cached, 10_000, 1_000);
      expect(JSON.stringify(await read())).toBe(JSON.stringify(reused));
      expect(reused).toStrictEqual(cached);
      const { rows } = await adminQuery(
        `SELECT octet_length(refs) AS bytes, get_byte(refs, 0) AS format FROM ${schema}.outcome_cache`,
      );
      // A row of references (format 1): a few bytes, not the outcome.
      expect(rows).toHaveLength(1);
      expect(rows[0]!.format).toBe(1);
      expect(Number(rows[0]!.bytes)).toBeLessThan(JSON.stringify(cached).length / 5);
      await store.sweepSearches(20_000);
      expect(await read()).toBeUndefined();
      expect((await adminQuery(`SELECT count(*) AS n FROM ${schema}.outcome_cache`)).rows[0]!.n).toBe('0');
    } finally {
      await store.close();
    }
  });

  it('reads the column pages written before compact pages, refuses their platforms, and merges them compact', async () => {
    const schema = uniqueSchema('columns');
    others.push(schema);
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    const hit: Outcome = {
      ...miss('p2'),
      status: 'hit',
      evidence: {
        ...miss('p2').evidence,
        httpStatus: 200,
        snippet: '…[alice]…',
        control: 'control "x" read miss',
      },
      profile: { fullName: 'Alice' },
    };
    try {
      // Schema 3, as it shipped before compact pages, with pages it wrote: a finished search merged, a running one in batches.
      await runner({
        dbClient: client,
        dir: MIGRATIONS_DIR,
        migrationsTable: 'pgmigrations',
        schema,
        createSchema: true,
        direction: 'up',
        // Another test file may be migrating its own schema: node-pg-migrate's lock is one per database.
        advisoryLockMode: 'wait',
        count: 3,
        logger: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
      });
      for (const [id, state] of [
        ['done', 'completed'],
        ['going', 'running'],
      ] as const) {
        await client.query(
          `INSERT INTO ${schema}.searches (id, username, state, tier, client, platform_ids, estimated_seconds, created_at,
             outcome_count, status_counts)
           VALUES ($1, 'alice', $2, 'free', 'ip:1', $3, 1, 1000, 2, '{1,1,0,0,0}')`,
          [id, state, await encodeIds(['p1', 'p2', 'p3'])],
        );
      }
      await client.query(
        `INSERT INTO ${schema}.outcome_pages (search_key, first_seq, count, platform_ids, body)
         SELECT key, 1, 2, NULL, $1 FROM ${schema}.searches WHERE id = 'done'`,
        [await encodePage([miss('p1'), hit], true)],
      );
      await client.query(
        `INSERT INTO ${schema}.outcome_pages (search_key, first_seq, count, platform_ids, body)
         SELECT key, 1, 1, '["p1"]', $1::bytea FROM ${schema}.searches WHERE id = 'going'
         UNION ALL SELECT key, 2, 1, '["p2"]', $2::bytea FROM ${schema}.searches WHERE id = 'going'`,
        [await encodePage([miss('p1')]), await encodePage([hit])],
      );
    } finally {
      await client.end();
    }
    const store = new PostgresStore({ url: TEST_DATABASE_URL, schema });
    try {
      const expected = [
        { seq: 1, outcome: miss('p1') },
        { seq: 2, outcome: hit },
      ];
      for (const id of ['done', 'going']) {
        expect(JSON.stringify(await store.listOutcomes(id))).toBe(JSON.stringify(expected));
        expect(await store.addOutcomes(id, [miss('p2'), miss('p1'), miss('p3')])).toEqual([
          undefined,
          undefined,
          3,
        ]);
        // Refused again on the next batch (from this process's memory of what it wrote).
        expect(await store.addOutcomes(id, [miss('p3')])).toEqual([undefined]);
        await store.updateSearch(id, { state: 'completed', finishedAt: 2000 });
        expect(JSON.stringify(await store.listOutcomes(id))).toBe(
          JSON.stringify([...expected, { seq: 3, outcome: miss('p3') }]),
        );
        expect(await store.progress(id)).toMatchObject({ checked: 3, hits: 1 });
      }
      const { rows } = await adminQuery(
        `SELECT get_byte(body, 0) AS format, count FROM ${schema}.outcome_pages p
         JOIN ${schema}.searches s ON s.key = p.search_key`,
      );
      expect(rows).toEqual([
        { format: 2, count: 3 },
        { format: 2, count: 3 },
      ]);
    } finally {
      await store.close();
    }
  });

  it('refuses a platform stored by another process between two batches of this one', async () => {
    const schema = uniqueSchema('twoproc');
    others.push(schema);
    const a = new PostgresStore({ url: TEST_DATABASE_URL, schema });
    const b = new PostgresStore({ url: TEST_DATABASE_URL, schema });
    try {
      await a.createSearch({
        id: 's1',
        username: 'alice',
        state: 'running',
        tier: 'free',
        client: 'ip:203.0.113.7',
        platformIds: ['p1', 'p2', 'p3'],
        estimatedSeconds: 1,
        createdAt: Date.now(),
      });
      expect(await a.addOutcomes('s1', [miss('p1')])).toEqual([1]);
      expect(await b.addOutcomes('s1', [miss('p2')])).toEqual([2]);
      expect(await a.addOutcomes('s1', [miss('p2'), miss('p3')])).toEqual([undefined, 3]);
      expect(await b.addOutcomes('s1', [miss('p1'), miss('p3')])).toEqual([undefined, undefined]);
      expect((await a.listOutcomes('s1')).map((o) => o.outcome.platformId)).toEqual(['p1', 'p2', 'p3']);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('merges a finished search into one page, keeping every outcome, its seq and its counts', async () => {
    const schema = uniqueSchema('merge');
    others.push(schema);
    const store = new PostgresStore({ url: TEST_DATABASE_URL, schema });
    try {
      await store.createSearch({
        id: 's1',
        username: 'alice',
        state: 'running',
        tier: 'free',
        client: 'ip:203.0.113.7',
        platformIds: ['p1', 'p2', 'p3', 'p4', 'p5'],
        estimatedSeconds: 1,
        createdAt: Date.now(),
      });
      await store.addOutcomes('s1', [miss('p1'), miss('p2')]);
      await store.addOutcomes('s1', [miss('p3')]);
      await store.addOutcomes('s1', [miss('p4'), { ...miss('p5'), status: 'hit' }]);
      const before = await store.listOutcomes('s1');
      await store.updateSearch('s1', { state: 'completed', finishedAt: Date.now() });
      const { rows } = await adminQuery(`SELECT first_seq, count, platform_ids FROM ${schema}.outcome_pages`);
      expect(rows).toEqual([{ first_seq: 1, count: 5, platform_ids: null }]);
      expect(await store.listOutcomes('s1')).toEqual(before);
      expect(await store.listOutcomes('s1', { afterSeq: 3 })).toEqual(before.slice(3));
      // A platform stored before the merge is still refused; a new one goes on at seq 6.
      expect(await store.addOutcomes('s1', [miss('p2'), miss('p6')])).toEqual([undefined, 6]);
      expect(await store.progress('s1')).toMatchObject({ checked: 6, hits: 1 });
    } finally {
      await store.close();
    }
  });

  it('sweeps old searches in batches while another search goes on, keeping the newer ones intact', async () => {
    const schema = uniqueSchema('sweep');
    others.push(schema);
    const store = new PostgresStore({ url: TEST_DATABASE_URL, schema });
    try {
      const cutoff = Date.now();
      const search = (id: string, createdAt: number) => ({
        id,
        username: 'alice',
        state: 'completed' as const,
        tier: 'free' as const,
        client: 'ip:203.0.113.7',
        platformIds: ['p1', 'p2'],
        estimatedSeconds: 1,
        createdAt,
      });
      // More old searches than one sweep statement deletes (500), each with outcomes.
      const old = Array.from({ length: 1_100 }, (_, i) => `old-${i}`);
      for (let i = 0; i < old.length; i += 50) {
        await Promise.all(
          old.slice(i, i + 50).map(async (id, j) => {
            await store.createSearch(search(id, cutoff - 86_400_000 + i + j));
            await store.addOutcomes(id, [miss('p1'), miss('p2')]);
          }),
        );
      }
      await store.createSearch({ ...search('new', cutoff), state: 'running' });
      const writing = (async () => {
        const seqs: (number | undefined)[] = [];
        for (let i = 0; i < 40; i++) seqs.push(...(await store.addOutcomes('new', [miss(`q${i}`)])));
        return seqs;
      })();
      const [swept, seqs] = await Promise.all([store.sweepSearches(cutoff), writing]);
      expect(swept).toBe(old.length);
      expect(seqs).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
      expect(await store.getSearch('old-0')).toBeUndefined();
      expect(await store.listOutcomes('old-1099')).toEqual([]);
      expect(await store.progress('new')).toMatchObject({ checked: 40 });
      const { rows } = await adminQuery(`SELECT count(*)::int AS n FROM ${schema}.outcome_pages`);
      // Only the new search's pages are left.
      expect(rows[0].n).toBe(40);
    } finally {
      await store.close();
    }
  }, 60_000);

  it('answers store_unavailable within the connection timeout when PostgreSQL cannot be reached', async () => {
    // Nothing listens on port 1.
    const store = new PostgresStore({ url: 'postgres://postgres@127.0.0.1:1/test', connectTimeoutMs: 1_000 });
    try {
      const started = Date.now();
      await expect(store.getSearch('s1')).rejects.toMatchObject({
        code: 'store_unavailable',
        details: { retryAfter: 5 },
      });
      await expect(addOne(store, 's1', miss('p1'))).rejects.toMatchObject({ code: 'store_unavailable' });
      expect(await store.ping()).toBe(false);
      // Each call fails at once (refused) or after the 1 s connection timeout; far from a hang.
      expect(Date.now() - started).toBeLessThan(8_000);
    } finally {
      await store.close();
    }
  });
});
