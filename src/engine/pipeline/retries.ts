/**
 * Where a check becomes requests: its deadline starts, and its request is sent (the
 * `Send` steps) and sent again while retry.ts finds the end worth another attempt and the
 * deadline allows, each retry at a send time of its own. The last request's end is the
 * check's, read when it is known to be the last (so its response time counts the waits).
 */
import { type RetryPolicy, withRetries } from '../retry.js';
import { CheckTimeoutError } from './check-timeout-error.js';
import type { Dispatch, Send } from './dispatch.js';
import { attemptEnd, readReply } from './exchange.js';

export interface RetriesOptions {
  readonly policy: RetryPolicy;
  /** How long a check's requests have to be answered, retries included (ms). */
  readonly timeoutMs: number;
  readonly now: () => number;
  readonly random: () => number;
}

/** The check's requests, each through `send`, within its deadline: the adapter from requests to a check. */
export function retried(options: RetriesOptions, send: Send): Dispatch {
  const { policy, timeoutMs, now, random } = options;
  return async (check) => {
    const { signal } = check;
    const started = now();
    const at = started + timeoutMs;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new CheckTimeoutError(timeoutMs)), timeoutMs);
    const onCancel = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onCancel, { once: true });
    const sending = { ...check, deadline: { started, at, signal: controller.signal } };
    try {
      return await withRetries(
        async (attempts) => {
          const reply = await send(sending);
          return {
            end: attemptEnd(reply),
            result: () =>
              readReply(check, reply, {
                attempts,
                responseTime: Math.round(now() - started),
                deadline: controller.signal,
              }),
          };
        },
        policy,
        { now, random, deadline: at, signal: controller.signal, slot: check.egress.slot },
      );
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onCancel);
    }
  };
}
