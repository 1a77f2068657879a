/**
 * Sends one webhook attempt: POSTs the event's raw body, signed now, with a
 * timeout that aborts the request; never throws. The one outbound request of
 * watchlists; the network sits here, the policy in delivery-policy.ts.
 */
import { Agent, fetch } from 'undici';
import type { DeliveryAttempt, DeliveryRecord } from '../store/watchlists.js';
import { SIGNATURE_HEADER, signatureHeader } from './signature.js';
import { checkDestination, pinnedLookup, type Resolve, resolveAll } from './webhook-url.js';

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

/** Longest receiver's answer kept in the log, characters. */
const ERROR_TEXT_MAX = 200;

export async function sendWebhook(delivery: DeliveryRecord, options: SendOptions): Promise<DeliveryAttempt> {
  const at = options.now();
  let destination: Awaited<ReturnType<typeof checkDestination>>;
  try {
    // Resolved once per attempt: the connection goes to the addresses checked (no DNS rebinding).
    destination = await checkDestination(delivery.url, options.allowPrivate, options.resolve ?? resolveAll);
  } catch (error) {
    return {
      at,
      error: error instanceof Error ? error.message : String(error),
      durationMs: options.now() - at,
    };
  }
  if ('refused' in destination) return { at, error: destination.refused, durationMs: 0 };
  const { addresses } = destination;
  // Its own connections, closed after the attempt: a kept one could outlive what was checked.
  const pinned =
    addresses === 'any' ? undefined : new Agent({ connect: { lookup: pinnedLookup(addresses) } });
  const timestamp = Math.floor(at / 1000);
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
  try {
    const response = await fetch(delivery.url, {
      method: 'POST',
      redirect: 'manual',
      signal,
      ...(pinned ? { dispatcher: pinned } : {}),
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
  } finally {
    await pinned?.destroy().catch(() => {});
  }
}
