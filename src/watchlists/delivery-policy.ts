/**
 * When a failed webhook delivery is tried again: exponential backoff from
 * `baseMs`, doubling per attempt up to `maxMs`, for `retryForMs` after the
 * delivery was created; then it is `failed`. Pure.
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

/** The delivery after one more attempt: delivered, pending (with its next time) or failed. */
export function afterAttempt(
  delivery: DeliveryRecord,
  attempt: DeliveryAttempt,
  policy: RetryPolicy,
): DeliveryRecord {
  const attempts = [...delivery.attempts, attempt];
  const { nextAttemptAt: _next, ...rest } = delivery;
  if (delivered(attempt.status)) return { ...rest, attempts, state: 'delivered', deliveredAt: attempt.at };
  const failures = attempts.length;
  const next = attempt.at + attempt.durationMs + backoffMs(failures, policy);
  if (next > delivery.createdAt + policy.retryForMs) return { ...rest, attempts, state: 'failed' };
  return { ...rest, attempts, state: 'pending', nextAttemptAt: next };
}
