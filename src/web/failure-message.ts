/**
 * What the page says about a failed call, and whether a retry button makes
 * sense. Pure functions; the clock and the time format are passed in.
 */
import type { ApiFailure } from './api-failure.js';
import { formatDuration } from './progress.js';

/** Failures that may pass by themselves; the others need the person to change something. */
export function isRetryable(failure: ApiFailure): boolean {
  return failure.kind === 'network' || failure.kind === 'server' || failure.kind === 'unavailable';
}

/** The message without its own "Retry in …" clause; a following ", or use …" advice is kept as a sentence. */
export function withoutRetryHint(message: string): string {
  return message
    .replace(/\s*Retry in [^,.]*(?:, or ([^.]*))?\./i, (_all, advice?: string) =>
      advice ? ` ${advice.charAt(0).toUpperCase()}${advice.slice(1)}.` : '',
    )
    .trim();
}

export function failureMessage(
  failure: ApiFailure,
  now: number,
  timeOf: (ms: number) => string = (ms) => new Date(ms).toLocaleTimeString(),
): string {
  switch (failure.kind) {
    case 'rate_limited': {
      // One time, from one reading: the service's own "Retry in 14 minutes" would be a second, rounded one.
      const wait = Math.max(1, Math.ceil((failure.retryAt - now) / 1000));
      return `${withoutRetryHint(failure.message)} You can search again at ${timeOf(failure.retryAt)} (in ${formatDuration(wait)}).`;
    }
    case 'not_found':
      return 'No search has this id: it may have expired (searches are kept for a few days) or the link is mistyped. Start a new search above.';
    case 'invalid':
      return failure.code === 'invalid_id'
        ? 'This link does not hold a valid search id. Start a new search above.'
        : failure.message;
    case 'unauthorized':
      return `${failure.message}. Open “Professional API key” to fix or forget it.`;
    case 'unavailable':
      return `${failure.message}${failure.retryAt ? ` Try again at ${timeOf(failure.retryAt)}.` : ''}`;
    case 'server':
      return `The service failed (${failure.status}): ${failure.message}`;
    case 'network':
      return `Network problem: ${failure.message}. Check your connection, then retry.`;
  }
}
