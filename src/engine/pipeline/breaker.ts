/**
 * The origin breaker (origin-breaker.ts) around a check: an origin that stopped answering
 * is not waited for, not even for a send time (`refuseOpen`, before the booking), and a
 * check at its send time is admitted, then its end recorded (`guardSend`, around the send).
 */
import { type BreakerResult, breakerResult, type OriginBreaker } from '../origin-breaker.js';
import type { Wrapper } from './dispatch.js';
import { unresponsive } from './unsent.js';

/** Refuses a check to an origin whose breaker is open, before it books a send time. */
export function refuseOpen(breaker: OriginBreaker): Wrapper {
  return (next) => async (check) => {
    const open = breaker.refusal(check.request.origin);
    return open ? { outcome: unresponsive(check.platform, check.profileUrl, open) } : next(check);
  };
}

/** At its send time: admitted by the breaker (or refused), and how it ended recorded once it has. */
export function guardSend(breaker: OriginBreaker): Wrapper {
  return (next) => async (check) => {
    const origin = check.request.origin;
    const refused = breaker.admit(origin);
    if (refused) return { outcome: unresponsive(check.platform, check.profileUrl, refused) };
    let ended: BreakerResult = 'other';
    try {
      const sent = await next(check);
      // A control may turn a hit into an unknown: either is an answer to the breaker.
      ended = breakerResult(sent.outcome);
      return sent;
    } finally {
      breaker.record(origin, ended);
    }
  };
}
