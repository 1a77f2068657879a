/**
 * The store contract against the PostgreSQL store on a real server, each test
 * in a schema of its own (dropped after), and what only PostgreSQL adds:
 * migrations run once by any number of processes, pages merged when a search
 * ends, and an outage answered as store_unavailable.
 */
import { runner } from 'node-pg-migrate';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { Outcome } from '../../src/engine/outcome.js';
import { encodeIds } from '../../src/store/outcome-page.js';
import { PostgresStore } from '../../src/store/postgres.js';
import { MIGRATIONS_DIR, migratePostgres } from '../../src/store/postgres-migrate.js';
import type { Store } from '../../src/store/store.js';
import { describeStoreContract } from '../store.contract.js';
import { describeWatchlistStoreContract } from '../watchlist-store.contract.js';
import { adminQuery, dropSchema, TEST_DATABASE_URL, uniqueSchema } from './postgres-support.js';

const schemas = new Map<Store, string>();
const others: string[] = [];

afterAll(async () => {
  for (const schema of others) await dropSchema(schema);
});

describeStoreContract(
  'PostgresStore',
  () => {
    const schema = uniqueSchema('store');
    const store = new PostgresStore({ url: TEST_DATABASE_URL, schema });
    schemas.set(store, schema);
    return store;
  },
  async (store) => {
    await store.close();
    await dropSchema(schemas.get(store)!);
    schemas.delete(store);
  },
);

describeWatchlistStoreContract('PostgresStore', () => {
  const schema = uniqueSchema('watch');
  const store = new PostgresStore({ url: TEST_DATABASE_URL, schema });
  return {
    store: store.watchlists,
    close: async () => {
      await store.close();
      await dropSchema(schema);
    },
  };
});

const MIGRATIONS = [
  '1764000000000_initial',
  '1764100000000_watchlists-controls',
  '1764200000000_recursive-searches',
];

function miss(platformId: string): Outcome {
  const url = `https://${platformId}.example/alice`;
  return {
    platform: platformId,
    platformId,
    category: 'social',
    url,
    status: 'miss',
    responseTime: 120,
    evidence: { rule: 'missing: status 404', attempts: 1, httpStatus: 404, finalUrl: url, bytesRead: 900 },
  };
}

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
      await expect(store.addOutcome('s1', miss('p1'))).rejects.toMatchObject({ code: 'store_unavailable' });
      expect(await store.ping()).toBe(false);
      // Each call fails at once (refused) or after the 1 s connection timeout; far from a hang.
      expect(Date.now() - started).toBeLessThan(8_000);
    } finally {
      await store.close();
    }
  });
});
