/**
 * How long to wait before the next attempt. Pure: the clock and the random
 * source are arguments.
 */
import type { RetryPolicy } from './retry.js';

/** Parses Retry-After (seconds or an HTTP date) into ms from `nowMs`; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}

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
