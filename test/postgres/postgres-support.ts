/**
 * The PostgreSQL the tests use (CI starts one on 127.0.0.1:5432), a schema
 * unique to each test, and dropping it after.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

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
