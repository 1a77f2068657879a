/**
 * The retry wrapper around one attempt of a check: which ends are worth another
 * attempt (policy as data, `RETRY_ON` in config.ts), and the loop that waits
 * (see retry-timing.ts), takes a send slot like any request, and tries again
 * while the deadline allows.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { retryDelay } from './retry-timing.js';
import { hasErrorCode } from './transport/transport-error.js';

/** What is worth another attempt. */
export interface RetryOn {
  /** Statuses retried whatever the answer says. */
  readonly statuses: readonly number[];
  /** Statuses retried only when neither the platform's rules nor a shield explain the answer. */
  readonly unexplainedStatuses: readonly number[];
  /** Error codes (anywhere in the `cause` chain) of a connection that broke before an answer. */
  readonly transportErrors: readonly string[];
}

export interface RetryPolicy {
  /** Attempts after the first. */
  readonly retries: number;
  /** First backoff step in ms; doubles each attempt. */
  readonly baseDelayMs: number;
  /** Longest backoff or Retry-After honoured, in ms. */
  readonly maxDelayMs: number;
  readonly on: RetryOn;
}

/** How one attempt ended, as the policy reads it. */
export type AttemptEnd =
  | {
      readonly answered: true;
      readonly status: number;
      /** The platform's rules or a shield explain the answer. */
      readonly explained: boolean;
      /** The wait the site asked for (ms): Retry-After, or the reset of a spent quota (src/schedule/rate-signals.ts). */
      readonly waitMs: number | undefined;
    }
  | {
      readonly answered: false;
      readonly error: unknown;
      readonly timedOut: boolean;
      /** The server refused the handshake, as a shield does: not retried, as a shield's page is not. */
      readonly defended?: boolean;
    };

/** One attempt: how it ended, and the result to give if it is the last. */
export interface Attempt<T> {
  readonly end: AttemptEnd;
  /** Built only for the attempt that is returned, so it can read the clock then. */
  readonly result: () => T;
}

export function worthRetrying(end: AttemptEnd, on: RetryOn): boolean {
  if (!end.answered) return !end.timedOut && !end.defended && hasErrorCode(end.error, on.transportErrors);
  return on.statuses.includes(end.status) || (!end.explained && on.unexplainedStatuses.includes(end.status));
}

export interface RetryClock {
  readonly now: () => number;
  readonly random: () => number;
  readonly deadline: number;
  readonly signal: AbortSignal;
  /**
   * Waits, after the backoff, for the retry's send slot (its origin's request
   * budget, as the first attempt's), at most `maxWaitMs`; false when none comes
   * in time, and the retry is not sent. Absent: no budget to keep.
   */
  readonly slot?: (maxWaitMs: number) => Promise<boolean>;
}

/**
 * Runs `attempt` (numbered from 1) until one is not worth retrying, the retries
 * are spent, or the next wait (backoff, then a send slot) would pass the
 * deadline or be cut short by `signal`: the last attempt's result then stands.
 */
export async function withRetries<T>(
  attempt: (n: number) => Promise<Attempt<T>>,
  policy: RetryPolicy,
  clock: RetryClock,
): Promise<T> {
  for (let n = 1; ; n++) {
    const { end, result } = await attempt(n);
    if (n <= policy.retries && worthRetrying(end, policy.on)) {
      const wait = nextWait(n - 1, end, policy, clock.random());
      if (
        wait !== undefined &&
        clock.now() + wait < clock.deadline &&
        (await pause(wait, clock.signal)) &&
        (await slot(clock))
      )
        continue;
    }
    return result();
  }
}

/**
 * The wait before retry `attempt` (from 0): the site's when it asked for one, else a backoff.
 * Undefined when the site asked for longer than the policy waits: a retry sooner would be
 * refused again, and sent against the site's word.
 */
function nextWait(attempt: number, end: AttemptEnd, policy: RetryPolicy, random: number): number | undefined {
  const asked = end.answered ? end.waitMs : undefined;
  if (asked === undefined) return retryDelay(attempt, undefined, policy, 0, random);
  return asked <= policy.maxDelayMs ? asked : undefined;
}

/** Waits for the retry's send slot within the deadline; false when none comes in time or the wait is cut short. */
async function slot(clock: RetryClock): Promise<boolean> {
  if (!clock.slot) return true;
  const left = clock.deadline - clock.now();
  if (left <= 0) return false;
  try {
    return await clock.slot(left);
  } catch (error) {
    if (clock.signal.aborted) return false;
    throw error;
  }
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
