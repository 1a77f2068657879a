/**
 * Sends one webhook attempt: POSTs the event's raw body, signed now, with a
 * timeout that aborts the request; never throws. The one outbound request of
 * watchlists; the network sits here, the policy in delivery-policy.ts.
 *
 * A receiver is not trusted with our memory: its answer is never decompressed
 * (undici's `request`, which asks for no encoding and decodes none) and at most
 * `ANSWER_READ_MAX_BYTES` of it are read, then the body is destroyed; a 2xx
 * answer's body is not read at all. The status is what counts.
 */
import type { Readable } from 'node:stream';
import { Agent, request } from 'undici';
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

/** Most bytes of a receiver's answer body read, enough for a short reason; the rest is never read. */
export const ANSWER_READ_MAX_BYTES = 4 * 1024;

/** Longest reason from a receiver's answer kept in the log, characters. */
const ERROR_TEXT_MAX = 200;

/**
 * The reason kept from a failed answer's first bytes: printable text only, one
 * line, at most ERROR_TEXT_MAX characters; nothing from an encoded (compressed) body. Pure.
 */
export function answerReason(head: Uint8Array, contentEncoding: string | undefined): string {
  if (contentEncoding && contentEncoding.trim().toLowerCase() !== 'identity') return '';
  return new TextDecoder('utf-8', { fatal: false })
    .decode(head)
    .replace(/[\p{Cc}\p{Cf}\uFFFD]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, ERROR_TEXT_MAX);
}

/** Reads at most `maxBytes` of `body`, then destroys it, whatever it sends next. */
async function readHead(body: Readable, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let kept = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      const part = chunk.subarray(0, maxBytes - kept);
      chunks.push(part);
      kept += part.length;
      if (kept >= maxBytes) break;
    }
  } catch {
    // Cut off by the timeout or the receiver: what came is enough.
  } finally {
    discard(body);
  }
  return Buffer.concat(chunks);
}

/** Ends the body without reading more; destroying an unfinished one reports an abort, which is ours. */
function discard(body: Readable): void {
  body.on('error', () => {});
  body.destroy();
}

const headerOf = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value.join(',') : value;

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
    // `request` follows no redirect and decodes no content-encoding; the signal also ends the body.
    const response = await request(delivery.url, {
      method: 'POST',
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
    const status = response.statusCode;
    if (status >= 200 && status < 300) {
      discard(response.body);
      return { at, status, durationMs: options.now() - at };
    }
    const head = await readHead(response.body, ANSWER_READ_MAX_BYTES);
    const reason = answerReason(head, headerOf(response.headers['content-encoding']));
    return {
      at,
      status,
      error: `HTTP ${status}${reason ? `: ${reason}` : ''}`,
      durationMs: options.now() - at,
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
