/**
 * How long to wait before the next attempt. Pure: the clock and the random
 * source are arguments.
 */
import { parseRetryAfter } from '../schedule/rate-signals.js';
import type { RetryPolicy } from './retry.js';

export { parseRetryAfter };

/**
 * Retry-After when the server gave one (capped), otherwise exponential backoff
 * with jitter in [50%, 100%] of the step, so that many checks do not retry in step.
 */
export function retryDelay(
  attempt: number,
  retryAfter: string | undefined,
  policy: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>,
  nowMs: number,
  random: number,
): number {
  const asked = parseRetryAfter(retryAfter, nowMs);
  if (asked !== undefined) return Math.min(asked, policy.maxDelayMs);
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.round(step * (0.5 + random / 2));
}
