/**
 * When a failed webhook delivery is tried again: exponential backoff from
 * `baseMs`, doubling per attempt up to `maxMs`, for `retryForMs` after the
 * delivery was created; then it is `failed`. And what a crash leaves: every
 * attempt is recorded as in flight before it is sent (at least once, the
 * attempt recorded first), so the next claim finds one a dead process left,
 * marks it interrupted and sends again; a delivery interrupted twice is failed,
 * since it may be what ends the process. Pure.
 */
import type { DeliveryAttempt, DeliveryRecord } from '../store/watchlists.js';

export interface RetryPolicy {
  readonly baseMs: number;
  readonly maxMs: number;
  readonly retryForMs: number;
}

/** The wait after the `failures`-th failed attempt in a row (1, 2, 3...). */
export function backoffMs(failures: number, policy: Pick<RetryPolicy, 'baseMs' | 'maxMs'>): number {
  return Math.min(policy.maxMs, policy.baseMs * 2 ** Math.max(0, failures - 1));
}

/** Whether an HTTP answer counts as delivered: any 2xx. */
export function delivered(status: number | undefined): boolean {
  return status !== undefined && status >= 200 && status < 300;
}

/** What an interrupted attempt's log says. */
export const INTERRUPTED_ERROR =
  'interrupted: the service ended during the attempt; the receiver may have it';

/** Interrupted attempts after which a delivery is failed rather than sent again. */
export const MAX_INTERRUPTED = 2;

/**
 * The delivery with an attempt recorded as in flight, saved before the request
 * is sent: due again only when `leaseEndsAt` passes, by which time the attempt has ended or its process has.
 */
export function startAttempt(delivery: DeliveryRecord, at: number, leaseEndsAt: number): DeliveryRecord {
  return {
    ...delivery,
    attempts: [...delivery.attempts, { at, phase: 'in_flight', durationMs: 0 }],
    nextAttemptAt: leaseEndsAt,
  };
}

/**
 * The delivery as a new claim takes it: an attempt left in flight (its process
 * ended) is marked interrupted; the second interruption fails the delivery.
 */
export function resumeDelivery(delivery: DeliveryRecord): DeliveryRecord {
  const last = delivery.attempts.at(-1);
  if (last?.phase !== 'in_flight') return delivery;
  const interrupted: DeliveryAttempt = {
    at: last.at,
    phase: 'interrupted',
    error: INTERRUPTED_ERROR,
    durationMs: 0,
  };
  const attempts = [...delivery.attempts.slice(0, -1), interrupted];
  if (attempts.filter((a) => a.phase === 'interrupted').length < MAX_INTERRUPTED)
    return { ...delivery, attempts };
  const { nextAttemptAt: _next, ...rest } = delivery;
  return { ...rest, attempts, state: 'failed' };
}

/** The delivery after one more attempt (in place of its in-flight record): delivered, pending (with its next time) or failed. */
export function afterAttempt(
  delivery: DeliveryRecord,
  attempt: DeliveryAttempt,
  policy: RetryPolicy,
): DeliveryRecord {
  const before =
    delivery.attempts.at(-1)?.phase === 'in_flight' ? delivery.attempts.slice(0, -1) : delivery.attempts;
  const attempts = [...before, attempt];
  const { nextAttemptAt: _next, ...rest } = delivery;
  if (delivered(attempt.status)) return { ...rest, attempts, state: 'delivered', deliveredAt: attempt.at };
  const failures = attempts.length;
  const next = attempt.at + attempt.durationMs + backoffMs(failures, policy);
  if (next > delivery.createdAt + policy.retryForMs) return { ...rest, attempts, state: 'failed' };
  return { ...rest, attempts, state: 'pending', nextAttemptAt: next };
}
