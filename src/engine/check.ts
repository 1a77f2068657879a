/**
 * One platform, one username: build the request, send it (retried by the
 * wrapper in retry.ts, within a deadline), classify the answer. Never throws
 * for a platform's failure; only a cancelled search rejects.
 */
import type { Dispatcher } from 'undici';
import type { Platform, Shield, Transport } from '../catalogue/platform.js';
import type { SiteLimitBook } from '../schedule/site-limit-book.js';
import { classify, type Decision, finalVerdict } from './classify.js';
import { type AnswerPrint, answerPrint } from './control.js';
import type { ControlGuard, SentCheck } from './control-guard.js';
import { type EscalationBudget, isBotDefence, nextTransport } from './escalation.js';
import { type HeardAnswer, heardAnswer } from './heard-answer.js';
import { type Exchange, exchange } from './http.js';
import { type CheckLimiter, DEFAULT_IDENTITY } from './limiter.js';
import {
  type BreakerRefusal,
  type BreakerResult,
  breakerResult,
  type OriginBreaker,
} from './origin-breaker.js';
import {
  type AnsweredDecision,
  answeredOutcome,
  errorOutcome,
  invalidOutcome,
  type Outcome,
  unsentUnknownOutcome,
} from './outcome.js';
import { budgetOrigin } from './politeness-bound.js';
import { extractProfile, PROFILE_READ_CHARS } from './profile-extract.js';
import type { BudgetLimit } from './rate-budget.js';
import { buildRequest, type CheckRequest } from './request.js';
import type { ResponseView } from './response-view.js';
import { type Attempt, type RetryClock, type RetryPolicy, withRetries } from './retry.js';
import { describeTransportError, hasErrorCode, transportErrorReason } from './transport-error.js';
import { NEEDS_BROWSER_CODE, type Transports } from './transports.js';

export interface CheckContext {
  /** What send() sends through: the first egress identity's; checkPlatform swaps in the one the limiter chose. */
  readonly dispatcher: Dispatcher;
  /** One dispatcher per egress identity, in the limiter's order of identities. */
  readonly egress: readonly Dispatcher[];
  readonly limiter: CheckLimiter;
  /** Request-rate budget of an origin through one identity, unless its platform sets its own. */
  readonly budget: BudgetLimit;
  /** Names of the egress identities, in the order of `egress` (control records are kept per identity). */
  readonly identities?: readonly string[];
  /** Learns sites' limits from their rate-limited answers and lowers their budgets; absent: the catalogue's alone. */
  readonly siteLimits?: SiteLimitBook | undefined;
  /** Checks a control name when a check reads `hit` (control-guard.ts); absent: hits stand as read. */
  readonly controls?: ControlGuard | undefined;
  /** Stops sending to origins that stopped answering; absent: always send. */
  readonly breaker?: OriginBreaker | undefined;
  readonly shields: readonly Shield[];
  readonly baseHeaders: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly bodyCapBytes: number;
  /** false: a check that leaves no other check to its origin closes its connection after the answer. */
  readonly keepIdleConnections: boolean;
  readonly maxRedirects: number;
  readonly retry: RetryPolicy;
  readonly now: () => number;
  readonly random: () => number;
  /** The transports a platform may name other than `http` (transports.ts); absent: every check goes by http. */
  readonly transports?: Transports | undefined;
  /** Index of the egress identity `dispatcher` belongs to; set by checkPlatform. @default 0 */
  readonly identity?: number | undefined;
}

export class CheckTimeoutError extends Error {
  override readonly name = 'TimeoutError';
  readonly code = 'ABORT_ERR';
  constructor(ms: number) {
    super(`no decision within ${ms} ms`);
  }
}

export async function checkPlatform(
  platform: Platform,
  username: string,
  ctx: CheckContext,
  signal?: AbortSignal,
  /** Higher first when checks wait for a slot (a professional search's). @default 0 */
  priority = 0,
  /** Called once the check no longer waits in line for its first global slot (see Admission). */
  leftLine?: () => void,
  /** Called when its send slot has come and its request goes out (origin-backlog.ts); not when none is sent. */
  sending?: () => void,
  /** Its search's escalations to costlier transports (escalation.ts); absent: none. */
  escalations?: EscalationBudget,
): Promise<Outcome> {
  const built = buildRequest(platform, username, ctx.baseHeaders);
  if (!built.ok) {
    return invalidOutcome(platform, built.profileUrl, built.reason, built.message);
  }
  const { request, profileUrl } = built;
  const origin = request.origin;
  // An origin that stopped answering is not waited for, not even for a slot.
  const open = ctx.breaker?.refusal(origin);
  if (open) return unresponsive(platform, profileUrl, open);
  const limit = platform.budget ?? ctx.budget;
  // The site its budget counts against, worked out once per platform.
  const polite = budgetOrigin(platform);
  const admitted = await ctx.limiter.run(
    polite,
    async (identity) => {
      sending?.();
      signal?.throwIfAborted();
      const refused = ctx.breaker?.admit(origin);
      if (refused) return unresponsive(platform, profileUrl, refused);
      let ended: BreakerResult = 'other';
      try {
        const through =
          identity === 0 ? ctx : { ...ctx, dispatcher: ctx.egress[identity] ?? ctx.dispatcher, identity };
        // A retry is a request like any other: it waits for its own send slot.
        const slot = (maxWaitMs: number) => ctx.limiter.pace(polite, identity, limit, maxWaitMs, signal);
        // Asked at each attempt: a check queued meanwhile for this origin keeps the connection.
        const closeAfter = () => !ctx.keepIdleConnections && !ctx.limiter.othersFor(polite);
        const identityName = ctx.identities?.[identity] ?? DEFAULT_IDENTITY;
        // Every answer, a control's and a retry's too, may teach the site's limit.
        const heard: HeardAnswer = (status, signals, sentAt) =>
          ctx.siteLimits?.heard(polite, identityName, status, signals, sentAt, limit);
        // A control goes through the same identity, in a send slot of the same budget.
        const sendControl = async (name: string): Promise<SentCheck> => {
          const built = buildRequest(platform, name, ctx.baseHeaders);
          if (!built.ok)
            return { outcome: invalidOutcome(platform, built.profileUrl, built.reason, built.message) };
          if (!(await slot(ctx.timeoutMs)))
            return { outcome: budgetExhausted(platform, built.profileUrl, limit, ctx.timeoutMs) };
          return send(
            platform,
            built.request,
            built.profileUrl,
            through,
            slot,
            closeAfter,
            heard,
            signal,
            escalations,
          );
        };
        // Eager (the service): sent alongside the check when due, so a hit does not wait for it after its answer.
        const early = ctx.controls?.eagerFor(platform)
          ? ctx.controls.current(platform, identityName, sendControl)
          : undefined;
        const sent = await send(
          platform,
          request,
          profileUrl,
          through,
          slot,
          closeAfter,
          heard,
          signal,
          escalations,
        );
        ended = breakerResult(sent.outcome);
        if (sent.outcome.status !== 'hit' || !ctx.controls) return sent.outcome;
        return ctx.controls.vet(platform, identityName, sent, sendControl, early);
      } finally {
        ctx.breaker?.record(origin, ended);
      }
    },
    // The wait for a send slot may use the check's whole deadline; the send then has its own.
    { limit, maxWaitMs: ctx.timeoutMs, priority, signal, leftLine },
  );
  return admitted.sent ? admitted.value : budgetExhausted(platform, profileUrl, limit, admitted.waitedMs);
}

/** Sends a check (with retries, each in a send slot of `slot`, within its deadline) and classifies the answer. */
async function send(
  platform: Platform,
  request: CheckRequest,
  profileUrl: string,
  ctx: CheckContext,
  slot: RetryClock['slot'],
  closeAfter: () => boolean,
  heard: HeardAnswer,
  signal: AbortSignal | undefined,
  escalations: EscalationBudget | undefined,
): Promise<SentCheck> {
  signal?.throwIfAborted();
  // The one seam of the other transports: the same request, the same answer shape, read alike.
  const named = platform.transport;
  const missing = named === 'http' ? undefined : ctx.transports?.missing(named);
  if (missing) return { outcome: needsBrowser(platform, profileUrl, missing) };
  const started = ctx.now();
  const deadline = started + ctx.timeoutMs;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new CheckTimeoutError(ctx.timeoutMs)), ctx.timeoutMs);
  const onCancel = () => controller.abort(signal?.reason);
  signal?.addEventListener('abort', onCancel, { once: true });
  // A hit reads on for its profile details: to the end of its answer, or as far as extractProfile reads.
  const decide = (view: ResponseView): Decision | undefined => {
    const decision = classify(platform, view, ctx.shields);
    if (decision === 'pending') return undefined;
    const enough = decision.status !== 'hit' || view.complete || view.body.length >= PROFILE_READ_CHARS;
    return enough ? decision : undefined;
  };
  // The next transport for an answer that is a bot defence, if the search may still escalate.
  const escalation = (verdict: AnsweredDecision, from: Transport): Transport | undefined => {
    if (!escalations || !isBotDefence(verdict)) return undefined;
    const next = nextTransport(from, (t) => t !== 'http' && ctx.transports?.missing(t) === undefined);
    return next && escalations.take() ? next : undefined;
  };
  // The answer the outcome was read from, for comparing a hit with its control's.
  let answer: AnswerPrint | undefined;
  try {
    const outcome = await withRetries(
      async (attempts): Promise<Attempt<Outcome>> => {
        let transport: Transport = named;
        let result: Exchange<Decision>;
        const sentAt = Date.now();
        const sendVia = (via: Transport): Promise<Exchange<Decision>> =>
          via === 'http' || !ctx.transports
            ? exchange(request, {
                dispatcher: ctx.dispatcher,
                signal: controller.signal,
                bodyCapBytes: ctx.bodyCapBytes,
                maxRedirects: ctx.maxRedirects,
                closeConnection: closeAfter(),
                decide,
              })
            : ctx.transports.exchange(via, ctx.identity ?? 0, request, {
                signal: controller.signal,
                bodyCapBytes: ctx.bodyCapBytes,
                maxRedirects: ctx.maxRedirects,
                decide,
              });
        try {
          result = await sendVia(transport);
        } catch (error) {
          if (signal?.aborted) throw signal.reason;
          if (hasErrorCode(error, [NEEDS_BROWSER_CODE]))
            return {
              end: { answered: false, error, timedOut: false },
              result: () => needsBrowser(platform, profileUrl, describeTransportError(error)),
            };
          const timedOut = controller.signal.aborted;
          return {
            end: { answered: false, error, timedOut },
            result: () =>
              errorOutcome(
                platform,
                profileUrl,
                timedOut ? 'timeout' : transportErrorReason(error),
                describeTransportError(timedOut ? controller.signal.reason : error),
                { responseTime: Math.round(ctx.now() - started), attempts },
              ),
          };
        }
        let verdict = finalVerdict(platform, result.view, ctx.shields, result.decision);
        // A bot defence is tried again through the next transport, within this deadline and the
        // search's escalations; an escalation that fails leaves the defence's answer standing.
        for (let next = escalation(verdict, transport); next; next = escalation(verdict, transport)) {
          try {
            result = await sendVia(next);
          } catch {
            if (signal?.aborted) throw signal.reason;
            break;
          }
          transport = next;
          verdict = finalVerdict(platform, result.view, ctx.shields, result.decision);
        }
        const answered = result;
        answer = answerPrint(answered.view, answered.bytesRead);
        return {
          end: {
            answered: true,
            status: answered.view.status,
            explained: !(verdict.status === 'unknown' && verdict.reason === 'unexpected_response'),
            waitMs: heardAnswer(answered.view, sentAt, heard),
          },
          result: () => {
            const outcome = answeredOutcome(platform, profileUrl, verdict, {
              responseTime: Math.round(ctx.now() - started),
              httpStatus: answered.view.status,
              finalUrl: answered.view.url,
              attempts,
              bytesRead: answered.bytesRead,
            });
            const profile = verdict.status === 'hit' ? extractProfile(platform, answered.view) : undefined;
            const via =
              transport === 'http' ? outcome : { ...outcome, evidence: { ...outcome.evidence, transport } };
            return profile ? { ...via, profile } : via;
          },
        };
      },
      ctx.retry,
      { now: ctx.now, random: ctx.random, deadline, signal: controller.signal, slot },
    );
    return { outcome, answer: outcome.evidence.httpStatus === undefined ? undefined : answer };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onCancel);
  }
}

/** The outcome of a check not sent because its origin's request budget had no slot within its deadline. */
function budgetExhausted(
  platform: Platform,
  profileUrl: string,
  limit: BudgetLimit,
  waitedMs: number,
): Outcome {
  return unsentUnknownOutcome(
    platform,
    profileUrl,
    'budget_exhausted',
    `not sent: the local request budget for this origin (${limit.perSecond}/s, burst ${limit.burst}, per egress identity) had no free slot within the deadline (waited ${waitedMs} ms)`,
  );
}

/** The outcome of a check whose platform needs a browser this process cannot start. */
function needsBrowser(platform: Platform, profileUrl: string, why: string): Outcome {
  return unsentUnknownOutcome(platform, profileUrl, 'needs_browser', `not sent: ${why}`);
}

/** The outcome of a check not sent because its origin has stopped answering. */
function unresponsive(platform: Platform, profileUrl: string, refusal: BreakerRefusal): Outcome {
  return errorOutcome(
    platform,
    profileUrl,
    'timeout',
    `not sent: the last ${refusal.timeouts} checks to this origin timed out; it is tried again in ${Math.ceil(refusal.retryInMs / 1000)} s`,
  );
}
