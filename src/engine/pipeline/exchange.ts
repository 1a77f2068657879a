/**
 * The core: one request through one transport, its answer classified as it is read
 * (`exchangeCore`), and how a request's end reads as an outcome (`readReply`, pure). A hit
 * reads on for its profile details: to the end of its answer, or as far as extractProfile reads.
 */
import type { Shield } from '../../catalogue/platform.js';
import { answerPrint } from '../controls/control.js';
import { passesOnItsOwn, refusedHandshake } from '../escalation.js';
import { answerSignals } from '../heard-answer.js';
import type { AttemptEnd } from '../retry.js';
import { exchange } from '../transport/http.js';
import { describeTransportError, hasErrorCode, transportErrorReason } from '../transport/transport-error.js';
import { BROWSER_HELD_BACK_CODE, NEEDS_BROWSER_CODE, type Transports } from '../transport/transports.js';
import { classify, type Decision, finalVerdict, matchedNoRule } from '../verdict/classify.js';
import {
  answeredOutcome,
  errorOutcome,
  type Outcome,
  refusedOutcome,
  unsentUnknownOutcome,
} from '../verdict/outcome.js';
import { extractProfile, PROFILE_READ_CHARS } from '../verdict/profile-extract.js';
import type { ResponseView } from '../verdict/response-view.js';
import type { Check, Reply, Send, Sending, Sent } from './dispatch.js';
import { needsBrowser } from './unsent.js';

export interface ExchangeOptions {
  readonly shields: readonly Shield[];
  readonly bodyCapBytes: number;
  readonly maxRedirects: number;
  /** The transports other than `http` (transports.ts); absent: every request goes by http. */
  readonly transports?: Transports | undefined;
}

/** Sends the check's request by its transport; rejects only when the check's own signal aborted. */
export function exchangeCore(options: ExchangeOptions): Send {
  const { shields, bodyCapBytes, maxRedirects, transports } = options;
  return async (check: Sending): Promise<Reply> => {
    const { platform, request, transport } = check;
    const signal = check.deadline.signal;
    const name = request.username;
    const decide = (view: ResponseView): Decision | undefined => {
      const decision = classify(platform, view, shields, name);
      if (decision === 'pending') return undefined;
      const enough = decision.status !== 'hit' || view.complete || view.body.length >= PROFILE_READ_CHARS;
      return enough ? decision : undefined;
    };
    try {
      const result =
        transport === 'http' || !transports
          ? await exchange(request, {
              dispatcher: check.egress.dispatcher,
              signal,
              bodyCapBytes,
              maxRedirects,
              closeConnection: check.egress.closeAfter?.() ?? false,
              decide,
            })
          : await transports.exchange(transport, check.egress.index, request, {
              signal,
              bodyCapBytes,
              maxRedirects,
              decide,
              passes: (decision, view) => passesOnItsOwn(decision, view, shields),
              admitted: check.admitted,
            });
      // A transport may end its wait at the deadline with the answer it had (a challenge still
      // working): the engine closing is no deadline, and its answer is no site's to share.
      if (check.signal?.aborted) throw check.signal.reason;
      return {
        answered: true,
        transport,
        exchange: result,
        verdict: finalVerdict(platform, result.view, shields, result.decision, name),
        signals: answerSignals(result.view),
      };
    } catch (error) {
      if (check.signal?.aborted) throw check.signal.reason;
      // A transport that declined to send did not time out, whenever it said so.
      const declined = hasErrorCode(error, [NEEDS_BROWSER_CODE, BROWSER_HELD_BACK_CODE]);
      const timedOut = !declined && signal.aborted;
      const defence = timedOut ? undefined : refusedHandshake(error);
      return defence
        ? { answered: false, transport, error, timedOut, defence }
        : { answered: false, transport, error, timedOut };
    }
  };
}

/** How a request ended, as the retries read it. */
export function attemptEnd(reply: Reply): AttemptEnd {
  if (!reply.answered)
    return {
      answered: false,
      error: reply.error,
      timedOut: reply.timedOut,
      defended: reply.defence !== undefined,
    };
  const { verdict } = reply;
  return {
    answered: true,
    status: reply.exchange.view.status,
    explained: !matchedNoRule(verdict),
    waitMs: reply.signals?.waitMs,
  };
}

/** What a check's last request gave: its outcome, and the print of its answer when one came. */
export function readReply(
  check: Check,
  reply: Reply,
  timing: { readonly attempts: number; readonly responseTime: number; readonly deadline: AbortSignal },
): Sent {
  const { platform, profileUrl } = check;
  if (!reply.answered && reply.defence) {
    const spent = { responseTime: timing.responseTime, attempts: timing.attempts };
    const { reason = 'waf', rule } = reply.defence;
    const outcome = refusedOutcome(platform, profileUrl, reason, rule, spent);
    const { transport } = reply;
    return {
      outcome: transport === 'http' ? outcome : { ...outcome, evidence: { ...outcome.evidence, transport } },
      answer: undefined,
    };
  }
  if (!reply.answered) return { outcome: unanswered(check, reply.error, reply.timedOut, timing) };
  const { exchange: answered, verdict, transport } = reply;
  const outcome = answeredOutcome(platform, profileUrl, verdict, {
    responseTime: timing.responseTime,
    httpStatus: answered.view.status,
    finalUrl: answered.view.url,
    attempts: timing.attempts,
    bytesRead: answered.bytesRead,
  });
  const profile = verdict.status === 'hit' ? extractProfile(platform, answered.view) : undefined;
  const via = transport === 'http' ? outcome : { ...outcome, evidence: { ...outcome.evidence, transport } };
  const read = profile ? { ...via, profile } : via;
  // The answer the outcome was read from, for comparing a hit with its control's.
  return {
    outcome: read,
    answer:
      read.evidence.httpStatus === undefined ? undefined : answerPrint(answered.view, answered.bytesRead),
  };
}

/** The outcome of a request that got no answer. */
function unanswered(
  check: Check,
  error: unknown,
  timedOut: boolean,
  timing: { readonly attempts: number; readonly responseTime: number; readonly deadline: AbortSignal },
): Outcome {
  const { platform, profileUrl } = check;
  if (hasErrorCode(error, [NEEDS_BROWSER_CODE]))
    return needsBrowser(platform, profileUrl, describeTransportError(error));
  if (hasErrorCode(error, [BROWSER_HELD_BACK_CODE]))
    return unsentUnknownOutcome(platform, profileUrl, 'budget_exhausted', (error as Error).message);
  return errorOutcome(
    platform,
    profileUrl,
    timedOut ? 'timeout' : transportErrorReason(error),
    describeTransportError(timedOut ? timing.deadline.reason : error),
    { responseTime: timing.responseTime, attempts: timing.attempts },
  );
}
