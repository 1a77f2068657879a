/**
 * The PostgreSQL vocabulary under concurrent interning, on a real server: a search's batch
 * writes and its cache writes intern the same new texts at once (in another order each), as
 * other processes do. Every one must get the same ids, and none may fail.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratePostgres } from '../../src/store/postgres-migrate.js';
import { PostgresVocabulary, type Query } from '../../src/store/postgres-vocabulary.js';
import { createTestDatabase } from './postgres-support.js';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;
/** Errors of idle connections (the pool emits them; without a listener they would end the process). */
const idleErrors: Error[] = [];

beforeAll(async () => {
  database = await createTestDatabase('vocabulary');
  await migratePostgres({ url: database.url });
  pool = new pg.Pool({ connectionString: database.url, max: 16 });
  pool.on('error', (error) => idleErrors.push(error));
}, 30_000);

afterAll(async () => {
  // pool.end() resolves once its clients are told to end, not when their server processes have
  // gone: the drop (WITH FORCE) may still terminate one, which then reports an error to the pool.
  // None may be reported while the test runs (asserted there); these are ignored.
  await pool?.end();
  await database?.drop();
}, 30_000);

/** A seeded shuffle: each writer its own order. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let state = seed;
  for (let i = out.length - 1; i > 0; i--) {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

describe('PostgresVocabulary', () => {
  it('interns the same new texts from many writers at once, in different orders, without a deadlock', async () => {
    const query: Query = async (sql, params) => pool.query(sql, params);
    for (let round = 0; round < 3; round++) {
      const texts = Array.from({ length: 400 }, (_, i) => `round ${round} text ${i}`);
      const writers = Array.from({ length: 12 }, () => new PostgresVocabulary(query));
      const results = await Promise.allSettled(
        writers.map((w, i) => w.intern(shuffled(texts, i + 1 + round * 100))),
      );
      expect(
        results
          .filter((r) => r.status === 'rejected')
          .map((r) => String((r as PromiseRejectedResult).reason)),
      ).toEqual([]);
      const ids = writers.map((w) => texts.map((t) => w.idOf(t)));
      for (const other of ids.slice(1)) expect(other).toEqual(ids[0]);
      expect(new Set(ids[0]).size).toBe(texts.length);
    }
    expect(idleErrors.map(String)).toEqual([]);
  }, 60_000);
});
