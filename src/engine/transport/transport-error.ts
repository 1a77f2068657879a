/**
 * Reads a failure of the HTTP exchange: its outcome reason, its evidence text,
 * and its error codes. Pure.
 */
import type { ErrorReason } from '../verdict/outcome.js';

export const BLOCKED_DESTINATION_CODE = 'EUSERSCOUT_BLOCKED_DESTINATION';

const TIMEOUT = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
  'ESOCKETTIMEDOUT',
  'ABORT_ERR',
]);
const DNS = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NODATA', 'EAI_NONAME', 'ENODATA']);
const TLS_PREFIXES = ['ERR_TLS_', 'ERR_SSL_', 'CERT_', 'ERR_OSSL_'];
const TLS = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'EPROTO',
  'HOSTNAME_MISMATCH',
]);

/** Follows `cause` links: undici wraps socket errors. */
function codes(error: unknown): string[] {
  const out: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
    const { code, name } = current as { code?: unknown; name?: unknown };
    if (typeof code === 'string') out.push(code);
    if (name === 'TimeoutError' || name === 'AbortError') out.push('ABORT_ERR');
    current = (current as { cause?: unknown }).cause;
  }
  return out;
}

export function transportErrorReason(error: unknown): ErrorReason {
  const all = codes(error);
  if (all.includes(BLOCKED_DESTINATION_CODE)) return 'blocked_destination';
  if (all.some((c) => TLS.has(c) || TLS_PREFIXES.some((p) => c.startsWith(p)))) return 'tls';
  if (all.some((c) => DNS.has(c))) return 'dns';
  if (all.some((c) => TIMEOUT.has(c))) return 'timeout';
  return 'connection';
}

/** Short text for the evidence: the first code and message. */
export function describeTransportError(error: unknown): string {
  const all = codes(error);
  const message = error instanceof Error ? error.message : String(error);
  return all[0] ? `${all[0]}: ${message}` : message;
}

/** The error, or one of its causes, has one of these codes. */
export function hasErrorCode(error: unknown, wanted: readonly string[]): boolean {
  return codes(error).some((c) => wanted.includes(c));
}
