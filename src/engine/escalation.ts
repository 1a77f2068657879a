/**
 * Escalation: a check whose answer is a bot defence is tried again through the next
 * costlier transport, within its deadline, while its search has escalations left.
 * The policy (what counts as a defence, which transport is next) is here; the check
 * path asks it once per answer (pipeline/transport-choice.ts).
 */
import { type Shield, TRANSPORTS, type Transport } from '../catalogue/platform.js';
import { describeTransportError, handshakeRefused } from './transport/transport-error.js';
import { shieldRule } from './verdict/classify.js';
import type { AnsweredDecision } from './verdict/outcome.js';
import type { ResponseView } from './verdict/response-view.js';
import { passesUnattended } from './verdict/shields.js';

/** An answer that a costlier transport may get past: a shield's block or challenge page, or a refused handshake. */
export function isBotDefence(decision: Pick<AnsweredDecision, 'status' | 'reason'>): boolean {
  return decision.status === 'unknown' && decision.reason === 'waf';
}

/**
 * Whether an answer is a challenge its page's own script passes unattended (shields.ts
 * `passesUnattended`): a browser that read it waits a while for the page to move on.
 */
export function passesOnItsOwn(
  decision: Pick<AnsweredDecision, 'status' | 'reason'>,
  view: ResponseView,
  shields: readonly Shield[],
): boolean {
  return isBotDefence(decision) && passesUnattended(shields, view);
}

/** What `evidence.rule` calls a TLS handshake the server refused, as it calls a shield by its name. */
export const HANDSHAKE_REFUSED_RULE = shieldRule('tls-handshake-refused');

/**
 * A request that got no answer because the server refused our TLS handshake
 * (transport-error.ts), read as a shield's block page is: `unknown`/`waf`, the refusal named,
 * so a costlier transport (another ClientHello) may get past it. Undefined for any other failure.
 */
export function refusedHandshake(error: unknown): AnsweredDecision | undefined {
  if (!handshakeRefused(error)) return undefined;
  const why = describeTransportError(error).replace(/\s+/g, ' ').trim();
  return { status: 'unknown', reason: 'waf', rule: `${HANDSHAKE_REFUSED_RULE} (${why})` };
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

/** A costlier transport a check's defence needs but this process lacks, and why it lacks it. */
export interface LackingTransport {
  readonly transport: Transport;
  readonly why: string;
}

/**
 * The transport a defence still standing at `from` would be tried through next (the
 * next costlier that `fits` the check), when this process lacks it (`missing` says why);
 * undefined when it is at hand or none fits.
 */
export function lackingTransport(
  from: Transport,
  fits: (transport: Transport) => boolean,
  missing: (transport: Transport) => string | undefined,
): LackingTransport | undefined {
  const wanted = nextTransport(from, fits);
  const why = wanted === undefined ? undefined : missing(wanted);
  return wanted !== undefined && why !== undefined ? { transport: wanted, why } : undefined;
}

/**
 * A defence that every transport at hand read, and only a missing browser could be tried
 * past: not asked of the browser, so `needs_browser`, the defence still named in its rule.
 */
export function lackingVerdict(verdict: AnsweredDecision, lacking: LackingTransport): AnsweredDecision {
  return {
    ...verdict,
    reason: 'needs_browser',
    rule: `${verdict.rule}; not tried through ${lacking.transport}: ${lacking.why}`,
  };
}

/** The escalations one search may still make; shared by its checks. */
export class EscalationBudget {
  #left: number;
  readonly #taken: (() => void) | undefined;
  /** Escalations the search was given. */
  readonly size: number;

  /** `taken`: told of each escalation taken (the process's count of them). */
  constructor(size: number, taken?: () => void) {
    this.size = Math.max(0, Math.floor(size));
    this.#left = this.size;
    this.#taken = taken;
  }

  /** Takes one escalation; false when the search has none left. */
  take(): boolean {
    if (this.#left <= 0) return false;
    this.#left--;
    this.#taken?.();
    return true;
  }

  get left(): number {
    return this.#left;
  }
}

/** Of two transports, the costlier. */
function costlier(a: Transport, b: Transport): Transport {
  return TRANSPORTS.indexOf(b) > TRANSPORTS.indexOf(a) ? b : a;
}

/**
 * Where a check starts: its platform's transport, or the one its site was last found to
 * need (transport-book.ts) when that is costlier. Starting there spends no escalation.
 */
export function startTransport(named: Transport, remembered: Transport | undefined): Transport {
  return remembered === undefined ? named : costlier(named, remembered);
}

/**
 * What a check teaches of its site: the transport an escalation got a real answer through,
 * or undefined when it answered where it started or its last answer is still a defence.
 */
export function transportLearned(
  started: Transport,
  answered: Transport,
  decision: Pick<AnsweredDecision, 'status' | 'reason'>,
): Transport | undefined {
  return answered !== started && !isBotDefence(decision) ? answered : undefined;
}
