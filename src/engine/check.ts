/**
 * One platform, one username: build the request, send it (with retries and a
 * deadline), classify the answer. Never throws for a platform's failure; only
 * a cancelled search rejects.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import type { Platform, Shield } from '../catalogue/platform.js';
import { classify, type Verdict } from './classify.js';
import { type Exchange, exchange } from './http.js';
import { type CheckLimiter, politeOrigin } from './limiter.js';
import {
  type BreakerRefusal,
  type BreakerResult,
  breakerResult,
  type OriginBreaker,
} from './origin-breaker.js';
import type { Outcome } from './outcome.js';
import type { BudgetLimit } from './rate-budget.js';
import { buildRequest, type CheckRequest } from './request.js';
import { type RetryPolicy, retryDelay } from './retry-timing.js';
import {
  describeTransportError,
  isRetryableTransportError,
  transportErrorReason,
} from './transport-error.js';

export interface CheckContext {
  /** What send() sends through: the first egress identity's; checkPlatform swaps in the one the limiter chose. */
  readonly dispatcher: Dispatcher;
  /** One dispatcher per egress identity, in the limiter's order of identities. */
  readonly egress: readonly Dispatcher[];
  readonly limiter: CheckLimiter;
  /** Request-rate budget of an origin through one identity, unless its platform sets its own. */
  readonly budget: BudgetLimit;
  /** Stops sending to origins that stopped answering; absent: always send. */
  readonly breaker?: OriginBreaker | undefined;
  readonly shields: readonly Shield[];
  readonly baseHeaders: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly bodyCapBytes: number;
  readonly maxRedirects: number;
  readonly retry: RetryPolicy;
  readonly now: () => number;
  readonly random: () => number;
}

export class CheckTimeoutError extends Error {
  override readonly name = 'TimeoutError';
  readonly code = 'ABORT_ERR';
  constructor(ms: number) {
    super(`no decision within ${ms} ms`);
  }
}

function base(platform: Platform, url: string) {
  return { platform: platform.name, platformId: platform.id, category: platform.category, url };
}

export async function checkPlatform(
  platform: Platform,
  username: string,
  ctx: CheckContext,
  signal?: AbortSignal,
  /** Higher first when checks wait for a slot (a professional search's). @default 0 */
  priority = 0,
): Promise<Outcome> {
  const built = buildRequest(platform, username, ctx.baseHeaders);
  if (!built.ok) {
    return {
      ...base(platform, built.profileUrl),
      status: 'invalid',
      reason: built.reason,
      responseTime: 0,
      evidence: { rule: built.message, attempts: 0 },
    };
  }
  const { request, profileUrl } = built;
  const origin = request.origin;
  // An origin that stopped answering is not waited for, not even for a slot.
  const open = ctx.breaker?.refusal(origin);
  if (open) return unresponsive(platform, profileUrl, open);
  const limit = platform.budget ?? ctx.budget;
  const admitted = await ctx.limiter.run(
    politeOrigin(platform, origin),
    async (identity) => {
      signal?.throwIfAborted();
      const refused = ctx.breaker?.admit(origin);
      if (refused) return unresponsive(platform, profileUrl, refused);
      let ended: BreakerResult = 'other';
      try {
        const through = identity === 0 ? ctx : { ...ctx, dispatcher: ctx.egress[identity] ?? ctx.dispatcher };
        const outcome = await send(platform, request, profileUrl, through, signal);
        ended = breakerResult(outcome);
        return outcome;
      } finally {
        ctx.breaker?.record(origin, ended);
      }
    },
    // The wait for a send slot may use the check's whole deadline; the send then has its own.
    { limit, maxWaitMs: ctx.timeoutMs, priority, signal },
  );
  return admitted.sent ? admitted.value : budgetExhausted(platform, profileUrl, limit, admitted.waitedMs);
}

/** Sends a check (with retries, within its deadline) and classifies the answer. */
async function send(
  platform: Platform,
  request: CheckRequest,
  profileUrl: string,
  ctx: CheckContext,
  signal: AbortSignal | undefined,
): Promise<Outcome> {
  signal?.throwIfAborted();
  const started = ctx.now();
  const deadline = started + ctx.timeoutMs;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new CheckTimeoutError(ctx.timeoutMs)), ctx.timeoutMs);
  const onCancel = () => controller.abort(signal?.reason);
  signal?.addEventListener('abort', onCancel, { once: true });
  const decide = (view: Parameters<typeof classify>[1]) =>
    classify(platform, view, ctx.shields) !== 'pending';
  let attempts = 0;
  try {
    for (;;) {
      attempts++;
      let result: Exchange;
      try {
        result = await exchange(request, {
          dispatcher: ctx.dispatcher,
          signal: controller.signal,
          bodyCapBytes: ctx.bodyCapBytes,
          maxRedirects: ctx.maxRedirects,
          decided: decide,
        });
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        const timedOut = controller.signal.aborted;
        if (!timedOut && isRetryableTransportError(error) && attempts <= ctx.retry.retries) {
          const wait = retryDelay(attempts - 1, undefined, ctx.retry, ctx.now(), ctx.random());
          if (ctx.now() + wait < deadline && (await pause(wait, controller.signal))) continue;
        }
        return {
          ...base(platform, profileUrl),
          status: 'error',
          reason: timedOut ? 'timeout' : transportErrorReason(error),
          responseTime: Math.round(ctx.now() - started),
          evidence: {
            rule: describeTransportError(timedOut ? controller.signal.reason : error),
            attempts,
          },
        };
      }
      const verdict = finalVerdict(platform, result, ctx.shields);
      const status = result.view.status;
      const retryable =
        status === 429 ||
        (status === 503 && verdict.status === 'unknown' && verdict.reason === 'unexpected_response');
      if (retryable && attempts <= ctx.retry.retries) {
        const wait = retryDelay(
          attempts - 1,
          result.view.headers['retry-after'],
          ctx.retry,
          ctx.now(),
          ctx.random(),
        );
        if (ctx.now() + wait < deadline && (await pause(wait, controller.signal))) continue;
      }
      return {
        ...base(platform, profileUrl),
        status: verdict.status,
        ...(verdict.reason ? { reason: verdict.reason } : {}),
        responseTime: Math.round(ctx.now() - started),
        evidence: {
          httpStatus: status,
          finalUrl: result.view.url,
          rule: verdict.rule,
          attempts,
          bytesRead: result.bytesRead,
        },
      };
    }
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
  return {
    ...base(platform, profileUrl),
    status: 'unknown',
    reason: 'budget_exhausted',
    responseTime: 0,
    evidence: {
      rule: `not sent: the local request budget for this origin (${limit.perSecond}/s, burst ${limit.burst}, per egress identity) had no free slot within the deadline (waited ${waitedMs} ms)`,
      attempts: 0,
    },
  };
}

/** The outcome of a check not sent because its origin has stopped answering. */
function unresponsive(platform: Platform, profileUrl: string, refusal: BreakerRefusal): Outcome {
  return {
    ...base(platform, profileUrl),
    status: 'error',
    reason: 'timeout',
    responseTime: 0,
    evidence: {
      rule: `not sent: the last ${refusal.timeouts} checks to this origin timed out; it is tried again in ${Math.ceil(refusal.retryInMs / 1000)} s`,
      attempts: 0,
    },
  };
}

function finalVerdict(platform: Platform, result: Exchange, shields: readonly Shield[]): Verdict {
  const verdict = classify(platform, result.view, shields);
  if (verdict !== 'pending') return verdict;
  // Only reachable if the body ended early without `complete`; read it as complete.
  const whole = classify(platform, { ...result.view, complete: true }, shields);
  return whole === 'pending'
    ? { status: 'unknown', reason: 'unexpected_response', rule: 'undecided' }
    : whole;
}

/** Waits; false when the wait was cut short by the deadline or a cancel. */
async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}
