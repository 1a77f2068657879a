/**
 * The generic cell rate algorithm (GCRA), pure: the token bucket written as one
 * number per key, its theoretical arrival time (TAT). From the TAT, the clock
 * and the budget it says when the next request may be sent, or that none may
 * within the wait allowed. Shared by the process-local budget and mirrored by
 * the cluster's Redis script, so both hand out the same slots.
 */
import type { BudgetLimit } from './rate-budget.js';

/** A slot granted: wait `waitMs` before sending; the key's TAT becomes `tat`. */
export interface GcraSlot {
  readonly waitMs: number;
  readonly tat: number;
}

/** Milliseconds between two requests at the budget's average rate. */
export function emissionIntervalMs(limit: BudgetLimit): number {
  return 1000 / limit.perSecond;
}

/**
 * The next slot of a key whose TAT is `tat` (any value at or before `now`, e.g. 0,
 * for a key never used), at `now`, for a budget of one request every `intervalMs`
 * with up to `burst` at once. Undefined when the slot is more than `maxWaitMs`
 * away; the TAT is then unchanged (nothing is reserved).
 */
export function gcraReserve(
  tat: number,
  now: number,
  intervalMs: number,
  burst: number,
  maxWaitMs: number,
): GcraSlot | undefined {
  // The bucket is full when TAT <= now; each request moves TAT one interval on,
  // and a request may go when TAT is no more than (burst - 1) intervals ahead.
  const tolerance = (burst - 1) * intervalMs;
  const waitMs = Math.max(0, tat - tolerance - now);
  if (waitMs > maxWaitMs) return undefined;
  return { waitMs, tat: Math.max(tat, now) + intervalMs };
}

/**
 * Which of several keys' slots to take: the soonest; among equally soon ones a key
 * `own` names (a search thread's own identities, src/runner/shared-rate-budget.ts),
 * then the least used (lowest TAT), so idle identities share the load. -1 when none.
 */
export function earliestSlot(
  slots: readonly (GcraSlot | undefined)[],
  own: (index: number) => boolean = () => false,
): number {
  let best = -1;
  let bestOwn = false;
  for (let i = 0; i < slots.length; i++) {
    const slot = slots[i];
    if (!slot) continue;
    const mine = own(i);
    const chosen = best >= 0 ? slots[best] : undefined;
    if (
      !chosen ||
      slot.waitMs < chosen.waitMs ||
      (slot.waitMs === chosen.waitMs && mine && !bestOwn) ||
      (slot.waitMs === chosen.waitMs && mine === bestOwn && slot.tat < chosen.tat)
    ) {
      best = i;
      bestOwn = mine;
    }
  }
  return best;
}
