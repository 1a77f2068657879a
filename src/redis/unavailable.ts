/**
 * Tells a Redis outage (refused or lost connection, timeout, Redis loading)
 * from a bug, and turns the outage into the one error the API answers with:
 * 503 `store_unavailable` with Retry-After. Pure, except `withDeadline`'s timer.
 */
import { isUserscoutError, UserscoutError } from '../errors.js';
import { STORE_RETRY_AFTER_SECONDS } from '../tuning.js';

const TRANSIENT_REPLY = /^(LOADING|BUSY|MASTERDOWN|READONLY|TRYAGAIN|CLUSTERDOWN|NOREPLICAS)\b/;
const CONNECTION_MESSAGE =
  /Stream isn't writeable|Connection is closed|Command timed out|Redis not ready|connect ETIMEDOUT|Reached the max retries/i;
/** Socket errors of a connection refused, lost or never made: an outage of any store's server. */
export const CONNECTION_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

function isRedisUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (isUserscoutError(error)) return error.code === 'store_unavailable';
  if (error.name === 'ReplyError') return TRANSIENT_REPLY.test(error.message);
  if (error.name === 'MaxRetriesPerRequestError' || error.name === 'ConnectionClosedError') return true;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && CONNECTION_CODES.has(code)) return true;
  return CONNECTION_MESSAGE.test(error.message);
}

export function storeUnavailable(cause?: unknown): UserscoutError {
  return new UserscoutError('store_unavailable', undefined, {
    cause,
    details: { retryAfter: STORE_RETRY_AFTER_SECONDS },
  });
}

/** Rethrows a Redis outage as `store_unavailable`; anything else unchanged. */
export function asStoreError(error: unknown): unknown {
  return isRedisUnavailable(error) && !isUserscoutError(error) ? storeUnavailable(error) : error;
}

/**
 * `work`, or `store_unavailable` when it fails with an outage or takes longer
 * than `timeoutMs` (BullMQ waits for a reconnect instead of failing).
 */
export async function withDeadline<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(storeUnavailable(new Error(`no answer from Redis within ${timeoutMs} ms`))),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([work, deadline]);
  } catch (error) {
    throw asStoreError(error);
  } finally {
    clearTimeout(timer);
  }
}
