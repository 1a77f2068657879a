/**
 * `userscout migrate`: applies the PostgreSQL migrations not applied yet
 * (DATABASE_URL), for a deployment that migrates before it rolls out. Safe
 * beside running processes: they and it take the same advisory lock.
 */
import { loadConfig } from '../config.js';
import { ConfigError } from '../errors.js';
import { migratePostgres } from '../store/postgres-migrate.js';
import { asPostgresStoreError } from '../store/postgres-unavailable.js';
import type { Io } from './io.js';

export async function runMigrate(io: Pick<Io, 'err'>): Promise<void> {
  const config = loadConfig();
  if (!config.databaseUrl)
    throw new ConfigError('databaseUrl (DATABASE_URL)', '', 'a postgres:// URL to migrate');
  let applied: string[];
  try {
    applied = await migratePostgres({ url: config.databaseUrl, log: io.err });
  } catch (error) {
    throw asPostgresStoreError(error);
  }
  io.err(applied.length === 0 ? 'schema up to date' : `applied ${applied.join(', ')}`);
}
