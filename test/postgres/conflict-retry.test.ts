/**
 * Conflicts PostgreSQL ends a store transaction for, provoked on a real server; the store must
 * run it again, not fail the search (src/store/postgres-retry.ts).
 * - A deadlock (40P01): another session locks the pages of a search, the store ends the search
 *   (its transaction locks the search's row, then waits for the pages), and the other session
 *   then asks for the search's row. PostgreSQL ends one of the two; the store's is made the one.
 * - A serialization failure (40001), on a database whose transactions are SERIALIZABLE by
 *   default: another session updates a search's row, the store's batch waits for the row, and
 *   the other commits: the row changed after the store's snapshot.
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresStore } from '../../src/store/postgres.js';
import {
  adminQuery,
  createTestDatabase,
  dropSchema,
  missOf as miss,
  TEST_DATABASE_URL,
  uniqueSchema,
} from './postgres-support.js';

const schemas: string[] = [];
const databases: Awaited<ReturnType<typeof createTestDatabase>>[] = [];

afterAll(async () => {
  for (const schema of schemas) await dropSchema(schema);
  for (const database of databases) await database.drop();
});

const SEARCH = {
  id: 's1',
  username: 'alice',
  state: 'running',
  tier: 'free',
  client: 'ip:203.0.113.7',
  platformIds: ['p1', 'p2', 'p3'],
  estimatedSeconds: 3,
  createdAt: 1_000,
} as const;

/** Polls until a session other than `self` waits for a lock in a statement matching `pattern`. */
async function waitForLockWait(observer: pg.Client, self: number, pattern: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const { rows } = await observer.query(
      `SELECT 1 FROM pg_stat_activity
       WHERE pid <> $1 AND wait_event_type = 'Lock' AND query LIKE $2`,
      [self, pattern],
    );
    if (rows.length > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`No session waited for a lock in ${pattern}`);
}

describe('PostgresStore under a deadlock', () => {
  it('runs again a transaction PostgreSQL ended as a deadlock: the search ends, its outcomes kept', async () => {
    const schema = uniqueSchema('deadlock');
    schemas.push(schema);
    const store = new PostgresStore({ url: TEST_DATABASE_URL, schema });
    const other = new pg.Client({ connectionString: TEST_DATABASE_URL, options: `-c search_path=${schema}` });
    const observer = new pg.Client({ connectionString: TEST_DATABASE_URL });
    // A session ended under it (the schema dropped, the server restarting) reports here, not as a crash.
    const clientErrors: Error[] = [];
    other.on('error', (error) => clientErrors.push(error));
    observer.on('error', (error) => clientErrors.push(error));
    try {
      await store.createSearch({ ...SEARCH, platformIds: [...SEARCH.platformIds] });
      await store.addOutcomes('s1', [miss('p1'), miss('p2')]);
      await store.addOutcomes('s1', [miss('p3')]);
      await other.connect();
      await observer.connect();
      const { rows } = await other.query<{ key: string; pid: number }>(
        `SELECT key, pg_backend_pid() AS pid FROM searches WHERE id = 's1'`,
      );
      const { key, pid } = rows[0]!;
      // This session must not be the one PostgreSQL ends: it checks for a deadlock long after the store's
      // (a superuser setting; without it, the store's session still waits first, so checks first).
      await other.query(`SET deadlock_timeout = '30s'`).catch(() => {});
      await other.query('BEGIN');
      await other.query('SELECT 1 FROM outcome_pages WHERE search_key = $1 FOR UPDATE', [key]);

      let storeDone = false;
      // Settles with the store's error, if any (asserted below, after the interleaving).
      const finishing = store.updateSearch('s1', { state: 'completed', finishedAt: 2_000 }).then(
        () => undefined,
        (error: unknown) => error,
      );
      void finishing.then(() => {
        storeDone = true;
      });
      // The store's transaction holds the search's row and waits for the pages this session holds.
      await waitForLockWait(observer, pid, '%FROM outcome_pages%FOR UPDATE%');
      // Closing the cycle: granted only once PostgreSQL has ended the store's transaction.
      await other.query('SELECT 1 FROM searches WHERE key = $1 FOR UPDATE', [key]);
      expect(storeDone).toBe(false);
      await other.query('COMMIT');

      expect(await finishing).toBeUndefined();
      const search = await store.getSearch('s1');
      expect(search?.state).toBe('completed');
      expect(search?.finishedAt).toBe(2_000);
      expect((await store.listOutcomes('s1')).map((s) => [s.seq, s.outcome.platformId])).toEqual([
        [1, 'p1'],
        [2, 'p2'],
        [3, 'p3'],
      ]);
      // Merged into one page by the attempt that committed.
      const pages = await observer.query(`SELECT count(*)::int AS n FROM ${schema}.outcome_pages`);
      expect(pages.rows[0].n).toBe(1);
      expect(clientErrors).toEqual([]);
    } finally {
      await other.end().catch(() => {});
      await observer.end().catch(() => {});
      await store.close();
    }
  }, 30_000);

  it('runs again a batch PostgreSQL ended as a serialization failure: its outcomes stored once', async () => {
    const database = await createTestDatabase('serializable');
    databases.push(database);
    const name = new URL(database.url).pathname.slice(1);
    await adminQuery(`ALTER DATABASE ${name} SET default_transaction_isolation TO 'serializable'`);
    const store = new PostgresStore({ url: database.url });
    const other = new pg.Client({ connectionString: database.url });
    const observer = new pg.Client({ connectionString: database.url });
    const clientErrors: Error[] = [];
    other.on('error', (error) => clientErrors.push(error));
    observer.on('error', (error) => clientErrors.push(error));
    try {
      await store.createSearch({ ...SEARCH, platformIds: [...SEARCH.platformIds] });
      await store.addOutcomes('s1', [miss('p1')]);
      await other.connect();
      await observer.connect();
      const { rows } = await other.query<{ pid: number; isolation: string }>(
        'SELECT pg_backend_pid() AS pid, current_setting($1) AS isolation',
        ['transaction_isolation'],
      );
      expect(rows[0]!.isolation).toBe('serializable');
      await other.query('BEGIN');
      await other.query(`UPDATE searches SET estimated_seconds = 7 WHERE id = 's1'`);

      let storeDone = false;
      const adding = store.addOutcomes('s1', [miss('p2'), miss('p3')]).then(
        (seqs) => ({ seqs }),
        (error: unknown) => ({ error }),
      );
      void adding.then(() => {
        storeDone = true;
      });
      // The store's transaction has its snapshot, and waits for the row this session updated.
      await waitForLockWait(observer, rows[0]!.pid, '%FROM searches WHERE id = $1 FOR UPDATE%');
      expect(storeDone).toBe(false);
      await other.query('COMMIT');

      expect(await adding).toEqual({ seqs: [2, 3] });
      const search = await store.getSearch('s1');
      expect(search?.estimatedSeconds).toBe(7);
      expect((await store.listOutcomes('s1')).map((s) => [s.seq, s.outcome.platformId])).toEqual([
        [1, 'p1'],
        [2, 'p2'],
        [3, 'p3'],
      ]);
      expect(await store.progress('s1')).toMatchObject({ checked: 3, hits: 0 });
      expect(clientErrors).toEqual([]);
    } finally {
      await other.end().catch(() => {});
      await observer.end().catch(() => {});
      await store.close();
    }
  }, 30_000);
});
