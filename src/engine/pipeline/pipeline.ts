/**
 * The check pipeline: the path of one platform and one username, built once by the engine
 * from the parts it has (a part it lacks is a step it leaves out, not a flag each check tests).
 * A check passes, in order:
 *
 * 0. Built (pure): its request, or `invalid` when the name cannot be sent there.
 * 1. Sent once (send-once.ts): an identical check in flight, in this process or in another of
 *    the cluster, is joined, its outcome shared, instead of sending this one.
 * 2. Session gate (session-gate.ts): a platform that needs a session, with none: not sent.
 * 3. Breaker refusal (breaker.ts): an origin that stopped answering is not even booked.
 * 4. Schedule (schedule.ts): its send time booked; it goes on at that time through the identity
 *    the time came through, or reads `budget_exhausted` when none came within its deadline.
 * 5. Breaker guard (breaker.ts): admitted at its send time, its end recorded once it has one.
 * 6. Controls (controls.ts): a hit vetted by its platform's control, which goes through the
 *    steps below as a check does (the eager control alongside it).
 * 7. Transport choice (transport-choice.ts): the transport it starts at; one this process lacks: not sent.
 * 8. Retries (retries.ts): its deadline starts, and its request is sent, and sent again while
 *    worth it, each retry at a send time of its own. From here each step is one request's:
 * 9. Site-limit learning (site-limits.ts): the answer's rate signals taught to the site's limit.
 * 10. Escalation (transport-choice.ts): a bot defence asked again through the next transport.
 * 11. Core (exchange.ts): the exchange, its answer classified as it is read.
 *
 * A check's steps share the `Dispatch` shape and a request's the `Send` shape (dispatch.ts);
 * the retries are the one step between the two, as a retry is where a check becomes requests.
 */
import type { Platform, Shield } from '../../catalogue/platform.js';
import { budgetOrigin } from '../../schedule/politeness-bound.js';
import type { BudgetLimit } from '../../schedule/rate-budget.js';
import type { Cancellation, Scheduler } from '../../schedule/scheduler.js';
import type { SiteLimitBook } from '../../schedule/site-limit-book.js';
import type { ChecksInFlight } from '../checks-in-flight.js';
import type { ControlGuard } from '../controls/control-guard.js';
import type { EscalationBudget } from '../escalation.js';
import type { OriginBreaker } from '../origin-breaker.js';
import type { RetryPolicy } from '../retry.js';
import type { SharedChecks } from '../shared-checks.js';
import type { Transports } from '../transport/transports.js';
import type { TransportBook } from '../transport-book.js';
import { invalidOutcome, type Outcome } from '../verdict/outcome.js';
import { buildRequest } from '../verdict/request.js';
import type { Sessions } from '../verdict/session.js';
import { guardSend, refuseOpen } from './breaker.js';
import { controls } from './controls.js';
import {
  type BookCheck,
  compose,
  type Dispatch,
  type SendWrapper,
  type Sent,
  type Wrapper,
} from './dispatch.js';
import { exchangeCore } from './exchange.js';
import { retried } from './retries.js';
import { type EgressRoute, schedule } from './schedule.js';
import { sendOnce, sendOnceAcross } from './send-once.js';
import { sessionGate } from './session-gate.js';
import { learnSiteLimits } from './site-limits.js';
import { chooseTransport, escalate } from './transport-choice.js';

/** What the engine has to build the pipeline from; an absent part leaves its step out. */
export interface PipelineParts {
  /** The checks in flight in this process, where an identical check joins one (checks-in-flight.ts). */
  readonly inFlight: ChecksInFlight<Sent>;
  /** Identical checks shared with the cluster's other processes; absent: this process's alone. */
  readonly sharedChecks?: SharedChecks | undefined;
  /** The egress identities, at least one, in the scheduler's order. */
  readonly egress: readonly EgressRoute[];
  /** When each request goes (src/schedule/scheduler.ts). */
  readonly scheduler: Scheduler;
  /** Request-rate budget of an origin through one identity, unless its platform sets its own. */
  readonly budget: BudgetLimit;
  readonly shields: readonly Shield[];
  readonly baseHeaders: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly bodyCapBytes: number;
  readonly maxRedirects: number;
  /** false: a check that leaves no other check to its origin closes its connection after the answer. */
  readonly keepIdleConnections: boolean;
  readonly retry: RetryPolicy;
  readonly now: () => number;
  readonly random: () => number;
  /** Whether searches may escalate past bot defences at all; false leaves the escalation step out. */
  readonly escalates: boolean;
  /** The operator's sessions by platform (session.ts); absent: none. */
  readonly sessions?: Sessions | undefined;
  /** Stops sending to origins that stopped answering; absent: always send. */
  readonly breaker?: OriginBreaker | undefined;
  /** Checks a control name when a check reads `hit`; absent: hits stand as read. */
  readonly controls?: ControlGuard | undefined;
  /** Learns sites' limits from their rate-limited answers; absent: the catalogue's alone. */
  readonly siteLimits?: SiteLimitBook | undefined;
  /** The transports a platform may name other than `http`; absent: every check goes by http. */
  readonly transports?: Transports | undefined;
  /** Which transport sites were found to need; absent: each check starts at its platform's. */
  readonly transportBook?: TransportBook | undefined;
}

export interface CheckOptions {
  /** Higher first (a professional search's). @default 0 */
  readonly priority?: number;
  /** Where its send time is booked. @default the scheduler, outside any search */
  readonly book?: BookCheck | undefined;
  /**
   * Filled in with how its caller stops waiting (its search ended): the check is cancelled while
   * it waits for its send time if no other caller waits for it. Absent: the caller never leaves.
   */
  readonly cancel?: Cancellation | undefined;
  /** Told when the check joins an identical one already made instead of booking its own. */
  readonly joined?: (() => void) | undefined;
  /** Its search's escalations to costlier transports (escalation.ts); absent: none. */
  readonly escalations?: EscalationBudget | undefined;
}

/**
 * Checks one platform for one username. Never rejects for a platform's failure; only a
 * cancelled search or `signal` (the engine closing) rejects.
 */
export type CheckPlatform = (
  platform: Platform,
  username: string,
  signal?: AbortSignal,
  options?: CheckOptions,
) => Promise<Outcome>;

/** The steps of a check, outermost first, from what `parts` has. */
export function checkSteps(parts: PipelineParts): Wrapper[] {
  const { breaker, transports, transportBook: book } = parts;
  return [
    sendOnce(parts.inFlight),
    ...(parts.sharedChecks ? [sendOnceAcross(parts.sharedChecks)] : []),
    sessionGate,
    ...(breaker ? [refuseOpen(breaker)] : []),
    schedule(parts),
    ...(breaker ? [guardSend(breaker)] : []),
    ...(parts.controls
      ? [controls({ guard: parts.controls, baseHeaders: parts.baseHeaders, timeoutMs: parts.timeoutMs })]
      : []),
    ...(transports || book ? [chooseTransport({ transports, book, timeoutMs: parts.timeoutMs })] : []),
  ];
}

/** The steps of each request, outermost first, from what `parts` has. */
export function sendSteps(parts: PipelineParts): SendWrapper[] {
  const { transports, transportBook: book } = parts;
  return [
    ...(parts.siteLimits ? [learnSiteLimits(parts.siteLimits)] : []),
    ...(parts.escalates ? [escalate({ transports, book })] : []),
  ];
}

/** The pipeline, built once: every check of the engine goes through it. */
export function checkPipeline(parts: PipelineParts): CheckPlatform {
  const send = compose(sendSteps(parts), exchangeCore(parts));
  const dispatch: Dispatch = compose(
    checkSteps(parts),
    retried({ policy: parts.retry, timeoutMs: parts.timeoutMs, now: parts.now, random: parts.random }, send),
  );
  const first = parts.egress[0];
  if (!first) throw new Error('a check pipeline needs at least one egress identity');
  return async (platform, username, signal, options = {}) => {
    const session = parts.sessions?.for(platform);
    const built = buildRequest(platform, username, parts.baseHeaders, session);
    if (!built.ok) return invalidOutcome(platform, built.profileUrl, built.reason, built.message);
    const sent = await dispatch({
      platform,
      username,
      request: built.request,
      profileUrl: built.profileUrl,
      session,
      // The site its budget counts against, worked out once per check.
      site: budgetOrigin(platform),
      ceiling: platform.budget ?? parts.budget,
      priority: options.priority ?? 0,
      book: options.book,
      cancel: options.cancel,
      joined: options.joined,
      signal,
      escalations: options.escalations,
      egress: { index: 0, name: first.name, dispatcher: first.dispatcher },
      transport: platform.transport,
      admitted: false,
    });
    return sent.outcome;
  };
}
