/**
 * Where the answer path meets the learning of sites' limits: an answer that may speak of
 * a rate limit (a 429, a 503, any with Retry-After or a RateLimit policy) has its headers
 * read once, for the learner (pipeline/site-limits.ts) and for the wait the retry honours.
 */
import { type RateSignals, rateSignals } from '../schedule/rate-signals.js';
import type { ResponseView } from './verdict/response-view.js';

/** What `view` says of its site's limit, or undefined when it is not an answer that may say anything. */
export function answerSignals(view: ResponseView): RateSignals | undefined {
  const headers = view.headers;
  if (
    view.status !== 429 &&
    view.status !== 503 &&
    headers['retry-after'] === undefined &&
    headers['ratelimit-policy'] === undefined
  )
    return undefined;
  return rateSignals(headers, Date.now());
}
