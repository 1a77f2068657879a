/**
 * Picks the store backend: the one place that constructs one. Callers depend on the Store
 * interface, or on the roles of it they use (roles/), only.
 */
import { ConfigError } from '../errors.js';
import { PostgresStore, type PostgresStoreOptions } from './postgres.js';
import { RedisStore, type RedisStoreOptions } from './redis.js';
import { splitStore } from './split-store.js';
import { SqliteStore } from './sqlite.js';
import type { Store } from './store.js';

export type StoreOptions =
  /** Embedded: one SQLite file (its folders are created), or ':memory:'. */
  | { readonly kind: 'sqlite'; readonly path: string }
  /** Cluster mode: shared by every process; see src/store/redis.ts. */
  | ({ readonly kind: 'redis' } & RedisStoreOptions)
  /** The store of record on PostgreSQL (DATABASE_URL); see src/store/postgres.ts. */
  | ({ readonly kind: 'postgres' } & PostgresStoreOptions)
  /**
   * What must last in `records`, the outcome cache, control records and leases in
   * `coordination` (cluster mode with DATABASE_URL: PostgreSQL and Redis); see split-store.ts.
   */
  | { readonly kind: 'split'; readonly records: StoreOptions; readonly coordination: StoreOptions };

export function createStore(options: StoreOptions): Store {
  switch (options.kind) {
    case 'sqlite':
      return new SqliteStore(options.path);
    case 'redis':
      return new RedisStore(options);
    case 'postgres':
      return new PostgresStore(options);
    case 'split':
      return splitStore(createStore(options.records), createStore(options.coordination));
    default:
      return unknownKind(options);
  }
}

/** Fails to compile when a kind is added to StoreOptions without a case above. */
function unknownKind(options: never): never {
  throw new ConfigError(
    'store kind',
    (options as { kind: unknown }).kind,
    "'sqlite', 'redis', 'postgres' or 'split'",
  );
}
