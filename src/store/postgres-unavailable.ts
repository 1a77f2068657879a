/**
 * Tells a PostgreSQL outage (refused or lost connection, a timeout, the server
 * starting or shutting down, no connection slot) from a bug. The store turns
 * an outage into 503 `store_unavailable` with Retry-After, as for Redis. Pure.
 */
import { isUserscoutError } from '../errors.js';
import { CONNECTION_CODES, storeUnavailable } from '../redis/unavailable.js';

/**
 * SQLSTATEs of an outage: class 08 (connection exception), 57014 (a statement
 * cancelled by statement_timeout), 57P01-57P05 (shutdown, starting up, idle
 * too long), 53300 (too many connections).
 */
const OUTAGE_SQLSTATE = /^(08...|57014|57P0[1-5]|53300)$/;

/** pg's own messages for a connection it lost, never got, or gave up waiting for. */
const CONNECTION_MESSAGE =
  /Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error|Connection ended unexpectedly|the database system is (starting up|shutting down)/i;

export function isPostgresUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (isUserscoutError(error)) return error.code === 'store_unavailable';
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (CONNECTION_CODES.has(code) || OUTAGE_SQLSTATE.test(code))) return true;
  if (error instanceof AggregateError) return error.errors.some(isPostgresUnavailable);
  return CONNECTION_MESSAGE.test(error.message);
}

/** Rethrows a PostgreSQL outage as `store_unavailable`; anything else unchanged. */
export function asPostgresStoreError(error: unknown): unknown {
  return isPostgresUnavailable(error) && !isUserscoutError(error) ? storeUnavailable(error) : error;
}

/** A write refused by a unique constraint (SQLSTATE 23505): a duplicate, not an outage. */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown }).code === '23505';
}
