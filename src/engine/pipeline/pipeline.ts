/**
 * The check pipeline: the path of one platform and one username, built once by the engine
 * from the parts it has (a part it lacks is a step it leaves out, not a flag each check tests).
 * A check passes, in order:
 *
 * 0. Built (pure): its request, or `invalid` when the name cannot be sent there.
 * 1. Session gate (session-gate.ts): a platform that needs a session, with none: not sent.
 * 2. Breaker refusal (breaker.ts): an origin that stopped answering is not even booked.
 * 3. Schedule (schedule.ts): its send time booked; it goes on at that time through the identity
 *    the time came through, or reads `budget_exhausted` when none came within its deadline.
 * 4. Breaker guard (breaker.ts): admitted at its send time, its end recorded once it has one.
 * 5. Controls (controls.ts): a hit vetted by its platform's control, which goes through the
 *    steps below as a check does (the eager control alongside it).
 * 6. Transport choice (transport-choice.ts): the transport it starts at; one this process lacks: not sent.
 * 7. Retries (retries.ts): its deadline starts, and its request is sent, and sent again while
 *    worth it, each retry at a send time of its own. From here each step is one request's:
 * 8. Site-limit learning (site-limits.ts): the answer's rate signals taught to the site's limit.
 * 9. Escalation (transport-choice.ts): a bot defence asked again through the next transport.
 * 10. Core (exchange.ts): the exchange, its answer classified as it is read.
 *
 * A check's steps share the `Dispatch` shape and a request's the `Send` shape (dispatch.ts);
 * the retries are the one step between the two, as a retry is where a check becomes requests.
 */
import type { Platform, Shield } from '../../catalogue/platform.js';
import { budgetOrigin } from '../../schedule/politeness-bound.js';
import type { BudgetLimit } from '../../schedule/rate-budget.js';
import type { Cancellation, Scheduler } from '../../schedule/scheduler.js';
import type { SiteLimitBook } from '../../schedule/site-limit-book.js';
import type { ControlGuard } from '../controls/control-guard.js';
import type { EscalationBudget } from '../escalation.js';
import type { OriginBreaker } from '../origin-breaker.js';
import type { RetryPolicy } from '../retry.js';
import type { Transports } from '../transport/transports.js';
import type { TransportBook } from '../transport-book.js';
import { invalidOutcome, type Outcome } from '../verdict/outcome.js';
import { buildRequest } from '../verdict/request.js';
import type { Sessions } from '../verdict/session.js';
import { guardSend, refuseOpen } from './breaker.js';
import { controls } from './controls.js';
import { type BookCheck, compose, type Dispatch, type SendWrapper, type Wrapper } from './dispatch.js';
import { exchangeCore } from './exchange.js';
import { retried } from './retries.js';
import { type EgressRoute, schedule } from './schedule.js';
import { sessionGate } from './session-gate.js';
import { learnSiteLimits } from './site-limits.js';
import { chooseTransport, escalate } from './transport-choice.js';

/** What the engine has to build the pipeline from; an absent part leaves its step out. */
export interface PipelineParts {
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
  /** Cancels the check while it waits for its send time (its search ended); no effect once sent. */
  readonly cancel?: Cancellation | undefined;
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
      signal,
      escalations: options.escalations,
      egress: { index: 0, name: first.name, dispatcher: first.dispatcher },
      transport: platform.transport,
      admitted: false,
    });
    return sent.outcome;
  };
}
