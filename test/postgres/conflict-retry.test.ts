/**
 * A real deadlock on the PostgreSQL store, on a real server: another session locks the pages
 * of a search, the store ends the search (its transaction locks the search's row, then waits
 * for the pages), and the other session then asks for the search's row. PostgreSQL ends one of
 * the two with 40P01; the store's is made the one, and must be run again, not fail the search.
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { Outcome } from '../../src/engine/outcome.js';
import { PostgresStore } from '../../src/store/postgres.js';
import { dropSchema, TEST_DATABASE_URL, uniqueSchema } from './postgres-support.js';

const schemas: string[] = [];

afterAll(async () => {
  for (const schema of schemas) await dropSchema(schema);
});

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
      await store.createSearch({
        id: 's1',
        username: 'alice',
        state: 'running',
        tier: 'free',
        client: 'ip:203.0.113.7',
        platformIds: ['p1', 'p2', 'p3'],
        estimatedSeconds: 3,
        createdAt: 1_000,
      });
      await store.addOutcomes('s1', [miss('p1'), miss('p2')]);
      await store.addOutcomes('s1', [miss('p3')]);
      await other.connect();
      await observer.connect();
      const { rows } = await other.query<{ key: string; pid: number }>(
        `SELECT key, pg_backend_pid() AS pid FROM searches WHERE id = 's1'`,
      );
      const { key, pid } = rows[0]!;
      await other.query('BEGIN');
      // This session must not be the one PostgreSQL ends: it checks for a deadlock long after the store's.
      await other.query(`SET LOCAL deadlock_timeout = '30s'`);
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
});
