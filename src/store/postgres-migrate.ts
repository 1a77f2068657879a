/**
 * The PostgreSQL schema, versioned by node-pg-migrate: SQL files in
 * migrations/postgres, applied in order and recorded in the `pgmigrations`
 * table. `userscout migrate` runs this, and so does every process before its
 * store's first query. Several processes starting at once are safe: each
 * waits for node-pg-migrate's advisory lock, then finds nothing left to do.
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

/** From src/store or dist/store: the repository's migrations/postgres. */
export const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations/postgres', import.meta.url));

/** A migration may rewrite a table: longer than a request's statement timeout. */
const MIGRATION_STATEMENT_TIMEOUT_MS = 10 * 60_000;

export interface MigrateOptions {
  readonly url: string;
  /** Schema of the tables (created when missing). @default 'public' */
  readonly schema?: string;
  /** Longest wait for the connection, ms. @default 5000 */
  readonly connectTimeoutMs?: number;
  readonly log?: (message: string) => void;
}

/** Applies every migration not applied yet; returns the names of those it applied. */
export async function migratePostgres(options: MigrateOptions): Promise<string[]> {
  const { runner } = await import('node-pg-migrate');
  const client = new pg.Client({
    connectionString: options.url,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
    statement_timeout: MIGRATION_STATEMENT_TIMEOUT_MS,
  });
  // A connection lost while idle reports here; the next query fails with it.
  client.on('error', () => {});
  await client.connect();
  try {
    const schema = options.schema ?? 'public';
    // Every process opens with this: when the record holds exactly the files, the runner (its
    // lock, its reads) would find nothing to do.
    if (await upToDate(client, schema)) return [];
    const applied = await runner({
      dbClient: client,
      dir: MIGRATIONS_DIR,
      migrationsTable: 'pgmigrations',
      schema,
      createSchema: schema !== 'public',
      direction: 'up',
      checkOrder: true,
      // Another process migrating: wait for it rather than fail.
      advisoryLockMode: 'wait',
      logger: quietLogger(options.log),
    });
    return applied.map((m) => m.name);
  } finally {
    await client.end().catch(() => {});
  }
}

/** Whether the schema's migration record names exactly the migration files, no more, no fewer. */
async function upToDate(client: pg.Client, schema: string): Promise<boolean> {
  const files = readdirSync(MIGRATIONS_DIR)
    .filter((file) => /\.(?:sql|js|cjs|mjs|ts)$/.test(file))
    .map((file) => file.replace(/\.[^.]+$/, ''));
  try {
    const { rows } = await client.query<{ name: string }>(
      `SELECT name FROM ${client.escapeIdentifier(schema)}.pgmigrations`,
    );
    const recorded = new Set(rows.map((row) => row.name));
    return recorded.size === files.length && files.every((file) => recorded.has(file));
  } catch (error) {
    // No schema or no record yet (42P01: undefined table, 3F000: undefined schema): the runner creates them.
    const code = (error as { code?: string }).code;
    if (code === '42P01' || code === '3F000') return false;
    throw error;
  }
}

function quietLogger(log: ((message: string) => void) | undefined) {
  const say = (message: string) => log?.(message);
  return { debug: () => {}, info: say, warn: say, error: say };
}
