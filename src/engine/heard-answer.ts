/**
 * Where the answer path meets the learning of sites' limits: an answer that may speak of
 * a rate limit (a 429, a 503, any with Retry-After or a RateLimit policy) has its headers
 * read once, told to the learner, and gives the wait the site asked for, which the retry honours.
 */
import { type RateSignals, rateSignals } from '../schedule/rate-signals.js';
import type { ResponseView } from './verdict/response-view.js';

/** Told of an answer's status and rate signals, for a request sent at `sentAt` (wall-clock ms). */
export type HeardAnswer = (status: number, signals: RateSignals, sentAt: number) => void;

/** The wait `view`'s site asked for (ms), if any; `heard` is told of any answer that may speak of a limit. */
export function heardAnswer(view: ResponseView, sentAt: number, heard: HeardAnswer): number | undefined {
  const headers = view.headers;
  if (
    view.status !== 429 &&
    view.status !== 503 &&
    headers['retry-after'] === undefined &&
    headers['ratelimit-policy'] === undefined
  )
    return undefined;
  const signals = rateSignals(headers, Date.now());
  heard(view.status, signals, sentAt);
  return signals.waitMs;
}
