/**
 * Sends one webhook attempt: POSTs the event's raw body, signed now, with a
 * timeout that aborts the request; never throws. The one outbound request of
 * watchlists; the network sits here, the policy in delivery-policy.ts.
 */
import { Agent, fetch } from 'undici';
import { guardedLookup } from '../engine/dispatcher.js';
import type { DeliveryAttempt, DeliveryRecord } from '../store/watchlists.js';
import { SIGNATURE_HEADER, signatureHeader } from './signature.js';
import { type Resolve, refusedDestination, resolveAll } from './webhook-url.js';

export interface SendOptions {
  readonly secret: string;
  readonly timeoutMs: number;
  readonly allowPrivate: boolean;
  readonly now: () => number;
  readonly resolve?: Resolve;
  readonly userAgent?: string;
  /** Ends the attempt early (the service stopping). */
  readonly signal?: AbortSignal;
}

/**
 * Connections of webhooks that must not reach private addresses: the address
 * checked is the one connected to, so a name that resolves differently at
 * connect time (DNS rebinding) is refused too. Made once, on first use.
 */
let guardedAgent: Agent | undefined;
const publicOnly = () => {
  guardedAgent ??= new Agent({ connect: { lookup: guardedLookup } });
  return guardedAgent;
};

/** Longest receiver's answer kept in the log, characters. */
const ERROR_TEXT_MAX = 200;

export async function sendWebhook(delivery: DeliveryRecord, options: SendOptions): Promise<DeliveryAttempt> {
  const at = options.now();
  const refused = await refusedDestination(delivery.url, options.allowPrivate, options.resolve ?? resolveAll);
  if (refused) return { at, error: refused, durationMs: 0 };
  const timestamp = Math.floor(at / 1000);
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
  try {
    const response = await fetch(delivery.url, {
      method: 'POST',
      redirect: 'manual',
      signal,
      ...(options.allowPrivate ? {} : { dispatcher: publicOnly() }),
      headers: {
        'content-type': 'application/json',
        'user-agent': options.userAgent ?? 'userscout-webhook/1',
        [SIGNATURE_HEADER]: signatureHeader(options.secret, timestamp, delivery.body),
        'x-userscout-event': delivery.eventType,
        'x-userscout-event-id': delivery.eventId,
        'x-userscout-delivery': delivery.id,
      },
      body: delivery.body,
    });
    // The body is read (bounded by the same timeout) so the connection can be reused.
    const text = await response.text().catch(() => '');
    const durationMs = options.now() - at;
    if (response.status >= 200 && response.status < 300) return { at, status: response.status, durationMs };
    return {
      at,
      status: response.status,
      error: `HTTP ${response.status}${text ? `: ${text.slice(0, ERROR_TEXT_MAX)}` : ''}`,
      durationMs,
    };
  } catch (error) {
    const durationMs = options.now() - at;
    const message = options.signal?.aborted
      ? 'aborted before an answer came'
      : timeout.aborted
        ? `no answer within ${options.timeoutMs} ms`
        : ((error as { cause?: { message?: string } }).cause?.message ??
          (error instanceof Error ? error.message : String(error)));
    return { at, error: message, durationMs };
  }
}
