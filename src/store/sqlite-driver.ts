/**
 * The part of better-sqlite3 the SQLite store uses (the package ships no types and
 * @types/better-sqlite3 is not installed), and `openDatabase`, which opens a
 * connection whose native objects the garbage collector never frees.
 *
 * Why: better-sqlite3 12 wraps connections and statements in `node::ObjectWrap`. Built
 * against Node 24's headers, its destructor calls `RemoveEnvironmentCleanupHook`, which
 * aborts the whole process (`Assertion failed: (env) != nullptr`) when the collector
 * frees the object while no JavaScript context is entered, e.g. in a GC task. Node 20
 * and 22 are not affected. So nothing of a connection is ever left to the collector:
 * it makes no throwaway statements (pragmas go through `exec`; `pragma()` would prepare
 * one per call), and the connection and every statement prepared through it are held
 * for the life of the process or thread, whose teardown frees them safely. A closed
 * connection has released its SQLite memory; what stays is a few small wrappers, and a
 * process opens one or two connections. better-sqlite3 13 (N-API) fixes the cause but
 * requires Node 22.
 */
import { createRequire } from 'node:module';

export interface Statement {
  run(...params: unknown[]): { changes: number };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

export interface Transaction<A extends unknown[], R> {
  (...args: A): R;
  /** BEGIN IMMEDIATE: takes the write lock at once, so two processes never deadlock upgrading a read lock. */
  immediate(...args: A): R;
}

export interface Database {
  readonly open: boolean;
  /** The statement is kept for the life of the process: prepare once, never per call. */
  prepare(sql: string): Statement;
  exec(sql: string): void;
  transaction<A extends unknown[], R>(fn: (...args: A) => R): Transaction<A, R>;
  close(): void;
}

const BetterSqlite3 = createRequire(import.meta.url)('better-sqlite3') as new (path: string) => Database;

/** Every connection and statement opened here (see the note at the top). */
const lifelong = new Set<object>();

/** Opens `path` (a file, or ':memory:'); the connection is never garbage-collected. */
export function openDatabase(path: string): Database {
  const db = new BetterSqlite3(path);
  lifelong.add(db);
  return {
    get open() {
      return db.open;
    },
    prepare(sql) {
      const statement = db.prepare(sql);
      lifelong.add(statement);
      return statement;
    },
    exec: (sql) => db.exec(sql),
    // better-sqlite3 prepares a transaction's BEGIN/COMMIT once per connection and keeps them with it.
    transaction: (fn) => db.transaction(fn),
    close: () => db.close(),
  };
}
