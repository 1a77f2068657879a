/**
 * Escalation: a check whose answer is a bot defence is tried again through the next
 * costlier transport, within its deadline, while its search has escalations left.
 * The policy (what counts as a defence, which transport is next) is here; the check
 * path asks it once per answer (check.ts).
 */
import { TRANSPORTS, type Transport } from '../catalogue/platform.js';
import type { AnsweredDecision } from './outcome.js';

/** An answer that a costlier transport may get past: a shield's block or challenge page. */
export function isBotDefence(decision: Pick<AnsweredDecision, 'status' | 'reason'>): boolean {
  return decision.status === 'unknown' && decision.reason === 'waf';
}

/** The transport after `transport`, the costlier, that `usable` allows; undefined when none is left. */
export function nextTransport(
  transport: Transport,
  usable: (transport: Transport) => boolean,
): Transport | undefined {
  for (let i = TRANSPORTS.indexOf(transport) + 1; i < TRANSPORTS.length; i++) {
    const next = TRANSPORTS[i]!;
    if (usable(next)) return next;
  }
  return undefined;
}

/** The escalations one search may still make; shared by its checks. */
export class EscalationBudget {
  #left: number;

  constructor(size: number) {
    this.#left = Math.max(0, Math.floor(size));
  }

  /** Takes one escalation; false when the search has none left. */
  take(): boolean {
    if (this.#left <= 0) return false;
    this.#left--;
    return true;
  }

  get left(): number {
    return this.#left;
  }
}
