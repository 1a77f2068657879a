/**
 * One platform, one username: build the request, send it (retried by the
 * wrapper in retry.ts, within a deadline), classify the answer. Never throws
 * for a platform's failure; only a cancelled search rejects.
 */
import type { Dispatcher } from 'undici';
import type { Platform, Shield, Transport } from '../catalogue/platform.js';
import { budgetOrigin } from '../schedule/politeness-bound.js';
import type { BudgetLimit } from '../schedule/rate-budget.js';
import {
  type Cancellation,
  type CheckBooking,
  DEFAULT_IDENTITY,
  type Scheduled,
  type Scheduler,
} from '../schedule/scheduler.js';
import type { SiteLimitBook } from '../schedule/site-limit-book.js';
import { type AnswerPrint, answerPrint } from './controls/control.js';
import type { ControlGuard, SentCheck } from './controls/control-guard.js';
import {
  type EscalationBudget,
  isBotDefence,
  type LackingTransport,
  lackingTransport,
  lackingVerdict,
  nextTransport,
  startTransport,
  transportLearned,
} from './escalation.js';
import { type HeardAnswer, heardAnswer } from './heard-answer.js';
import {
  type BreakerRefusal,
  type BreakerResult,
  breakerResult,
  type OriginBreaker,
} from './origin-breaker.js';
import { type Attempt, type RetryClock, type RetryPolicy, withRetries } from './retry.js';
import { type Exchange, exchange } from './transport/http.js';
import { describeTransportError, hasErrorCode, transportErrorReason } from './transport/transport-error.js';
import { BROWSER_HELD_BACK_CODE, NEEDS_BROWSER_CODE, type Transports } from './transport/transports.js';
import type { TransportBook } from './transport-book.js';
import { classify, type Decision, finalVerdict } from './verdict/classify.js';
import {
  type AnsweredDecision,
  answeredOutcome,
  errorOutcome,
  invalidOutcome,
  type Outcome,
  unsentUnknownOutcome,
} from './verdict/outcome.js';
import { extractProfile, PROFILE_READ_CHARS } from './verdict/profile-extract.js';
import { buildRequest, type CheckRequest } from './verdict/request.js';
import type { ResponseView } from './verdict/response-view.js';
import type { Sessions } from './verdict/session.js';

export interface CheckContext {
  /** What send() sends through: the first egress identity's; checkPlatform swaps in the one its send time came through. */
  readonly dispatcher: Dispatcher;
  /** One dispatcher per egress identity, in the scheduler's order of identities. */
  readonly egress: readonly Dispatcher[];
  /** When each request goes (src/schedule/scheduler.ts). */
  readonly scheduler: Scheduler;
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
  /** Which transport sites were found to need (transport-book.ts); absent: each check starts at its platform's. */
  readonly transportBook?: TransportBook | undefined;
  /** The operator's sessions by platform (session.ts); absent: none. */
  readonly sessions?: Sessions | undefined;
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

/** Books a check's send time: a started search's admission, or the scheduler itself for a check on its own. */
export type BookCheck = <T>(request: CheckBooking<T>) => Promise<Scheduled<T>>;

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

export async function checkPlatform(
  platform: Platform,
  username: string,
  ctx: CheckContext,
  /** Aborts the check whatever it is doing (the engine closing). */
  signal?: AbortSignal,
  options: CheckOptions = {},
): Promise<Outcome> {
  const session = ctx.sessions?.for(platform);
  const built = buildRequest(platform, username, ctx.baseHeaders, session);
  if (!built.ok) {
    return invalidOutcome(platform, built.profileUrl, built.reason, built.message);
  }
  const { request, profileUrl } = built;
  // Without its login such a site shows a wall, not the account: nothing is sent.
  if (platform.session === 'required' && !session) return sessionRequired(platform, profileUrl);
  const origin = request.origin;
  // An origin that stopped answering is not waited for, not even for a send time.
  const open = ctx.breaker?.refusal(origin);
  if (open) return unresponsive(platform, profileUrl, open);
  const limit = platform.budget ?? ctx.budget;
  // The site its budget counts against, worked out once per platform.
  const polite = budgetOrigin(platform);
  const book: BookCheck = options.book ?? ((r) => ctx.scheduler.book(r));
  const scheduled = await book({
    site: polite,
    ceiling: limit,
    priority: options.priority ?? 0,
    // The wait for a send time may use the check's whole deadline; the send then has its own.
    maxWaitMs: ctx.timeoutMs,
    cancel: options.cancel,
    run: async (identity) => {
      signal?.throwIfAborted();
      const refused = ctx.breaker?.admit(origin);
      if (refused) return unresponsive(platform, profileUrl, refused);
      let ended: BreakerResult = 'other';
      try {
        const through =
          identity === 0 ? ctx : { ...ctx, dispatcher: ctx.egress[identity] ?? ctx.dispatcher, identity };
        // A retry is a request like any other: it waits for its own send time.
        const slot = (maxWaitMs: number) => ctx.scheduler.pace(polite, identity, limit, maxWaitMs, signal);
        // Asked at each attempt: a check queued meanwhile for this origin keeps the connection.
        const closeAfter = () => !ctx.keepIdleConnections && !ctx.scheduler.othersFor(polite);
        const identityName = ctx.identities?.[identity] ?? DEFAULT_IDENTITY;
        // Every answer, a control's and a retry's too, may teach the site's limit.
        const heard: HeardAnswer = (status, signals, sentAt) =>
          ctx.siteLimits?.heard(polite, identityName, status, signals, sentAt, limit);
        // The transport the site needs is remembered per site and identity, as its limit is.
        const site: SiteOf = { origin: polite, identity: identityName };
        // A control goes through the same identity, at a send time of the same budget.
        const sendControl = async (name: string): Promise<SentCheck> => {
          const built = buildRequest(platform, name, ctx.baseHeaders, session);
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
            site,
            signal,
            options.escalations,
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
          site,
          signal,
          options.escalations,
        );
        ended = breakerResult(sent.outcome);
        if (sent.outcome.status !== 'hit' || !ctx.controls) return sent.outcome;
        return ctx.controls.vet(platform, identityName, sent, sendControl, early);
      } finally {
        ctx.breaker?.record(origin, ended);
      }
    },
  });
  return scheduled.sent ? scheduled.value : budgetExhausted(platform, profileUrl, limit, scheduled.waitedMs);
}

/** The site and egress identity a check goes to, as the books that remember sites know them. */
interface SiteOf {
  readonly origin: string;
  readonly identity: string;
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
  site: SiteOf,
  signal: AbortSignal | undefined,
  escalations: EscalationBudget | undefined,
): Promise<SentCheck> {
  signal?.throwIfAborted();
  // The one seam of the other transports: the same request, the same answer shape, read alike.
  // A site found to need a costlier transport starts there, as an escalation to it would go.
  const start = startTransport(platform.transport, ctx.transportBook?.needed(site.origin, site.identity));
  const missing = start === 'http' ? undefined : ctx.transports?.missing(start);
  if (missing) {
    const why = start === platform.transport ? missing : `${missing} (its site was found to need ${start})`;
    return { outcome: needsBrowser(platform, profileUrl, why) };
  }
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
  // A defence that could have been tried further, but for the search's spent escalations or the
  // browser's caps, says why it was not.
  // A defence that only a transport this process lacks (the browser) could be tried past reads
  // needs_browser once escalation is on: installing it is what would reach the site.
  let unescalated: string | undefined;
  let lacking: LackingTransport | undefined;
  const fits = (t: Transport) => t !== 'http' && keepsSession(t, request);
  const lacks = (t: Transport) => (t === 'http' ? undefined : ctx.transports?.missing(t));
  const escalation = (verdict: AnsweredDecision, from: Transport): Transport | undefined => {
    if (!escalations || !isBotDefence(verdict)) return undefined;
    const next = nextTransport(from, (t) => fits(t) && lacks(t) === undefined);
    if (next && escalations.take()) return next;
    if (next && escalations.size > 0)
      unescalated = `not tried through ${next}: this search's escalations (USERSCOUT_ESCALATIONS) are spent`;
    if (!next && escalations.size > 0) lacking = lackingTransport(from, fits, lacks);
    return undefined;
  };
  // The answer the outcome was read from, for comparing a hit with its control's.
  let answer: AnswerPrint | undefined;
  try {
    const outcome = await withRetries(
      async (attempts): Promise<Attempt<Outcome>> => {
        let transport: Transport = start;
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
          if (hasErrorCode(error, [BROWSER_HELD_BACK_CODE]))
            return {
              end: { answered: false, error, timedOut: false },
              result: () =>
                unsentUnknownOutcome(platform, profileUrl, 'budget_exhausted', (error as Error).message),
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
        unescalated = undefined;
        lacking = undefined;
        // A bot defence is tried again through the next transport, within this deadline and the
        // search's escalations; an escalation that fails leaves the defence's answer standing.
        for (let next = escalation(verdict, transport); next; next = escalation(verdict, transport)) {
          try {
            result = await sendVia(next);
          } catch (error) {
            if (signal?.aborted) throw signal.reason;
            if (hasErrorCode(error, [BROWSER_HELD_BACK_CODE]))
              unescalated = (error as Error).message.replace(/^not sent/, `not tried through ${next}`);
            if (hasErrorCode(error, [NEEDS_BROWSER_CODE]))
              lacking = { transport: next, why: describeTransportError(error) };
            break;
          }
          transport = next;
          verdict = finalVerdict(platform, result.view, ctx.shields, result.decision);
        }
        if (unescalated)
          verdict = {
            ...verdict,
            rule: `${verdict.rule}; ${unescalated}`,
          };
        // Learned from the defence's own answer: reading needs_browser teaches nothing of the site.
        const learned = transportLearned(start, transport, verdict);
        if (learned) ctx.transportBook?.learned(site.origin, site.identity, learned);
        if (lacking) verdict = lackingVerdict(verdict, lacking);
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

/** A browser keeps cookies to one host, not headers (browser.ts): a header session goes by no browser. */
function keepsSession(transport: Transport, request: CheckRequest): boolean {
  return transport !== 'browser' || !request.session?.hasHeaders;
}

/** The outcome of a check not sent because its platform needs a session and none is configured. */
function sessionRequired(platform: Platform, profileUrl: string): Outcome {
  return unsentUnknownOutcome(
    platform,
    profileUrl,
    'session_required',
    'not sent: the platform needs a session and none is configured (USERSCOUT_SESSIONS_FILE or USERSCOUT_SESSIONS)',
  );
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
