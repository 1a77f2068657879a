/**
 * Identical checks at the same time (one platform, one name as its request carries it) are
 * sent once: in this process (`sendOnce`, checks-in-flight.ts) and, in a cluster, once among
 * its processes (`sendOnceAcross`, shared-checks.ts). A check that joins another books
 * nothing of its own, and says so (`joined`), so its search's count of requests drops it.
 */
import type { ChecksInFlight } from '../checks-in-flight.js';
import type { SharedChecks } from '../shared-checks.js';
import type { Sent, Wrapper } from './dispatch.js';

/**
 * Joins an identical check in flight in this process, or sends this one for every caller
 * to share. A caller leaves through its `cancel`; the check's own goes on to its booking.
 */
export function sendOnce(inFlight: ChecksInFlight<Sent>): Wrapper {
  return (next) => (check) => {
    const key = `${check.platform.id}\u0000${check.request.username}`;
    const joined = inFlight.join(key, check.cancel);
    if (joined) {
      check.joined?.();
      return joined;
    }
    return inFlight.start(key, check.cancel, (cancel) => next({ ...check, cancel }));
  };
}

/** Takes the outcome of the identical check another process is making, or makes it and shares it. */
export function sendOnceAcross(shared: SharedChecks): Wrapper {
  return (next) => async (check) => {
    // A name that was built has a URI encoding (a lone surrogate is refused before).
    const key = `${check.platform.id}:${encodeURIComponent(check.request.username)}`;
    const outcome = await shared.run(key, async () => (await next(check)).outcome, check.joined);
    return { outcome };
  };
}
