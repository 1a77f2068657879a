/**
 * The PostgreSQL the tests use (CI starts one on 127.0.0.1:5432), a schema
 * unique to each test, and dropping it after.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Outcome } from '../../src/engine/verdict/outcome.js';

export const TEST_DATABASE_URL =
  process.env.USERSCOUT_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export function uniqueSchema(label: string): string {
  return `ustest_${label}_${process.pid}_${randomBytes(4).toString('hex')}`;
}

/** Runs one statement on a connection of its own; fails with a clear message when no PostgreSQL answers. */
export async function adminQuery(sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(
      `These tests need PostgreSQL at ${TEST_DATABASE_URL} (.ci/run starts one): ${(error as Error).message}`,
    );
  }
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

export async function dropSchema(schema: string): Promise<void> {
  await adminQuery(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
}

/** A database of its own (for processes that take only DATABASE_URL); `drop` removes it. */
export async function createTestDatabase(label: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = uniqueSchema(label);
  await adminQuery(`CREATE DATABASE ${name}`);
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    drop: async () => {
      await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

/** A plain miss of `alice` on a platform (a 404), as the store tests write them. */
export function missOf(platformId: string): Outcome {
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

/**
 * Schemas migrated once and emptied between tests: a contract test gets a store
 * on a schema with no rows, as on a new one, without paying for every migration
 * again. `take` gives one (undefined: make a new one); `give` empties it (every
 * table but the migration record, sequences restarted) for the next test.
 */
export class SchemaShelf {
  readonly #spare: string[] = [];
  readonly #all = new Set<string>();

  take(label: string): { schema: string; fresh: boolean } {
    const spare = this.#spare.pop();
    if (spare) return { schema: spare, fresh: false };
    const schema = uniqueSchema(label);
    this.#all.add(schema);
    return { schema, fresh: true };
  }

  async give(schema: string): Promise<void> {
    const tables = await adminQuery(
      `SELECT quote_ident(tablename) AS t FROM pg_tables WHERE schemaname = '${schema}' AND tablename <> 'pgmigrations'`,
    );
    const names = tables.rows.map((r: { t: string }) => `${schema}.${r.t}`);
    if (names.length > 0) await adminQuery(`TRUNCATE ${names.join(', ')} RESTART IDENTITY CASCADE`);
    this.#spare.push(schema);
  }

  async dropAll(): Promise<void> {
    for (const schema of this.#all) await dropSchema(schema);
    this.#all.clear();
    this.#spare.length = 0;
  }
}
